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
