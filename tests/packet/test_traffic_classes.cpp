// Traffic classes on Ethernet ports (docs/models/packet.md, "Traffic classes"): eight queues
// per port, strict priority then DWRR by weight, PFC per priority.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using fabricsim::fabric::DirectedLink;

using namespace packet_test;

namespace {

// PFC alone on the lossless priorities 3 and 4.
scenario::RoceSpec two_lossless() {
    scenario::RoceSpec roce = pfc_only();
    roce.pfc.priorities = {3, 4};
    return roce;
}

double bottleneck_seconds(const Model& m, Bytes size, std::uint32_t from, std::uint32_t to) {
    const DirectedLink down = m.routing.path(RankId{from}, RankId{to})[2];
    return transmit_time(size, m.topology.link(down.link).payload_bandwidth()).seconds();
}

}  // namespace

TEST_CASE("DWRR shares a switch port between two priorities in the ratio of their weights", "[packet][classes]") {
    scenario::ClusterSpec c = hosts(3);
    c.fabric.switch_spec.buffer = 4_MB;
    scenario::RoceSpec roce = two_lossless();
    roce.queues.weights[3] = 3;  // priority 3 : priority 4 = 3 : 1
    Model m(c, roce);
    Simulator sim(1);
    Sink sink;
    const Bytes size = 16_MiB;
    m.network.send(sim, msg(0, 0, 2, size, 0, 3), sink);
    m.network.send(sim, msg(1, 1, 2, size, 0, 4), sink);
    sim.run();
    REQUIRE(sink.at.size() == 2);
    CHECK(m.network.counters().lossless_drops == 0);
    const double s_over_b = bottleneck_seconds(m, size, 0, 2);
    // Priority 3 gets 3/4 of host 2's port until its S is through, at 4S/3B; priority 4 has
    // then sent S/3 and finishes the rest alone, at 2S/B. Each within 2 %.
    CHECK(sink.at[0].seconds() == Approx(s_over_b * 4 / 3).epsilon(0.02));
    CHECK(sink.at[1].seconds() == Approx(2 * s_over_b).epsilon(0.02));
    // Both senders were held by pauses on their own priority, and only there.
    CHECK(m.network.paused_time(m.uplink(0)) > Time::zero());
}

TEST_CASE("a strict-priority queue takes the whole port while it has packets", "[packet][classes]") {
    scenario::ClusterSpec c = hosts(3);
    c.fabric.switch_spec.buffer = 4_MB;
    scenario::RoceSpec roce = pfc_only();
    roce.queues.strict = {5};
    Model m(c, roce);
    Simulator sim(1);
    Sink sink;
    const Bytes size = 8_MiB;
    const Message urgent = msg(1, 1, 2, size, 0, 5);
    m.network.send(sim, msg(0, 0, 2, size), sink);  // the data class, priority 3
    m.network.send(sim, urgent, sink);
    sim.run();
    REQUIRE(sink.at.size() == 2);
    const auto counters = m.network.counters();
    CHECK(counters.drops == 0);
    // Priority 5 crosses as if alone (within 1 %); priority 3 waits behind it: 2S/B.
    CHECK(sink.at[1].seconds() == Approx(m.network.unloaded_time(urgent).seconds()).epsilon(0.01));
    CHECK(sink.at[0].seconds() == Approx(2 * bottleneck_seconds(m, size, 0, 2)).epsilon(0.02));
}

// Hosts 0..3 each send S to host 4 on priority 3 (an incast that PFC holds at their uplinks);
// host 0 also sends S to host 5 on `victim_priority`. Returns the victim's time over S/B.
double victim_time(std::uint8_t victim_priority) {
    scenario::ClusterSpec c = hosts(6);
    c.fabric.switch_spec.buffer = 4_MB;
    scenario::RoceSpec roce = two_lossless();
    // NIC queue pairs read their data from memory when scheduled (roce_nic.cpp), so one
    // priority's pause does not hold the other's data at the NIC; no ECN: line rate throughout.
    roce.dcqcn.enabled = true;
    Model m(c, roce);
    const Bytes size = 4_MiB;
    const Time at = incast_with_victim(m, size, victim_priority);
    CHECK(m.network.counters().lossless_drops == 0);
    return at.seconds() / bottleneck_seconds(m, size, 0, 5);
}

TEST_CASE("PFC pauses one priority and the port's other priorities go on", "[packet][classes][pfc]") {
    const double same = victim_time(3);
    const double other = victim_time(4);
    INFO("victim time / (S/B): on the incast's priority " << same << ", on its own " << other);
    // On its own priority the victim takes what the paused incast leaves of host 0's uplink,
    // 3/4 of it (the incast gets B/4 at host 4): 4/3 S/B, within 5 %.
    CHECK(other == Approx(4.0 / 3.0).epsilon(0.05));
    // On the incast's priority it is paused with it and crawls at the incast's pace.
    CHECK(same > 2.0);
}
