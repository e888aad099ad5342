// DCQCN with the SIGCOMM'15 parameters (DcqcnParams::paper()): hand-computed sequences.
// Rules and rounding: src/congestion/dcqcn.hpp; sources: docs/models/dcqcn.md.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "congestion/dcqcn.hpp"
#include "core/errors.hpp"
#include "dcqcn_driver.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::congestion;
using namespace fabricsim::congestion::testing;

namespace {
constexpr double g = 1.0 / 256.0;
std::int64_t bps(const Bandwidth b) { return b.bits_per_second(); }
}  // namespace

TEST_CASE("paper preset holds the SIGCOMM 2015 values", "[dcqcn][paper]") {
    const DcqcnParams p = DcqcnParams::paper();
    CHECK(p.reaction == DcqcnReaction::per_cnp);
    CHECK(p.g == 1.0 / 256.0);
    CHECK(p.alpha_update_interval == 55_us);
    CHECK(p.rate_increase_timer == 55_us);
    CHECK(p.byte_counter == 10_MB);
    CHECK(p.fast_recovery_steps == 5);
    CHECK(p.rate_ai == 40_Mbps);
    CHECK(p.rate_hai == 400_Mbps);
    CHECK(p.cnp_interval == 50_us);
    CHECK(p.clamp_target_rate);
}

TEST_CASE("paper: before any CNP the rate is the line rate and no timer runs", "[dcqcn][paper]") {
    Dcqcn cc(DcqcnParams::paper(), 100_Gbps);
    CHECK(cc.rate() == 100_Gbps);
    CHECK(cc.next_timer() == Time::max());
    cc.on_sent(1_us, 50_MB);  // the byte counter runs only after the first CNP
    cc.on_ack(2_us, 4_KiB);
    CHECK(cc.rate() == 100_Gbps);
    CHECK(cc.byte_stage() == 0);
}

TEST_CASE("paper: the first CNP sets alpha to 1 and cuts 100 Gb/s to 50 Gb/s with the target at 100 Gb/s",
          "[dcqcn][paper]") {
    Dcqcn cc(DcqcnParams::paper(), 100_Gbps);
    cc.on_cnp(0_us);
    CHECK(cc.alpha_fixed() == Dcqcn::alpha_one);  // alpha = 1, and (1-g)*1 + g = 1
    CHECK(bps(cc.rate()) == 50'000'000'000);
    CHECK(bps(cc.target_rate()) == 100'000'000'000);
    CHECK(cc.next_timer() == 55_us);  // alpha period and increase timer, both 55 us
}

TEST_CASE("paper: alpha decays as (1-g)^k over k quiet 55 us periods", "[dcqcn][paper]") {
    Dcqcn cc(DcqcnParams::paper(), 100_Gbps);
    cc.on_cnp(0_us);
    // 2^32 (255/256)^k is an integer for k <= 4: exact there.
    std::uint64_t exact = Dcqcn::alpha_one;
    for (int k = 1; k <= 4; ++k) {
        run_timers_until(cc, Time::us(55 * k));
        exact = exact / 256 * 255;
        CHECK(cc.alpha_fixed() == exact);
    }
    for (int k : {10, 100, 1000}) {
        run_timers_until(cc, Time::us(55 * k));
        CHECK(cc.alpha() == Approx(std::pow(1.0 - g, k)).margin(1e-9 * k));
    }
}

TEST_CASE("paper: a CNP every 50 us keeps alpha at 1 and halves the rate down to the 100 Mb/s floor",
          "[dcqcn][paper]") {
    Dcqcn cc(DcqcnParams::paper(), 100_Gbps);
    std::int64_t expected = 100'000'000'000;
    for (int k = 1; k <= 12; ++k) {
        cnp_at(cc, Time::us(50 * (k - 1)));
        expected = std::max<std::int64_t>(expected / 2, 100'000'000);
        CHECK(cc.alpha_fixed() == Dcqcn::alpha_one);
        CHECK(bps(cc.rate()) == expected);
    }
    // 100G / 2^10 = 97.66 Mb/s is below the floor: from the 10th CNP on, 100 Mb/s.
    CHECK(bps(cc.rate()) == 100'000'000);
}

TEST_CASE("paper: five fast-recovery steps halve the gap to the target then additive increase", "[dcqcn][paper]") {
    Dcqcn cc(DcqcnParams::paper(), 100_Gbps);
    cc.on_cnp(0_us);  // R_C 50G, R_T 100G
    cc.on_cnp(1_us);  // alpha still 1: R_T 50G, R_C 25G; timers restart at 1 us
    REQUIRE(bps(cc.rate()) == 25'000'000'000);
    REQUIRE(bps(cc.target_rate()) == 50'000'000'000);
    std::int64_t gap = 25'000'000'000;
    for (int step = 1; step <= 5; ++step) {
        run_timers_until(cc, Time::us(1 + 55 * step));
        gap /= 2;
        CHECK(bps(cc.target_rate()) == 50'000'000'000);
        CHECK(bps(cc.rate()) == 50'000'000'000 - gap);
    }
    CHECK(bps(cc.rate()) == 49'218'750'000);
    // 6th timer event: T = 5 = F, BC = 0 -> additive: R_T += 40 Mb/s, then average.
    run_timers_until(cc, Time::us(1 + 55 * 6));
    CHECK(bps(cc.target_rate()) == 50'040'000'000);
    CHECK(bps(cc.rate()) == 49'629'375'000);
    // Without byte-counter events BC stays 0 < F: the timer alone never reaches hyper increase.
    run_timers_until(cc, Time::us(1 + 55 * 7));
    CHECK(bps(cc.target_rate()) == 50'080'000'000);
}

TEST_CASE("paper: every 10 MB sent after a cut is an increase event", "[dcqcn][paper]") {
    Dcqcn cc(DcqcnParams::paper(), 100_Gbps);
    cc.on_cnp(0_us);  // R_C 50G, R_T 100G
    cc.on_sent(1_us, Bytes{10'000'000 - 1});
    CHECK(bps(cc.rate()) == 50'000'000'000);
    CHECK(cc.byte_stage() == 0);
    cc.on_sent(2_us, 1_B);
    CHECK(bps(cc.rate()) == 75'000'000'000);  // fast recovery
    CHECK(cc.byte_stage() == 1);
    // A cut restarts the byte counter: 9.999999 MB more is not an event.
    cc.on_cnp(3_us);
    cc.on_sent(4_us, Bytes{10'000'000 - 1});
    CHECK(cc.byte_stage() == 0);
}

TEST_CASE("paper: hyper increase needs both the timer and the byte counter past F", "[dcqcn][paper]") {
    Dcqcn cc(DcqcnParams::paper(), 100_Gbps);
    cc.on_cnp(0_us);
    cc.on_cnp(1_us);  // R_T 50G, R_C 25G
    // Six byte-counter events at once: BC 0..4 fast recovery, BC 5 = F additive.
    cc.on_sent(2_us, 60_MB);
    CHECK(cc.byte_stage() == 6);
    CHECK(bps(cc.target_rate()) == 50'040'000'000);
    CHECK(bps(cc.rate()) == 49'629'375'000);
    // Timer events T = 0..5 with BC = 6: max >= F, min <= F -> additive, 40 Mb/s each.
    for (int t = 0; t <= 5; ++t) {
        run_timers_until(cc, Time::us(1 + 55 * (t + 1)));
        CHECK(bps(cc.target_rate()) == 50'040'000'000 + 40'000'000 * (t + 1));
    }
    // T = 6 > F and BC = 6 > F: hyper increase, 400 Mb/s.
    run_timers_until(cc, Time::us(1 + 55 * 7));
    CHECK(bps(cc.target_rate()) == 50'280'000'000 + 400'000'000);
    CHECK(cc.rate() <= cc.target_rate());
}

TEST_CASE("paper closed loop: CNPs at 0 50 and 100 us then silence follow the hand-derived trajectory",
          "[dcqcn][paper][closed-loop]") {
    // Hand derivation (R in Gb/s): each CNP cuts with alpha = 1 (no quiet 55 us between
    // them): 100 -> 50 -> 25 -> 12.5, R_T = the rate before the cut. Timers restart at 100 us;
    // increase events every 55 us: five fast-recovery steps towards R_T = 25, then additive
    // steps of 0.04 (the byte counter never fires: nothing is sent).
    struct Row {
        std::int64_t t_us;
        std::int64_t rate_bps;
        std::int64_t target_bps;
    };
    const Row table[] = {
        {0, 50'000'000'000, 100'000'000'000},  {50, 25'000'000'000, 50'000'000'000},
        {100, 12'500'000'000, 25'000'000'000}, {154, 12'500'000'000, 25'000'000'000},
        {155, 18'750'000'000, 25'000'000'000}, {210, 21'875'000'000, 25'000'000'000},
        {265, 23'437'500'000, 25'000'000'000}, {320, 24'218'750'000, 25'000'000'000},
        {375, 24'609'375'000, 25'000'000'000}, {430, 24'824'687'500, 25'040'000'000},
        {485, 24'952'343'750, 25'080'000'000},
    };
    Dcqcn cc(DcqcnParams::paper(), 100_Gbps);
    for (const Row& row : table) {
        const Time t = Time::us(row.t_us);
        if (row.t_us == 0 || row.t_us == 50 || row.t_us == 100)
            cnp_at(cc, t);
        else
            run_timers_until(cc, t);
        INFO("t = " << row.t_us << " us");
        CHECK(bps(cc.rate()) == row.rate_bps);
        CHECK(bps(cc.target_rate()) == row.target_bps);
    }
    // alpha: 1 through the last CNP, then (1-g)^k after k quiet periods: 7 by 485 us.
    CHECK(cc.alpha() == Approx(std::pow(1.0 - g, 7)).margin(1e-8));
}

TEST_CASE("paper: parameters the model cannot run are configuration errors", "[dcqcn][paper]") {
    DcqcnParams p = DcqcnParams::paper();
    p.g = 0.0;
    CHECK_THROWS_AS(Dcqcn(p, 100_Gbps), ConfigError);
    p = DcqcnParams::paper();
    p.rate_increase_timer = Time::zero();
    CHECK_THROWS_AS(Dcqcn(p, 100_Gbps), ConfigError);
    CHECK_THROWS_AS(Dcqcn(DcqcnParams::paper(), 50_Mbps), ConfigError);  // below min_rate
}
