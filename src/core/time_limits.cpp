#include "core/time_limits.hpp"

#include "core/errors.hpp"
#include "core/units_format.hpp"

#include <fmt/format.h>

namespace fabricsim {

void throw_time_overflow(std::string_view what, Time t, Time d) {
    throw ModelError(fmt::format("{}: {} + {} passes the end of simulated time ({}, int64 picoseconds); a delay, "
                                 "timer or rate in the scenario is too extreme for the run",
                                 what, t, d, Time::max()));
}

}  // namespace fabricsim
