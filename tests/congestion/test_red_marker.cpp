// RED ECN marking at egress (src/congestion/red_marker.hpp); values from
// `docs/REFERENCES.md` (HPCC ns-3 run.py, NIC-style scaling).
#include <catch2/catch.hpp>

#include "congestion/red_marker.hpp"
#include "core/errors.hpp"
#include "core/rng.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::congestion;

TEST_CASE("red: NIC-style thresholds scale with line rate: 400 KB and 1600 KB at 100 Gb/s", "[red]") {
    const RedParams at100 = RedParams::nic(100_Gbps);
    CHECK(at100.kmin == 400_KB);
    CHECK(at100.kmax == 1600_KB);
    CHECK(at100.pmax == 0.2);
    CHECK(RedParams::nic(25_Gbps).kmin == 100_KB);
    CHECK(RedParams::nic(25_Gbps).kmax == 400_KB);
    CHECK(RedParams::nic(400_Gbps).kmin == 1600_KB);
    CHECK(RedParams::nic(400_Gbps).kmax == 6400_KB);
}

TEST_CASE("red: probability is 0 at Kmin and Pmax/2 at the midpoint and Pmax at Kmax and 1 above", "[red]") {
    const RedMarker red(RedParams::nic(100_Gbps));
    CHECK(red.probability(0_B) == 0.0);
    CHECK(red.probability(400_KB) == 0.0);
    CHECK(red.probability(401_KB) == Approx(0.2 * 1'000.0 / 1'200'000.0));
    CHECK(red.probability(1000_KB) == Approx(0.1));
    CHECK(red.probability(1600_KB) == Approx(0.2));
    CHECK(red.probability(Bytes{1'600'001}) == 1.0);
}

TEST_CASE("red: should_mark compares the caller's draw with the probability", "[red]") {
    const RedMarker red(RedParams::nic(100_Gbps));
    CHECK_FALSE(red.should_mark(400_KB, 0.0));  // p = 0: never
    CHECK(red.should_mark(1000_KB, 0.0999));    // p = 0.1
    CHECK_FALSE(red.should_mark(1000_KB, 0.1));
    CHECK(red.should_mark(1600_KB, 0.1999));  // p = 0.2 at Kmax
    CHECK_FALSE(red.should_mark(1600_KB, 0.2));
    CHECK(red.should_mark(Bytes{1'600'001}, 0.999999));  // above Kmax: always
}

TEST_CASE("red: Kmin equal to Kmax marks every packet above the threshold", "[red]") {
    const RedMarker step(RedParams{100_KB, 100_KB, 1.0});
    CHECK_FALSE(step.should_mark(100_KB, 0.0));
    CHECK(step.should_mark(Bytes{100'001}, 0.999));
}

TEST_CASE("red: with the seeded RNG the marked fraction at the midpoint is Pmax/2", "[red]") {
    const RedMarker red(RedParams::nic(100_Gbps));
    Rng rng(42, "sw0.port1.ecn");
    int marked = 0;
    const int n = 200'000;
    for (int i = 0; i < n; ++i) marked += red.should_mark(1000_KB, rng.uniform01()) ? 1 : 0;
    // Binomial(2e5, 0.1): standard deviation 134 marks; 5 sigma is 0.0034.
    CHECK(static_cast<double>(marked) / n == Approx(0.1).margin(0.0034));
}

TEST_CASE("red: bad thresholds are configuration errors", "[red]") {
    CHECK_THROWS_AS(RedMarker(RedParams{400_KB, 100_KB, 0.2}), ConfigError);
    CHECK_THROWS_AS(RedMarker(RedParams{100_KB, 400_KB, 1.5}), ConfigError);
}
