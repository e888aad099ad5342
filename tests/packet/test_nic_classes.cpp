// The sending NIC arbitrates among traffic classes like a switch port (roce_nic.cpp with
// queue_scheduler.cpp; docs/models/packet.md, "Traffic classes"): two flows of different
// classes from one host share its uplink by DWRR weight, strict priority or VL arbitration,
// then QPs of a class share their class's turn.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using fabricsim::fabric::DirectedLink;

using namespace packet_test;

namespace {

// Host 0 sends S to host 1 on `a` (message 0) and S to host 2 on `b` (message 1) at time 0:
// the two flows share only host 0's NIC uplink, the bottleneck (its PCIe is faster), and each
// has a receiver of its own. Returns the delivery times over S / B, B the uplink payload rate.
// At 100G the host's PCIe Gen5 x16 (~460 Gb/s of payload) refills the NIC's QPs far faster
// than the uplink drains them; at 400G it is only 17 % faster, and the NIC pull window's
// refill now and then leaves a class empty for a moment (the other then goes alone).
std::pair<double, double> one_host_two_classes(Model& m, Bytes size, std::uint8_t a, std::uint8_t b) {
    const DirectedLink pcie = m.routing.path(RankId{0}, RankId{1})[0];
    const DirectedLink up = m.routing.path(RankId{0}, RankId{1})[1];
    const Bandwidth rate = m.topology.link(up.link).payload_bandwidth();
    REQUIRE(m.topology.link(pcie.link).payload_bandwidth() > rate);
    Simulator sim(1);
    Sink sink;
    m.network.send(sim, msg(0, 0, 1, size, 0, a), sink);
    m.network.send(sim, msg(1, 0, 2, size, 1, b), sink);
    sim.run();
    REQUIRE(sink.at.size() == 2);
    const double s_over_b = transmit_time(size, rate).seconds();
    return {sink.at[0].seconds() / s_over_b, sink.at[1].seconds() / s_over_b};
}

// RoCE, PFC on priorities 3 and 4, with or without DCQCN pacing the NIC's QPs; no ECN, so
// every QP keeps its line rate and only the NIC's scheduler shares the uplink.
scenario::RoceSpec two_lossless(bool dcqcn) {
    scenario::RoceSpec roce = pfc_only();
    roce.pfc.priorities = {3, 4};
    roce.dcqcn.enabled = dcqcn;
    return roce;
}

}  // namespace

// DWRR with weights 3 : 1 on a port of payload rate B, both classes backlogged: class 3 gets
// 3B/4 and class 4 B/4. Class 3's S is through at t1 = S / (3B/4) = 4/3 S/B; class 4 has then
// sent B/4 * t1 = S/3 and sends its last 2S/3 alone at B: t2 = 4/3 S/B + 2/3 S/B = 2 S/B.
TEST_CASE("a NIC shares its uplink between two priorities by DWRR weight: 4/3 S/B and 2 S/B",
          "[packet][classes][nic]") {
    const bool dcqcn = GENERATE(true, false);
    INFO("DCQCN " << dcqcn);
    scenario::RoceSpec roce = two_lossless(dcqcn);
    roce.queues.weights[3] = 3;  // priority 3 : priority 4 = 3 : 1
    Model m(hosts(3), roce);
    const auto [a, b] = one_host_two_classes(m, 8_MiB, 3, 4);
    CHECK(a == Approx(4.0 / 3.0).epsilon(0.02));
    CHECK(b == Approx(2.0).epsilon(0.02));
    CHECK(m.network.counters().lossless_drops == 0);
}

// Strict priority 5 against the data class 3: priority 5 takes the whole uplink while it has
// packets, so it ends at S/B (plus the idle path's few microseconds); priority 3 sends only
// after it, ending at 2 S/B.
TEST_CASE("a NIC serves a strict-priority class first: S/B and 2 S/B", "[packet][classes][nic]") {
    const bool dcqcn = GENERATE(true, false);
    INFO("DCQCN " << dcqcn);
    scenario::RoceSpec roce = two_lossless(dcqcn);
    roce.queues.strict = {5};
    Model m(hosts(3), roce);
    const auto [data, urgent] = one_host_two_classes(m, 8_MiB, 3, 5);
    CHECK(urgent == Approx(1.0).epsilon(0.02));
    CHECK(data == Approx(2.0).epsilon(0.02));
}

// InfiniBand, with or without IB CC pacing the HCA's QPs: SL 0 on VL 0 and SL 1 on VL 1, low table
// weights 192 and 64 (units of 64 bytes: 12288 and 4096). VL 0 sends packets while its
// 12288 bytes last: three of 4 KiB + headers (the third takes it below zero); VL 1 one. So
// 3 : 1 packet for packet, and the times are DWRR's: 4/3 S/B and 2 S/B.
TEST_CASE("an HCA shares its uplink between two VLs by VL arbitration weight: 4/3 S/B and 2 S/B",
          "[packet][classes][nic][infiniband]") {
    scenario::ClusterSpec c = hosts(3);  // 100G: the host's PCIe well above the uplink (see above)
    c.fabric.technology = scenario::Technology::infiniband;
    c.fabric.switch_spec.technology = scenario::Technology::infiniband;
    c.infiniband.congestion_control.enabled = GENERATE(true, false);
    INFO("IB CC " << c.infiniband.congestion_control.enabled);
    c.infiniband.vl_arbitration.low = {scenario::VlWeight{0, 192}, scenario::VlWeight{1, 64}};
    Model m(c, pfc_only());
    const auto [a, b] = one_host_two_classes(m, 8_MiB, 0, 1);
    CHECK(a == Approx(4.0 / 3.0).epsilon(0.02));
    CHECK(b == Approx(2.0).epsilon(0.02));
}
