#include "scenario/input_limits.hpp"

#include "core/units_format.hpp"

#include <fmt/format.h>

namespace fabricsim::scenario {

std::optional<std::string> beyond_limit(Time v, Time limit) {
    if (v <= limit) return std::nullopt;
    if (limit == kMaxTime)
        return fmt::format("at most {} (11.6 days: simulated time is int64 picoseconds)", to_string(limit));
    return fmt::format("at most {} (a delay that is added once per hop or message)", to_string(limit));
}

std::optional<std::string> beyond_limit(Bytes v) {
    if (v <= kMaxBytes) return std::nullopt;
    return fmt::format("at most {} (sizes are summed into 64-bit byte counters)", to_string(kMaxBytes));
}

std::optional<std::string> beyond_limit(Bandwidth v) {
    if (v <= kMaxBandwidth) return std::nullopt;
    return fmt::format("at most {}", to_string(kMaxBandwidth));
}

std::optional<std::string> beyond_limit(Length v) {
    if (v <= kMaxLength) return std::nullopt;
    return fmt::format("at most {}", to_string(kMaxLength));
}

}  // namespace fabricsim::scenario
