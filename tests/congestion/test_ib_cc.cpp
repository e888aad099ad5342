// InfiniBand congestion control (src/congestion/ib_cc.hpp): the CCTI walk on BECNs and timer
// ticks, the rate of a table entry, the default table and the switch's FECN marking. Every
// expected number is worked out by hand from the rules in the header (IBA Annex A10 as the
// hfi1 driver and the OPA fabric manager run it; docs/models/infiniband.md).
#include <catch2/catch.hpp>

#include <vector>

#include "congestion/ib_cc.hpp"
#include "core/errors.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::congestion;

namespace {

// CCT[i] = (0, i): IPD = i packet times, rate = line / (1 + i).
IbCcParams small_table(int increase, int limit, int min, Time timer) {
    IbCcParams p;
    p.ccti_increase = increase;
    p.ccti_limit = limit;
    p.ccti_min = min;
    p.ccti_timer = timer;
    p.table.clear();
    for (int i = 0; i <= limit; ++i) p.table.push_back(CctEntry{0, i});
    return p;
}

}  // namespace

TEST_CASE("ib cc: a table entry is an inter-packet delay of multiplier / 2^shift packet times", "[ibcc]") {
    // rate = line * 2^s / (2^s + m), rounded down.
    CHECK(CctEntry{0, 0}.rate(400_Gbps) == 400_Gbps);
    CHECK(CctEntry{0, 1}.rate(400_Gbps) == 200_Gbps);
    CHECK(CctEntry{2, 1}.rate(400_Gbps) == 320_Gbps);                         // IPD 1/4: 400 * 4/5
    CHECK(CctEntry{3, 6}.rate(400_Gbps) == Bandwidth::bps(228'571'428'571));  // 400e9 * 8/14
    CHECK(CctEntry{0, 2}.rate(100_Gbps) == Bandwidth::bps(33'333'333'333));
    CHECK(CctEntry{0, 16383}.rate(400_Gbps) == Bandwidth::bps(24'414'062));  // 400e9 / 16384
    // The delay itself: T_pkt * m >> s (the OPA spec's IPG), 82.44 ns packets.
    CHECK(CctEntry{3, 6}.delay(82'440_ps) == 61'830_ps);
    CHECK(CctEntry{3, 776}.delay(82'440_ps) == 7'996'680_ps);
    CHECK(CctEntry{0, 0}.delay(82'440_ps) == Time::zero());
    // Sending a packet then waiting the delay gives the rate: 82.44 ns per (82.44 + 61.83) ns.
    CHECK(static_cast<double>(CctEntry{3, 6}.rate(400_Gbps).bits_per_second()) ==
          Approx(400e9 * 82'440.0 / (82'440.0 + 61'830.0)));
}

TEST_CASE("ib cc: k BECNs raise CCTI by k times CCTI_Increase up to CCTI_Limit", "[ibcc]") {
    IbCongestionControl cc(small_table(2, 7, 1, 10_us), 100_Gbps);
    // A QP starts at CCTI_Min: entry (0, 1), half the line, and needs no timer.
    CHECK(cc.ccti() == 1);
    CHECK(cc.rate() == 50_Gbps);
    CHECK(cc.next_timer() == Time::max());

    cc.on_cnp(0_us);
    CHECK(cc.ccti() == 3);
    CHECK(cc.rate() == 25_Gbps);
    CHECK(cc.next_timer() == 10_us);  // the first BECN starts the timer
    cc.on_cnp(4_us);
    CHECK(cc.ccti() == 5);
    CHECK(cc.rate() == Bandwidth::bps(16'666'666'666));
    CHECK(cc.next_timer() == 10_us);  // a running timer is not restarted
    cc.on_cnp(6_us);
    CHECK(cc.ccti() == 7);
    CHECK(cc.rate() == 12'500_Mbps);
    cc.on_cnp(8_us);
    CHECK(cc.ccti() == 7);  // capped at CCTI_Limit
    CHECK(cc.rate() == 12'500_Mbps);
}

TEST_CASE("ib cc: the CCTI_Timer lowers CCTI by one per tick and stops at CCTI_Min", "[ibcc]") {
    IbCongestionControl cc(small_table(2, 7, 1, 10_us), 100_Gbps);
    for (Time t : {0_us, 4_us, 6_us}) cc.on_cnp(t);  // CCTI 7, timer due at 10 us
    REQUIRE(cc.ccti() == 7);

    cc.on_timer(10_us);
    CHECK(cc.ccti() == 6);
    CHECK(cc.next_timer() == 20_us);
    // A late call applies every tick due: 20, 30 and 40 us.
    cc.on_timer(45_us);
    CHECK(cc.ccti() == 3);
    CHECK(cc.rate() == 25_Gbps);
    CHECK(cc.next_timer() == 50_us);
    // Any input applies the ticks first: 50 us (2) and 60 us (1 = min, the timer stops).
    cc.on_ack(75_us, 4096_B);
    CHECK(cc.ccti() == 1);
    CHECK(cc.rate() == 50_Gbps);
    CHECK(cc.next_timer() == Time::max());
    cc.on_sent(1_ms, 4096_B);
    CHECK(cc.ccti() == 1);  // never below CCTI_Min

    // The next BECN starts a fresh timer from its own time.
    cc.on_cnp(2_ms);
    CHECK(cc.ccti() == 3);
    CHECK(cc.next_timer() == 2_ms + 10_us);
}

TEST_CASE("ib cc: a BECN at a tick sees the tick applied first", "[ibcc]") {
    IbCongestionControl cc(small_table(2, 7, 1, 10_us), 100_Gbps);
    cc.on_cnp(0_us);  // CCTI 3, tick at 10 us
    cc.on_cnp(10_us);
    // Tick: 3 -> 2 (still above the minimum: next tick at 20 us); then the BECN: 2 -> 4.
    CHECK(cc.ccti() == 4);
    CHECK(cc.next_timer() == 20_us);
}

TEST_CASE("ib cc: a late coalesced on_timer gives the state of punctual calls", "[ibcc]") {
    IbCongestionControl punctual(small_table(3, 7, 0, 5_us), 100_Gbps);
    IbCongestionControl late(small_table(3, 7, 0, 5_us), 100_Gbps);
    for (IbCongestionControl* cc : {&punctual, &late}) {
        cc->on_cnp(0_us);
        cc->on_cnp(1_us);  // CCTI 6, ticks every 5 us from 5 us
    }
    while (punctual.next_timer() <= 17_us) punctual.on_timer(punctual.next_timer());
    late.on_timer(17_us);
    CHECK(punctual.ccti() == 3);  // ticks at 5, 10 and 15 us
    CHECK(late.ccti() == punctual.ccti());
    CHECK(late.next_timer() == punctual.next_timer());
    CHECK(late.next_timer() == 20_us);
    CHECK(late.rate() == 25_Gbps);
}

TEST_CASE("ib cc: CCTI_Increase of 1 takes k BECNs to index k", "[ibcc]") {
    IbCcParams params = IbCcParams::defaults(400_Gbps, 4096_B);
    params.ccti_increase = 1;
    IbCongestionControl cc(params, 400_Gbps);
    CHECK(cc.ccti() == 0);
    CHECK(cc.rate() == 400_Gbps);
    for (int k = 1; k <= 5; ++k) cc.on_cnp(Time::ns(100 * k));
    CHECK(cc.ccti() == 5);
    CHECK(cc.rate() == CctEntry{3, 30}.rate(400_Gbps));  // 400e9 * 8 / 38
    CHECK(cc.rate() == Bandwidth::bps(84'210'526'315));
    CHECK(cc.next_timer() == 100_ns + 10'240_ns);  // CCTI_Timer 10 x 1.024 us from the first BECN
    for (int k = 0; k < 200; ++k) cc.on_cnp(1_us);
    CHECK(cc.ccti() == 127);
    CHECK(cc.rate() == Bandwidth::bps(4'081'632'653));  // entry (3, 776): 400e9 * 8 / 784
}

TEST_CASE("ib cc: the default table rises linearly to 8us for 4KiB packets at 400Gbps", "[ibcc]") {
    // T_pkt = (4096 + 26) B at 400 Gb/s = 82.44 ns; top multiplier floor(8 us * 8 / T_pkt) = 776
    // fits 14 bits with shift 3; entry i = (3, floor(i * 776 / 127)).
    CHECK(cct_packet_time(400_Gbps, 4096_B) == 82'440_ps);
    const IbCcParams p = IbCcParams::defaults(400_Gbps, 4096_B);
    CHECK(p.ccti_increase == 1);  // the Mellanox CC manager's; limit, timer, table: the OPA FM's
    CHECK(p.ccti_limit == 127);
    CHECK(p.ccti_min == 0);
    CHECK(p.ccti_timer == 10'240_ns);
    REQUIRE(p.table.size() == 128);
    CHECK(p.table[0] == CctEntry{0, 0});
    CHECK(p.table[1] == CctEntry{3, 6});
    CHECK(p.table[5] == CctEntry{3, 30});
    CHECK(p.table[64] == CctEntry{3, 391});
    CHECK(p.table[127] == CctEntry{3, 776});
    CHECK(p.table[127].delay(82'440_ps) <= 8_us);
    CHECK(p.table[127].delay(82'440_ps) > 8_us - 82'440_ps / 8);
    CHECK_NOTHROW(p.validate());
}

TEST_CASE("ib cc: the linear table gives up shift bits when the multiplier would not fit", "[ibcc]") {
    // 8 us over 1 ns packets: 64000 at shift 3 and 32000 at shift 2 overflow; 16000 at shift 1 fits.
    const auto t = IbCcParams::linear_table(8_us, 1_ns, 4);
    REQUIRE(t.size() == 5);
    CHECK(t[0] == CctEntry{0, 0});
    CHECK(t[1] == CctEntry{1, 4000});
    CHECK(t[4] == CctEntry{1, 16000});
    CHECK(t[4].delay(1_ns) == 8_us);
    // 8 us over 100 ps packets needs 80000 even at shift 0: the largest multiplier instead.
    const auto sat = IbCcParams::linear_table(8_us, 100_ps, 1);
    CHECK(sat[1] == CctEntry{0, 16383});
    // A limit of 0 is a one-entry table at line rate.
    CHECK(IbCcParams::linear_table(8_us, 1_ns, 0) == std::vector<CctEntry>{CctEntry{0, 0}});
}

TEST_CASE("ib cc: parameters the model cannot run are refused", "[ibcc]") {
    IbCcParams p = small_table(1, 7, 0, 10_us);
    CHECK_NOTHROW(p.validate());
    IbCcParams beyond = p;
    beyond.ccti_limit = 8;  // the table ends at 7
    CHECK_THROWS_AS(beyond.validate(), ConfigError);
    IbCcParams min_above = p;
    min_above.ccti_min = 8;
    CHECK_THROWS_AS(min_above.validate(), ConfigError);
    IbCcParams shift = p;
    shift.table[2] = CctEntry{4, 1};
    CHECK_THROWS_AS(shift.validate(), ConfigError);
    IbCcParams timer = p;
    timer.ccti_timer = Time::zero();
    CHECK_THROWS_AS(timer.validate(), ConfigError);
    timer.ccti_timer = IbCcParams::timer_unit * 65'535 + 1_ps;
    CHECK_THROWS_AS(timer.validate(), ConfigError);
    CHECK_THROWS_AS(IbCongestionControl(p, Bandwidth::zero()), ConfigError);
}

TEST_CASE("fecn: a port marks one in every marking_rate + 1 eligible packets", "[ibcc][fecn]") {
    const FecnMarker m(FecnMarkerParams{8_KiB, 2, 512_B});
    FecnMarkState s;
    std::vector<bool> marks;
    for (int i = 0; i < 7; ++i) marks.push_back(m.should_mark(9_KiB, 4096_B, s));
    CHECK(marks == std::vector<bool>{true, false, false, true, false, false, true});
}

TEST_CASE("fecn: only packets of at least packet_size on a queue above threshold are eligible", "[ibcc][fecn]") {
    const FecnMarker m(FecnMarkerParams{8_KiB, 0, 512_B});  // marking_rate 0: every eligible packet
    FecnMarkState s;
    CHECK_FALSE(m.should_mark(8_KiB, 4096_B, s));  // at the threshold: not above it
    CHECK(m.should_mark(8_KiB + 1_B, 4096_B, s));
    CHECK_FALSE(m.should_mark(1_MiB, 511_B, s));  // too small to mark
    CHECK(m.should_mark(1_MiB, 512_B, s));
    CHECK(m.should_mark(1_MiB, 512_B, s));

    // Ineligible packets do not count towards the marking rate.
    const FecnMarker every3(FecnMarkerParams{0_B, 2, 0_B});
    FecnMarkState t;
    CHECK(every3.should_mark(1_B, 64_B, t));
    CHECK_FALSE(every3.should_mark(0_B, 64_B, t));  // empty queue: not eligible, not counted
    CHECK_FALSE(every3.should_mark(1_B, 64_B, t));
    CHECK_FALSE(every3.should_mark(1_B, 64_B, t));
    CHECK(every3.should_mark(1_B, 64_B, t));
}

TEST_CASE("fecn: marking_rate 10 marks the 1st and 12th of 22 eligible packets and each port counts alone",
          "[ibcc][fecn]") {
    CHECK(FecnMarkerParams{}.marking_rate == 10);            // the default: the Mellanox CC manager's 0xa
    const FecnMarker m{FecnMarkerParams{8_KiB, 10, 512_B}};  // the Mellanox CC manager's rate
    CHECK(m.params().threshold == 8_KiB);
    CHECK(m.params().marking_rate == 10);
    CHECK(m.params().packet_size == 512_B);
    FecnMarkState port_a, port_b;
    std::vector<int> marked;
    for (int i = 0; i < 22; ++i)
        if (m.should_mark(64_KiB, 4096_B, port_a)) marked.push_back(i);
    CHECK(marked == std::vector<int>{0, 11});
    CHECK(m.should_mark(64_KiB, 4096_B, port_b));  // another port/VL starts fresh
    CHECK_THROWS_AS(FecnMarker(FecnMarkerParams{8_KiB, -1, 512_B}), ConfigError);
    CHECK_THROWS_AS(FecnMarker(FecnMarkerParams{8_KiB, 10, 16_KiB}), ConfigError);
}

TEST_CASE("fecn: a victim port/VL (it waited for credits) marks only with victim_mask", "[ibcc][fecn]") {
    // IBA A10 Victim_Mask: with the port's bit clear only a root of congestion marks.
    const FecnMarker roots_only(FecnMarkerParams{8_KiB, 0, 512_B});
    FecnMarkerParams p{8_KiB, 0, 512_B};
    p.victim_mask = true;
    const FecnMarker victims_too(p);
    FecnMarkState a, b;
    CHECK_FALSE(roots_only.should_mark(16_KiB, 4_KiB, a, true));
    CHECK(roots_only.should_mark(16_KiB, 4_KiB, a, false));
    CHECK(victims_too.should_mark(16_KiB, 4_KiB, b, true));
    CHECK_FALSE(victims_too.should_mark(4_KiB, 4_KiB, b, true));  // below the threshold still
}
