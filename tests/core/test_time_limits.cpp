// Sums of times near the end of simulated time (core/time_limits.hpp).
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/time_limits.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;

TEST_CASE("saturating_add stops at the end of time and is exact below it", "[units][limits]") {
    CHECK(saturating_add(1_us, 2_us) == 3_us);
    CHECK(saturating_add(Time::max() - 1_ps, 1_ps) == Time::max());
    CHECK(saturating_add(1_ps, Time::max()) == Time::max());  // a plain + wraps to -2^63 ps
    CHECK(saturating_add(Time::max(), Time::max()) == Time::max());
}

TEST_CASE("checked_add names what passed the end of time", "[units][limits]") {
    CHECK(checked_add(1_us, 2_us, "x") == 3_us);
    CHECK(checked_add(Time::max() - 1_ps, 1_ps, "x") == Time::max());
    CHECK_THROWS_AS(checked_add(20_ms, Time::max(), "PFC: a pause frame's arrival"), ModelError);
    CHECK_THROWS_WITH(checked_add(20_ms, Time::max(), "PFC: a pause frame's arrival"),
                      Catch::Contains("PFC: a pause frame's arrival: 20ms + ") &&
                          Catch::Contains("passes the end of simulated time"));
}
