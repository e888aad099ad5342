// The route cache of a message across the fabric (docs/models/packet.md, "Routing"): it keeps
// what the routing chooses once per flow and leaves what it chooses per packet to each packet.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

#include <algorithm>

using namespace packet_test;

namespace {

// 8 plain hosts at 100G on a 2:1 leaf-spine of 6-port switches: hosts 0-3 under one leaf, 4-7
// under the other, each leaf with two uplinks to the one spine (fabric_plan.cpp: 6 ports
// split 4:2). Host 0 sends 256 KiB (64 packets of 4 KiB) to host 4: every data byte leaves
// host 0's leaf by one of its two uplinks. Returns the payload bytes each uplink carried.
std::vector<std::int64_t> uplink_bytes(scenario::RoutingKind routing) {
    scenario::ClusterSpec c = hosts(8);
    c.fabric.topology = scenario::TopologyKind::leaf_spine;
    c.fabric.switch_spec.radix = 6;
    c.fabric.oversubscription = scenario::Ratio{2, 1};
    c.fabric.routing = routing;
    fabric::PacketModelSpec spec = model_spec(c, pfc_only());
    spec.ooo_placement = routing == scenario::RoutingKind::spray;
    Model m(c, spec);
    Simulator sim(1);
    Sink sink;
    m.network.send(sim, msg(0, 0, 4, 256_KiB), sink);
    sim.run();
    REQUIRE(sink.at.size() == 1);
    REQUIRE(sink.at[0] != Time::max());
    const fabric::NodeId leaf = m.topology.target(m.uplink(0));
    std::vector<std::int64_t> out;
    const auto& ports = m.topology.node(leaf).ports;
    for (std::uint32_t p = 0; p < ports.size(); ++p)
        if (fabric::is_fabric_switch(m.topology.node(ports[p].peer).kind))
            out.push_back(m.network.bytes_sent(m.topology.egress(leaf, p)).count());
    return out;
}

}  // namespace

TEST_CASE("route cache: ECMP keeps a QP's every packet on the uplink its first took", "[packet][routing]") {
    const auto bytes = uplink_bytes(scenario::RoutingKind::ecmp);
    REQUIRE(bytes.size() == 2);
    // One flow hashes to one uplink: all 262 144 B there, none on the other.
    CHECK(std::max(bytes[0], bytes[1]) == 256 * 1024);
    CHECK(std::min(bytes[0], bytes[1]) == 0);
}

TEST_CASE("route cache: spraying still chooses per packet", "[packet][routing]") {
    const auto bytes = uplink_bytes(scenario::RoutingKind::spray);
    REQUIRE(bytes.size() == 2);
    // Both uplinks carry some of the 64 packets (a cached choice would put them all on one),
    // and together all 262 144 B.
    CHECK(bytes[0] > 0);
    CHECK(bytes[1] > 0);
    CHECK(bytes[0] + bytes[1] == 256 * 1024);
}

TEST_CASE("route cache: a packet carrying its next port meets the times of asking the routing at every hop",
          "[packet][routing]") {
    // Two HGX servers on a leaf-spine, RoCE with ECN, DCQCN and RC acknowledgements: GPU g of
    // each server sends 1 MiB to GPU g of the other (7 hops out, ACKs back the same way). A
    // network built on the Routing caches each message's route and sends every packet with the
    // port it will leave the next node by (PacketNetwork::egress_ahead); one built on a Router
    // asks the routing at every hop of every packet. The routing answers per flow and node, so
    // every delivery time and every link's bytes must be the same to the picosecond and byte.
    scenario::ClusterSpec c = hgx(2);
    c.fabric.topology = scenario::TopologyKind::leaf_spine;
    const fabric::PacketModelSpec spec = model_spec(c, scenario::RoceSpec{});
    const fabric::Topology topology = fabric::build_topology(c);
    const fabric::Routing routing(topology, c.fabric.routing, c.fabric.technology, 1);
    const fabric::RoutingRouter router(routing);
    fabric::PacketNetwork cached(topology, routing, spec);
    fabric::PacketNetwork asked(topology, static_cast<const fabric::Router&>(router), spec);
    auto run = [](fabric::PacketNetwork& network) {
        Simulator sim(1);
        Sink sink;
        for (std::uint32_t g = 0; g < 8; ++g) {
            network.send(sim, msg(2 * g, g, 8 + g, 1_MiB, g), sink);
            network.send(sim, msg(2 * g + 1, 8 + g, g, 1_MiB, g), sink);
        }
        sim.run();
        return sink.at;
    };
    const std::vector<Time> a = run(cached), b = run(asked);
    REQUIRE(a.size() == 16);
    CHECK(std::none_of(a.begin(), a.end(), [](Time t) { return t == Time::max(); }));
    CHECK(a == b);
    for (std::uint32_t i = 0; i < topology.directed_link_count(); ++i) {
        const auto d = fabric::DirectedLink::from_index(i);
        CHECK(cached.bytes_sent(d) == asked.bytes_sent(d));
    }
}
