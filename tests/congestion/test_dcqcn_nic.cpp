// DCQCN with the NIC-style parameters (DcqcnParams::nic()): hand-computed sequences.
// Rules and rounding: src/congestion/dcqcn.hpp; sources: docs/models/dcqcn.md.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "congestion/dcqcn.hpp"
#include "dcqcn_driver.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::congestion;
using namespace fabricsim::congestion::testing;

namespace {

constexpr double g = 1.0 / 256.0;
std::int64_t bps(const Bandwidth b) { return b.bits_per_second(); }

// The first CNP at 0, then one CNP inside every 1 us alpha period up to `last_us` - 0.5 us:
// every alpha update sees a CNP, so alpha stays exactly 1.
void congested_until(Dcqcn& cc, int last_us) {
    cnp_at(cc, 0_us);
    for (int k = 0; k < last_us; ++k) cnp_at(cc, Time::ns(1000 * k + 500));
}

}  // namespace

TEST_CASE("nic preset scales R_AI and R_HAI with the line rate as the HPCC ns-3 run.py does", "[dcqcn][nic]") {
    const DcqcnParams p = DcqcnParams::nic(100_Gbps);
    CHECK(p.reaction == DcqcnReaction::periodic);
    CHECK(p.g == 1.0 / 256.0);
    CHECK(p.alpha_update_interval == 1_us);
    CHECK(p.rate_decrease_interval == 4_us);
    CHECK(p.rate_increase_timer == 300_us);
    CHECK(p.byte_counter == 0_B);
    CHECK(p.fast_recovery_steps == 1);
    CHECK(p.min_rate == 1000_Mbps);
    CHECK_FALSE(p.clamp_target_rate);
    CHECK(p.cnp_interval == Time::zero());
    CHECK(p.rate_ai == 20_Mbps);
    CHECK(p.rate_hai == 200_Mbps);
    CHECK(DcqcnParams::nic(25_Gbps).rate_ai == 5_Mbps);
    CHECK(DcqcnParams::nic(25_Gbps).rate_hai == 50_Mbps);
    CHECK(DcqcnParams::nic(400_Gbps).rate_ai == 80_Mbps);
    CHECK(DcqcnParams::nic(400_Gbps).rate_hai == 800_Mbps);
}

TEST_CASE("nic: the first CNP sets alpha to 1 and the cut waits for the 4 us decrease check", "[dcqcn][nic]") {
    Dcqcn cc(DcqcnParams::nic(100_Gbps), 100_Gbps);
    cc.on_cnp(0_us);
    CHECK(cc.alpha_fixed() == Dcqcn::alpha_one);
    CHECK(cc.rate() == 100_Gbps);
    CHECK(cc.target_rate() == 100_Gbps);
    CHECK(cc.next_timer() == 1_us);  // alpha update
    for (int k = 0; k < 4; ++k) cnp_at(cc, Time::ns(1000 * k + 500));
    run_timers_until(cc, Time::ns(3999));
    CHECK(cc.rate() == 100_Gbps);
    run_timers_until(cc, 4_us);
    CHECK(cc.alpha_fixed() == Dcqcn::alpha_one);
    CHECK(bps(cc.rate()) == 50'000'000'000);
    CHECK(bps(cc.target_rate()) == 100'000'000'000);
    CHECK(cc.next_timer() == 5_us);  // next alpha update; the increase timer restarted for 304 us
}

TEST_CASE("nic: the first CNP alone counts for the cut but not for alpha", "[dcqcn][nic]") {
    Dcqcn cc(DcqcnParams::nic(100_Gbps), 100_Gbps);
    cc.on_cnp(0_us);
    run_timers_until(cc, 4_us);
    // Four alpha updates without a CNP flag: alpha = (1-g)^4 = 255^4 / 2^32 exactly, then the
    // 4 us check cuts with it: R_C = floor(100G * (1 - alpha/2)).
    CHECK(cc.alpha_fixed() == 4'228'250'625ULL);
    const double alpha = std::pow(1.0 - g, 4);
    CHECK(static_cast<double>(bps(cc.rate())) == Approx(1e11 * (1.0 - alpha / 2)).margin(1.0));
    CHECK(cc.target_rate() == 100_Gbps);
}

TEST_CASE("nic: clamp_target_rate decides the target of a second cut in a row", "[dcqcn][nic]") {
    // Cuts at 4 and 8 us with alpha = 1: 100 -> 50 -> 25 Gb/s.
    Dcqcn off(DcqcnParams::nic(100_Gbps), 100_Gbps);
    congested_until(off, 8);
    run_timers_until(off, 8_us);
    CHECK(bps(off.rate()) == 25'000'000'000);
    CHECK(bps(off.target_rate()) == 100'000'000'000);  // stage 0: the old target stays

    DcqcnParams clamp = DcqcnParams::nic(100_Gbps);
    clamp.clamp_target_rate = true;
    Dcqcn on(clamp, 100_Gbps);
    congested_until(on, 8);
    run_timers_until(on, 4_us);
    CHECK(bps(on.target_rate()) == 100'000'000'000);
    run_timers_until(on, 8_us);
    CHECK(bps(on.rate()) == 25'000'000'000);
    CHECK(bps(on.target_rate()) == 50'000'000'000);  // R_T = R_C before the cut
}

TEST_CASE("nic: cuts never take the rate below min_rate 1000 Mb/s", "[dcqcn][nic]") {
    // A CNP inside every alpha period keeps alpha at 1: each 4 us check halves the rate.
    Dcqcn cc(DcqcnParams::nic(100_Gbps), 100_Gbps);
    cnp_at(cc, 0_us);
    const std::int64_t expected[] = {50'000'000'000, 25'000'000'000, 12'500'000'000, 6'250'000'000,
                                     3'125'000'000,  1'562'500'000,  1'000'000'000};
    for (int k = 1; k <= 7; ++k) {
        for (int us = 4 * (k - 1); us < 4 * k; ++us) cnp_at(cc, Time::ns(1000 * us + 500));
        run_timers_until(cc, Time::us(4 * k));
        CHECK(bps(cc.rate()) == expected[k - 1]);
    }
    CHECK(cc.alpha_fixed() == Dcqcn::alpha_one);
}

TEST_CASE("nic: one fast-recovery step then one additive step then hyper increase", "[dcqcn][nic]") {
    Dcqcn cc(DcqcnParams::nic(100_Gbps), 100_Gbps);
    congested_until(cc, 4);
    run_timers_until(cc, 4_us);  // R_C 50G, R_T 100G, stage 0
    REQUIRE(bps(cc.rate()) == 50'000'000'000);
    run_timers_until(cc, 304_us);  // fast recovery
    CHECK(bps(cc.rate()) == 75'000'000'000);
    CHECK(cc.timer_stage() == 1);

    // A CNP at 305.5 us: the 308 us check cuts, stage 1 != 0 so R_T = R_C = 75G.
    cnp_at(cc, Time::ns(305'500));
    run_timers_until(cc, 308_us);
    // alpha by hand: 1 at 4 us, 301 quiet updates (5..305 us), one with the flag (306 us), two
    // quiet (307, 308 us).
    double alpha = std::pow(1.0 - g, 301);
    alpha = (1.0 - g) * alpha + g;
    alpha = std::pow(1.0 - g, 2) * alpha;
    CHECK(cc.alpha() == Approx(alpha).margin(1e-8));
    CHECK(bps(cc.target_rate()) == 75'000'000'000);
    CHECK(static_cast<double>(bps(cc.rate())) == Approx(75e9 * (1.0 - alpha / 2)).margin(10.0));

    // Increase timer restarted at 308 us: 608 fast recovery, 908 additive (+20 Mb/s), then
    // hyper (+200 Mb/s) every 300 us; each step sets R_C = ceil((R_C + R_T)/2).
    const std::int64_t targets[] = {75'000'000'000, 75'020'000'000, 75'220'000'000, 75'420'000'000};
    for (int i = 0; i < 4; ++i) {
        const std::int64_t before = bps(cc.rate());
        run_timers_until(cc, Time::us(608 + 300 * i));
        CHECK(bps(cc.target_rate()) == targets[i]);
        CHECK(bps(cc.rate()) == (before + targets[i] + 1) / 2);
    }
}

TEST_CASE("nic closed loop: 8 us of congestion then silence follows the hand-derived trajectory",
          "[dcqcn][nic][closed-loop]") {
    // Congestion until 8 us: cuts at 4 and 8 us with alpha = 1 (100 -> 50 -> 25 Gb/s) and the
    // target kept at 100 Gb/s (two cuts in a row, clamp off). Then the increase timer every
    // 300 us from 8 us; R_T stays at the line rate, so every step halves the gap, rounding up:
    // gap_k = floor(75e9 / 2^k) at 8 + 300k us, and the gap closes at k = 37 (2^37 > 75e9).
    Dcqcn cc(DcqcnParams::nic(100_Gbps), 100_Gbps);
    congested_until(cc, 4);
    run_timers_until(cc, 4_us);
    CHECK(bps(cc.rate()) == 50'000'000'000);
    for (int us = 4; us < 8; ++us) cnp_at(cc, Time::ns(1000 * us + 500));
    run_timers_until(cc, 8_us);
    CHECK(bps(cc.rate()) == 25'000'000'000);
    run_timers_until(cc, 307_us);
    CHECK(bps(cc.rate()) == 25'000'000'000);
    for (int k = 1; k <= 37; ++k) {
        run_timers_until(cc, Time::us(8 + 300 * k));
        INFO("k = " << k);
        CHECK(bps(cc.rate()) == 100'000'000'000 - (75'000'000'000 >> k));
        CHECK(cc.target_rate() == 100_Gbps);
    }
    CHECK(cc.rate() == 100_Gbps);

    // Back at line rate: once alpha stops moving (fixed point, about 4300 quiet updates) the
    // object asks for no more timers.
    run_timers_until(cc, 20_ms);
    CHECK(cc.idle());
    CHECK(cc.next_timer() == Time::max());
    CHECK(cc.alpha() < 1e-7);

    // A CNP wakes it on the original grids: alpha every 1 us and decrease checks every 4 us
    // from the first CNP at 0; the cut at 30004 us uses alpha ~ g(1-g)^3.
    cc.on_cnp(Time::ns(30'000'300));
    CHECK(cc.next_timer() == 30'001_us);
    run_timers_until(cc, Time::ns(30'003'999));
    CHECK(cc.rate() == 100_Gbps);
    run_timers_until(cc, 30'004_us);
    const double alpha = g * std::pow(1.0 - g, 3);
    CHECK(static_cast<double>(bps(cc.rate())) == Approx(1e11 * (1.0 - alpha / 2)).epsilon(1e-6));
    CHECK(cc.target_rate() == 100_Gbps);
}

TEST_CASE("nic: late and coalesced timer calls give the same state as punctual ones", "[dcqcn][nic]") {
    // B is only looked at every 50 us; its inputs arrive at the same times as A's.
    Dcqcn a(DcqcnParams::nic(100_Gbps), 100_Gbps);
    Dcqcn b(DcqcnParams::nic(100_Gbps), 100_Gbps);
    std::vector<Time> cnps;
    for (int k = 0; k < 40; ++k) cnps.push_back(Time::ns(k * 7'300 + (k % 3) * 1'000));
    for (int k = 0; k < 10; ++k) cnps.push_back(Time::us(700 + 2 * k));
    std::size_t next = 0;
    for (Time t = Time::zero(); t <= 3_ms; t += 50_us) {
        while (next < cnps.size() && cnps[next] <= t) {
            cnp_at(a, cnps[next]);
            b.on_cnp(cnps[next]);  // no timer call before: on_cnp catches up by itself
            ++next;
        }
        run_timers_until(a, t);
        b.on_timer(t);
        INFO("t = " << t.picoseconds() << " ps");
        CHECK(a.rate() == b.rate());
        CHECK(a.target_rate() == b.target_rate());
        CHECK(a.alpha_fixed() == b.alpha_fixed());
        CHECK(a.timer_stage() == b.timer_stage());
    }
}

TEST_CASE("NoCongestionControl sends at line rate and asks for no timer", "[congestion]") {
    NoCongestionControl cc(400_Gbps);
    cc.on_cnp(1_us);
    cc.on_sent(2_us, 1_MB);
    cc.on_ack(3_us, 1_MB);
    cc.on_timer(4_us);
    CHECK(cc.rate() == 400_Gbps);
    CHECK(cc.next_timer() == Time::max());
}
