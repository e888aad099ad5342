// InfiniBand on the packet model (docs/models/infiniband.md): credits per VL, VL
// arbitration, FECN/BECN and IB CC, against closed forms and the RoCE behaviour they mirror.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using fabricsim::fabric::DirectedLink;

using namespace packet_test;

namespace {

// `n` plain hosts on one InfiniBand switch (200 ns port to port), 10 m cables, NDR 400G.
scenario::ClusterSpec ib_hosts(int n, Bandwidth rate = 400_Gbps) {
    scenario::ClusterSpec c = hosts(n, rate);
    c.fabric.technology = scenario::Technology::infiniband;
    c.fabric.switch_spec.technology = scenario::Technology::infiniband;
    c.fabric.switch_spec.latency = 200_ns;
    return c;
}

// No congestion control: credits alone.
scenario::ClusterSpec without_cc(scenario::ClusterSpec c) {
    c.infiniband.congestion_control.enabled = false;
    return c;
}

Bandwidth payload(const Model& m, DirectedLink d) { return m.topology.link(d.link).payload_bandwidth(); }

}  // namespace

TEST_CASE("InfiniBand idle path is exact and a long message runs at the NDR payload rate", "[packet][infiniband]") {
    const scenario::ClusterSpec c = ib_hosts(2);
    for (const Bytes size : {1000_B, 64_MiB + 100_B}) {
        Model m(c, pfc_only());
        const Message one = msg(0, 0, 1, size);
        const Time at = run_alone(m, one);
        CHECK(at == m.network.unloaded_time(one));
        CHECK(m.network.counters().credit_stall_time == Time::zero());  // auto buffers cover the round trip
        if (size > 1_MiB) {
            // 400 Gb/s x 4096 / (4096 + 26): the payload rate of 4 KiB packets with their IB headers.
            const DirectedLink wire = m.uplink(0);
            CHECK(payload(m, wire).bits_per_second() == 400'000'000'000LL * 4096 / 4122);
            CHECK(at.seconds() == Approx(transmit_time(size, payload(m, wire)).seconds()).epsilon(0.01));
        }
    }
}

TEST_CASE("a VL buffer smaller than the round trip limits a flow to buffer over round trip", "[packet][infiniband]") {
    // 2 km cables: 10 us each way. A 64 KiB VL buffer holds far less than 400G x 20 us.
    scenario::ClusterSpec c = without_cc(ib_hosts(2));
    c.fabric.cable_length = Length::m(2000);
    c.infiniband.vl_buffer = 64_KiB;
    Model m(c, pfc_only());
    Simulator sim(1);
    Sink sink;
    const Bytes size = 16_MiB;
    m.network.send(sim, msg(0, 0, 1, size), sink);
    sim.run();
    REQUIRE(sink.at.size() == 1);
    // The NIC -> switch link returns a packet's credits when the switch forwards it: one
    // packet time, the cable, the switch's latency, and the cable back. 64 KiB of blocks
    // (a 4 KiB packet takes 65 blocks of 64 B with its headers) per such round trip.
    const DirectedLink up = m.uplink(0);
    const fabric::Link& link = m.topology.link(up.link);
    const Time rtt = transmit_time(4_KiB, payload(m, up)) + link.propagation * 2 + 200_ns;
    const std::int64_t packets_per_window = 64 * 1024 / 64 / 65;  // 15 whole packets (integer division meant)
    const double expected = static_cast<double>(packets_per_window * 4096) / rtt.seconds();  // bytes/s
    const double achieved = static_cast<double>(size.count()) / sink.at[0].seconds();
    CHECK(achieved == Approx(expected).epsilon(0.02));
    CHECK(m.network.counters().credit_stall_time > Time::zero());
}

TEST_CASE("InfiniBand 32-to-1 incast loses nothing and shares the port fairly", "[packet][infiniband]") {
    Model m(without_cc(ib_hosts(33)), pfc_only());
    Simulator sim(1);
    Sink sink;
    const Bytes size = 1_MiB;
    for (std::uint32_t s = 1; s <= 32; ++s) m.network.send(sim, msg(s - 1, s, 0, size), sink);
    sim.run();
    REQUIRE(sink.at.size() == 32);
    const auto c = m.network.counters();
    CHECK(c.drops == 0);
    CHECK(c.lossless_drops == 0);
    // Every sender finishes with the port: 32 S / B, each within 2 %.
    const DirectedLink down = m.routing.path(RankId{1}, RankId{0})[2];
    const double all = transmit_time(size * 32, payload(m, down)).seconds();
    for (Time t : sink.at) CHECK(t.seconds() == Approx(all).epsilon(0.02));
    // The senders waited for credits at their uplinks.
    CHECK(c.credit_stall_time > Time::zero());
    m.network.check_invariants(sim.now());
}

namespace {

// 16 hosts send 4 MiB each to host 0; host 1 also sends 16 MiB to host 17, sharing only host
// 1's uplink with the incast. The victim's slowdown against the idle network.
double ib_victim_slowdown(bool cc, int marking_rate = 0, int timer_units = 10, int increase = 5) {
    scenario::ClusterSpec c = ib_hosts(18, 100_Gbps);
    c.infiniband.congestion_control.enabled = cc;
    c.infiniband.congestion_control.marking_rate = marking_rate;
    c.infiniband.congestion_control.ccti_timer = Time::ps(1'024'000) * timer_units;
    c.infiniband.congestion_control.ccti_increase = increase;
    Model m(c, pfc_only());
    Simulator sim(1);
    Sink sink;
    const Message victim = msg(16, 1, 17, 16_MiB, 1);
    m.network.send(sim, victim, sink);
    for (std::uint32_t s = 1; s <= 16; ++s) m.network.send(sim, msg(s - 1, s, 0, 4_MiB), sink);
    sim.run();
    REQUIRE(sink.at.size() == 17);
    CHECK(m.network.counters().drops == 0);
    if (cc) CHECK(m.network.counters().becns > 0);
    return sink.at[16].seconds() / m.network.unloaded_time(victim).seconds();
}

}  // namespace

TEST_CASE("a congestion tree slows a victim through credits and IB CC frees it", "[packet][infiniband][ibcc]") {
    const double credits_only = ib_victim_slowdown(false);
    const double with_cc = ib_victim_slowdown(true);  // the Intel OPA FM set: marking_rate 0, CCTI_Increase 5
    // The defaults, the Mellanox CC manager's marking_rate 10 and CCTI_Increase 1 with the same
    // timer: one BECN per 11 eligible packets does not outpace the 10.24 us decrease.
    const double sparse = ib_victim_slowdown(true, 10, 10, 1);
    INFO("victim slowdown: credits alone " << credits_only << ", IB CC " << with_cc << ", sparse marking " << sparse);
    // Without CC host 1's uplink credits are held by incast packets waiting at the switch for
    // host 0's port, which drains them at 1/16 of its rate: the victim crawls with them.
    CHECK(credits_only > 2.0);
    // With IB CC each incast QP is held near its share of host 0's port, B/16, so host 1's
    // uplink has about 15B/16 left for the victim: slowdown about 16/15 (a QP that CC holds
    // below its share leaves the victim a little more; nothing runs faster than alone, 1).
    // Bound: within 25 % of 16/15.
    CHECK(with_cc >= 1.0);
    CHECK(with_cc < 1.25 * 16.0 / 15.0);
    CHECK(sparse > 2.0);
}

namespace {

// Hosts 0..3 each send S to host 4 on VL 0; host 0 also sends S to host 5 on the SL of VL
// `victim_vl`. The victim's time over S/B. No CC marks (threshold out of reach), so NIC QPs
// run at line rate and read their data from memory when scheduled.
double victim_on_vl(std::uint8_t victim_sl) {
    scenario::ClusterSpec c = ib_hosts(6, 100_Gbps);
    c.infiniband.congestion_control.threshold = 1_GB;
    // Input buffers of a few packets, so the start (the incast's share of host 0's uplink until
    // its buffer at the switch fills) is negligible beside S: the steady state below.
    c.infiniband.vl_buffer = 32_KiB;
    Model m(c, pfc_only());
    const Bytes size = 4_MiB;
    const Time at = incast_with_victim(m, size, victim_sl);
    const DirectedLink down = m.routing.path(RankId{0}, RankId{5})[2];
    return at.seconds() / transmit_time(size, payload(m, down)).seconds();
}

}  // namespace

TEST_CASE("a congested VL does not hold another VL beyond its arbitration share", "[packet][infiniband]") {
    const double same = victim_on_vl(0);   // SL 0 -> VL 0, with the incast
    const double other = victim_on_vl(1);  // SL 1 -> VL 1
    INFO("victim time / (S/B): on the incast's VL " << same << ", on its own " << other);
    // On its own VL the victim takes what the incast leaves of host 0's uplink (the incast
    // gets B/4 at host 4): 4/3 S/B, within 5 %; VL arbitration (equal weights) would give it
    // at least half.
    CHECK(other == Approx(4.0 / 3.0).epsilon(0.05));
    CHECK(same > 2.0);
}

namespace {

// Hosts 1 and 2 each send `size` to host 0 at 400G, host 1 on SL 0 (VL 0, the low table) and
// host 2 on SL 1 (VL 1, the high table), with LimitOfHighPriority `high_limit`. Both VLs stay
// backlogged at the switch port to host 0 (each arrives at the port's rate). Returns the
// delivery times of the high- and the low-priority message over S/B (B: the payload rate).
std::pair<double, double> high_and_low(int high_limit) {
    scenario::ClusterSpec c = without_cc(ib_hosts(3));
    c.infiniband.vl_arbitration.high = {scenario::VlWeight{1, 4}};
    c.infiniband.vl_arbitration.low = {scenario::VlWeight{0, 4}};
    c.infiniband.vl_arbitration.high_limit = high_limit;
    Model m(c, pfc_only());
    Simulator sim(1);
    Sink sink;
    const Bytes size = 4_MiB;
    m.network.send(sim, msg(0, 1, 0, size, 0, 0), sink);  // SL 0: VL 0, low
    m.network.send(sim, msg(1, 2, 0, size, 0, 1), sink);  // SL 1: VL 1, high
    sim.run();
    REQUIRE(sink.at.size() == 2);
    const DirectedLink down = m.routing.path(RankId{1}, RankId{0})[2];
    const double unit = transmit_time(size, payload(m, down)).seconds();
    return {sink.at[1].seconds() / unit, sink.at[0].seconds() / unit};
}

}  // namespace

TEST_CASE("VL arbitration: LimitOfHighPriority lets n high-priority packets per low-priority one",
          "[packet][infiniband][vlarb]") {
    // IBA §7.6.9: a high-priority packet may start while fewer than high_limit x 4096 bytes of
    // high-priority packets have gone since the low table's last chance, and always when none
    // has (0: one packet). A 4 KiB packet counts 4096 + 26 = 4122 bytes, so the high table sends
    // n = max(1, ceil(high_limit x 4096 / 4122)) packets per low-priority packet and gets the
    // share h = n / (n + 1) of the port: the high message ends at S / (h B); the port never
    // idles, so the low one ends at 2 S / B.
    const auto check = [](int high_limit, int n) {
        const auto [high, low] = high_and_low(high_limit);
        INFO("high_limit " << high_limit << ": high " << high << ", low " << low << " x S/B");
        const double h = static_cast<double>(n) / (n + 1);
        CHECK(high == Approx(1.0 / h).epsilon(0.02));
        CHECK(low == Approx(2.0).epsilon(0.02));
    };
    check(0, 1);  // OpenSM's default: alternate, 1/2 each (it starved the high table before)
    check(1, 1);  // ceil(4096 / 4122) = 1
    check(4, 4);  // ceil(16384 / 4122) = 4: 4/5 to the high table
    // 255: no limit, the high message runs alone at the port's rate.
    const auto [high, low] = high_and_low(255);
    CHECK(high == Approx(1.0).epsilon(0.02));
    CHECK(low == Approx(2.0).epsilon(0.02));
}

namespace {

// Hosts 0 and 1 each send 4 MiB to host 2, whose NIC sits on PCIe Gen4 x16: the receiver's
// PCIe, not any fabric link, is the bottleneck. IB CC with its defaults, plus victim_mask.
struct PcieBoundRun {
    double time_over_bound = 0;  // the last delivery over 2 S / P (P: the PCIe payload rate)
    std::int64_t fecn_marks = 0;
};
PcieBoundRun pcie_bound_two_to_one(bool victim_mask) {
    scenario::ClusterSpec c = ib_hosts(3);
    c.server.nic.pcie_generation = 4;
    c.infiniband.congestion_control.victim_mask = victim_mask;
    Model m(c, pfc_only());
    Simulator sim(1);
    Sink sink;
    const Bytes size = 4_MiB;
    two_to_one(m, sim, sink, size);
    REQUIRE(sink.at.size() == 2);
    const auto path = m.routing.path(RankId{0}, RankId{2});
    const DirectedLink pcie = path.back();  // host 2's NIC -> its CPU
    REQUIRE(payload(m, pcie) < payload(m, path[2]));
    PcieBoundRun run;
    run.time_over_bound =
        std::max(sink.at[0], sink.at[1]).seconds() / transmit_time(size * 2, payload(m, pcie)).seconds();
    run.fecn_marks = m.network.counters().fecn_marks;
    return run;
}

}  // namespace

TEST_CASE("IB CC: a switch port that only waits for credits is a victim and does not mark",
          "[packet][infiniband][ibcc]") {
    // IBA Annex A10, SwitchCongestionSetting: a congested port/VL that cannot send for lack of
    // credits is a victim of congestion further on, not its root, and marks FECN only where
    // Victim_Mask has its bit (OpenSM's default mask: no port). The switch port to host 2 is
    // held by host 2's HCA, which drains into a slower PCIe link: a victim. So nothing is
    // marked, no source is slowed below its share, and the two messages end when host 2's
    // PCIe has carried both: 2 S / P (within 3 %: the pipeline's fill and drain).
    const PcieBoundRun victim = pcie_bound_two_to_one(false);
    INFO("default: " << victim.time_over_bound << " x 2S/P, " << victim.fecn_marks << " marks");
    CHECK(victim.fecn_marks == 0);
    CHECK(victim.time_over_bound == Approx(1.0).epsilon(0.03));
    // victim_mask on: the port marks while congested whatever the cause.
    const PcieBoundRun marks_all = pcie_bound_two_to_one(true);
    CHECK(marks_all.fecn_marks > 0);
}

TEST_CASE("an InfiniBand switch's input buffer per VL is its preset buffer over radix and VLs",
          "[packet][infiniband][buffer]") {
    // 32 MB (the Quantum-2 preset) over 64 ports and 2 VLs: 250000 B, down to 64-byte blocks:
    // 3906 blocks. A 4 KiB packet takes ceil(4122 / 64) = 65 blocks, so a sender's input buffer
    // at the switch holds floor(3906 / 65) = 60 packets. 32 senders into one port fill theirs
    // (each sends 1 MiB = 256 packets, at the rate the port drains them all), so the port's
    // queue peaks near 32 x 60 packets of 4096 + 26 wire bytes, and never above.
    scenario::ClusterSpec c = without_cc(ib_hosts(33));
    c.fabric.switch_spec.buffer = 32_MB;
    c.fabric.switch_spec.radix = 64;
    Model m(c, pfc_only());
    CHECK(fabric::ib_switch_share(m.topology.node(m.topology.target(m.uplink(0))), 2) == Bytes{3906 * 64});
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s = 1; s <= 32; ++s) m.network.send(sim, msg(s - 1, s, 0, 1_MiB), sink);
    sim.run();
    REQUIRE(sink.at.size() == 32);
    const DirectedLink down = m.routing.path(RankId{1}, RankId{0})[2];
    const double bound = 32.0 * 60 * (4096 + 26);
    const double peak = static_cast<double>(m.network.max_queued(down).count());
    INFO("peak queue " << peak << " B against " << bound);
    CHECK(peak <= bound);
    CHECK(peak >= 0.97 * bound);
    CHECK(m.network.ib_buffer_warnings().empty());
}

TEST_CASE("a switch buffer share under the credit round trip falls back to the round trip, with a warning",
          "[packet][infiniband][buffer]") {
    // 2 km cables: the credit round trip of a 400G link, 2 x 10 us of cable, carries about 1 MB,
    // more than 32 MB / 64 ports / 2 VLs = 250 kB. The round-trip floor keeps one flow at the
    // line's payload rate — it ends within 1 % of its unloaded time, the path's latency plus S
    // at that rate — and the switch is named.
    scenario::ClusterSpec c = without_cc(ib_hosts(2));
    c.fabric.cable_length = Length::m(2000);
    c.fabric.switch_spec.buffer = 32_MB;
    c.fabric.switch_spec.radix = 64;
    Model m(c, pfc_only());
    const auto warnings = m.network.ib_buffer_warnings();
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("using the round trip") != std::string::npos);
    const Message one = msg(0, 0, 1, 64_MiB);
    const Time at = run_alone(m, one);
    CHECK(at.seconds() == Approx(m.network.unloaded_time(one).seconds()).epsilon(0.01));
}
