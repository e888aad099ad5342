// DCQCN periods as long as the input accepts (up to the largest Time, 2^63 - 1 ps, about 106
// days): an event a period would put past the end of simulated time never comes due. A cut
// at t once set the increase timer to t + T, which wrapped to a time in the past, and the
// timer loop ran for ever (dcqcn.hpp; the NIC saw a hang).
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "congestion/dcqcn.hpp"
#include "dcqcn_driver.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::congestion;
using namespace fabricsim::congestion::testing;

TEST_CASE("a rate_increase_timer of the largest Time never fires: the cut rate stays", "[dcqcn][limits]") {
    DcqcnParams p = DcqcnParams::nic(100_Gbps);
    p.rate_increase_timer = Time::max();
    Dcqcn cc(p, 100_Gbps);
    cnp_at(cc, 0_us);  // the first CNP: alpha = 1, alpha updates from 1 us, decrease checks from 4 us
    run_timers_until(cc, 10_us);
    // By the check at 4 us alpha has decayed four times (updates at 1, 2, 3, 4 us, no CNP in
    // them): a <- a - floor(a * g_q / 2^32), g_q = 2^32 / 256; then the cut keeps
    // (2^33 - a) / 2^33 of the line rate, rounded down.
    std::uint64_t a = Dcqcn::alpha_one;
    for (int k = 0; k < 4; ++k) a -= a >> 8;
    const auto cut = static_cast<std::int64_t>(static_cast<unsigned __int128>(100'000'000'000) *
                                               (2 * Dcqcn::alpha_one - a) / (2 * Dcqcn::alpha_one));
    CHECK(cc.rate() == Bandwidth::bps(cut));
    CHECK(cc.target_rate() == 100_Gbps);
    // No CNP since: later decrease checks cut nothing, and no increase ever comes.
    run_timers_until(cc, 1_ms);
    CHECK(cc.rate() == Bandwidth::bps(cut));
    CHECK(cc.timer_stage() == 0);
    CHECK(cc.next_timer() > 1_ms);
    CHECK(cc.next_timer() < Time::max());  // alpha still decays every microsecond
}

TEST_CASE("a rate_decrease_interval of the largest Time never cuts", "[dcqcn][limits]") {
    DcqcnParams p = DcqcnParams::nic(100_Gbps);
    p.rate_decrease_interval = Time::max();
    Dcqcn cc(p, 100_Gbps);
    cnp_at(cc, 0_us);
    cnp_at(cc, 500_ns);
    run_timers_until(cc, 1_ms);
    CHECK(cc.rate() == 100_Gbps);  // the first decrease check would be at 0 + 2^63 - 1 ps
    CHECK(cc.next_timer() > 1_ms);
}

TEST_CASE("the paper preset with the largest alpha and increase periods cuts once per CNP and then waits",
          "[dcqcn][limits]") {
    DcqcnParams p = DcqcnParams::paper();
    p.rate_increase_timer = Time::max();
    p.alpha_update_interval = Time::max();
    p.byte_counter = 0_B;
    Dcqcn cc(p, 40_Gbps);
    cnp_at(cc, 1_us);  // alpha = 1: R_C = 40G * (1 - 1/2)
    CHECK(cc.rate() == 20_Gbps);
    CHECK(cc.next_timer() == Time::max());  // every period lies past the end of time
    run_timers_until(cc, 1_s);
    CHECK(cc.rate() == 20_Gbps);
}

TEST_CASE("an additive step of the largest Bandwidth takes the target to the line rate, not past 64 bits",
          "[dcqcn][limits]") {
    // R_T + R_AI with R_AI = 2^63 - 1 bit/s wrapped negative: the rate fell to the 1 bit/s
    // pacing floor and the run crawled. Single counter, F = 1: the first increase after a cut
    // is fast recovery, the second additive (R_T = min(line, R_T + R_AI) = line).
    DcqcnParams p = DcqcnParams::nic(100_Gbps);
    p.rate_ai = Bandwidth::bps(std::numeric_limits<std::int64_t>::max());
    p.rate_hai = p.rate_ai;
    Dcqcn cc(p, 100_Gbps);
    cnp_at(cc, 0_us);
    run_timers_until(cc, 4_us);  // the cut
    const Bandwidth cut = cc.rate();
    REQUIRE(cut < 100_Gbps);
    run_timers_until(cc, 4_us + 2 * p.rate_increase_timer);  // fast recovery, then additive
    CHECK(cc.target_rate() == 100_Gbps);
    CHECK(cc.rate() > cut);
    CHECK(cc.rate() <= 100_Gbps);
}
