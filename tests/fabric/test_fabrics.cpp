// The fabrics against closed forms: k-ary fat trees, leaf-spine at 1:1, 2:1, 3:1, single-switch
// collapse, rail-optimized, planes, cables, storage fabric.
#include <catch2/catch.hpp>

#include "fabric/topology_builder.hpp"
#include "fabric/topology_summary.hpp"
#include "fabric_test_helpers.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::fabric;
using fabricsim::test::leaf_of;
using fabricsim::test::nodes_of;
using scenario::Ratio;
using scenario::TopologyKind;

namespace {

double tbps(Bandwidth b) { return static_cast<double>(b.bits_per_second()) / 1e12; }

}  // namespace

TEST_CASE("k-ary fat trees (k = 4 8 16): k^3/4 hosts - 5k^2/4 switches - bisection hosts x link / 2",
          "[fabric][fat-tree]") {
    for (int k : {4, 8, 16}) {
        INFO("k = " << k);
        const int hosts = k * k * k / 4;
        const scenario::ClusterSpec c =
            test::cluster(hosts, test::host_1nic(100_Gbps), TopologyKind::fat_tree, k, 100_Gbps);
        const Topology t = build_topology(c);
        const TopologySummary s = summarize(t, c);
        CHECK(s.topology == "fat-tree");
        CHECK(s.nics == hosts);
        CHECK(s.switches.leaf == k * k / 2);
        CHECK(s.switches.spine == k * k / 2);
        CHECK(s.switches.core == k * k / 4);
        CHECK(s.switches.total() == 5 * k * k / 4);
        CHECK(s.links.at("fabric") == 3 * hosts);  // hosts + leaf-agg + agg-core, k^3/4 each
        CHECK(s.spare_ports == 0);                 // every switch port in use
        CHECK(s.bisection == 100_Gbps * (hosts / 2));
        CHECK(s.diameter_hops == 6);
        REQUIRE(s.oversubscription.size() == 2);
        CHECK(s.oversubscription[0].ratio == 1.0);
        CHECK(s.oversubscription[1].ratio == 1.0);
        // Every pod's leaves reach every aggregation switch of their pod, once.
        for (NodeId leaf : nodes_of(t, NodeKind::leaf)) {
            std::set<std::uint32_t> spines;
            for (const Port& p : t.node(leaf).ports)
                if (t.node(p.peer).kind == NodeKind::spine) {
                    CHECK(t.node(p.peer).pod == t.node(leaf).pod);
                    spines.insert(p.peer.value());
                }
            CHECK(spines.size() == static_cast<std::size_t>(k / 2));
        }
    }
}

TEST_CASE("leaf-spine at 1:1 2:1 and 3:1 on 64-port switches: leaves spines spares and bisection",
          "[fabric][leaf-spine]") {
    struct Case {
        int down, up;  // the ratio
        int leaf_down, leaf_up, spare;
        int spines, parallel;  // 4 leaves: the largest divisor p of `up` with 4p <= 64
    };
    for (const Case& k : {Case{1, 1, 32, 32, 0, 2, 16}, Case{2, 1, 42, 21, 1, 3, 7}, Case{3, 1, 48, 16, 0, 1, 16}}) {
        INFO(k.down << ":" << k.up);
        const int endpoints = 4 * k.leaf_down;  // four full leaves
        const scenario::ClusterSpec c =
            test::cluster(endpoints, test::host_1nic(), TopologyKind::leaf_spine, 64, 400_Gbps, Ratio{k.down, k.up});
        const Topology t = build_topology(c);
        const TopologySummary s = summarize(t, c);
        CHECK(s.topology == "leaf-spine");
        CHECK(s.switches.leaf == 4);
        CHECK(s.switches.spine == k.spines);
        CHECK(s.leaf_down == k.leaf_down);
        CHECK(s.leaf_up == k.leaf_up);
        CHECK(s.leaf_spare == k.spare);
        // Leaves keep their spare ports; spines use 4 x parallel of 64.
        CHECK(s.spare_ports == 4 * k.spare + k.spines * (64 - 4 * k.parallel));
        const NodeId leaf = nodes_of(t, NodeKind::leaf).front();
        for (NodeId spine : nodes_of(t, NodeKind::spine))
            CHECK(test::links_between(t, leaf, spine).size() == static_cast<std::size_t>(k.parallel));
        // Bisection = endpoints x link / (2 x ratio).
        CHECK(tbps(s.bisection) == Approx(endpoints * 0.4 / (2.0 * k.down / k.up)));
        REQUIRE(s.oversubscription.size() == 1);
        CHECK(s.oversubscription[0].tier == "leaf");
        CHECK(s.oversubscription[0].ratio == Approx(static_cast<double>(k.down) / k.up));
        CHECK(s.diameter_hops == 4);
    }
}

TEST_CASE("a full 64-port leaf-spine: 2048 endpoints on 64 leaves and 32 spines - 409.6 Tbps bisection",
          "[fabric][leaf-spine]") {
    const scenario::ClusterSpec c = test::cluster(256, test::hgx_h100(), TopologyKind::leaf_spine, 64);
    const Topology t = build_topology(c);
    const TopologySummary s = summarize(t, c);
    CHECK(s.nics == 2048);
    CHECK(s.gpus == 2048);
    CHECK(s.switches.leaf == 64);
    CHECK(s.switches.spine == 32);
    CHECK(s.spare_ports == 0);
    CHECK(s.bisection == 400_Gbps * 1024);
    CHECK(s.max_servers == 256);
}

TEST_CASE("the 2:1 example: a 64-port leaf gives 42 down - 21 up and leaves 1 port spare", "[fabric][leaf-spine]") {
    const scenario::ClusterSpec c =
        test::cluster(100, test::host_1nic(), TopologyKind::leaf_spine, 64, 400_Gbps, Ratio{2, 1});
    const Topology t = build_topology(c);
    const TopologySummary s = summarize(t, c);
    CHECK(s.switches.leaf == 3);  // ceil(100 / 42)
    for (NodeId leaf : nodes_of(t, NodeKind::leaf)) {
        int up = 0;
        for (const Port& p : t.node(leaf).ports) up += t.node(p.peer).kind == NodeKind::spine;
        CHECK(up == 21);
    }
    CHECK(t.node(nodes_of(t, NodeKind::leaf)[0]).ports.size() == 63);
    CHECK(t.node(nodes_of(t, NodeKind::leaf)[2]).ports.size() == 16 + 21);  // 100 - 84 hosts on the last
}

TEST_CASE("bisection is the worst balanced cut when the last leaf is nearly empty (2:1, 32 HGX, 128 ports)",
          "[fabric][leaf-spine]") {
    // topology-h100-leaf-spine.yaml's 2:1 variant: 256 NICs at 400G, 128-port leaves split
    // 84 down : 42 up, so the leaves hold 84, 84, 84 and 4 NICs, each with 42 uplinks to
    // non-blocking spines. A balanced cut with l_i of leaf i's t_i NICs on the left carries
    // sum min(l_i, t_i - l_i) inside the leaves, plus what the leaves with more on one side can
    // send up (at most 42 each) and the others take down (at most 42 each):
    //   flow(l) = sum_i min(l_i, t_i - l_i) + min(sum_{l_i > r_i} min(l_i - r_i, 42), sum_{l_i <= r_i} min(r_i - l_i,
    //   42))
    // The bisection is the least flow over l with sum l_i = 128, computed here by enumeration:
    // 86 links at (0, 40, 84, 4), 34.4 Tbps. The closed form endpoints x link / (2 x ratio) =
    // 25.6 Tbps assumes full leaves; the 4-NIC leaf's 42 uplinks make this fabric better.
    const scenario::ClusterSpec c =
        test::cluster(32, test::hgx_h100(), TopologyKind::leaf_spine, 128, 400_Gbps, Ratio{2, 1});
    const Topology t = build_topology(c);
    const TopologySummary s = summarize(t, c);
    REQUIRE(s.leaf_down == 84);
    REQUIRE(s.leaf_up == 42);
    REQUIRE(s.switches.leaf == 4);
    const int total[4] = {84, 84, 84, 4};
    int worst = 1 << 30;
    for (int l0 = 0; l0 <= 84; ++l0)
        for (int l1 = 0; l1 <= 84; ++l1)
            for (int l3 = 0; l3 <= 4; ++l3) {
                const int l2 = 128 - l0 - l1 - l3;
                if (l2 < 0 || l2 > 84) continue;
                const int left[4] = {l0, l1, l2, l3};
                int inside = 0, up = 0, down = 0;
                for (int i = 0; i < 4; ++i) {
                    const int r = total[i] - left[i];
                    inside += std::min(left[i], r);
                    (left[i] > r ? up : down) += std::min(std::abs(left[i] - r), 42);
                }
                worst = std::min(worst, inside + std::min(up, down));
            }
    CHECK(worst == 86);
    CHECK(s.bisection == 400_Gbps * worst);
}

TEST_CASE("endpoints that fit one leaf's downlinks make a single switch", "[fabric][single-switch]") {
    // 4 HGX servers: 32 NICs = one 64-port leaf's 32 downlinks at 1:1.
    const scenario::ClusterSpec four = test::cluster(4, test::hgx_h100(), TopologyKind::leaf_spine, 64);
    const TopologySummary s = summarize(build_topology(four), four);
    CHECK(s.topology == "single-switch");
    CHECK(s.requested_topology == "leaf-spine");
    CHECK(s.switches.leaf == 1);
    CHECK(s.switches.spine == 0);
    CHECK(s.diameter_hops == 2);
    CHECK(s.bisection == 400_Gbps * 16);
    CHECK(s.oversubscription.empty());
    // One more server does not fit: two leaves and a spine.
    const scenario::ClusterSpec five = test::cluster(5, test::hgx_h100(), TopologyKind::leaf_spine, 64);
    const TopologySummary s5 = summarize(build_topology(five), five);
    CHECK(s5.topology == "leaf-spine");
    CHECK(s5.switches.leaf == 2);
    CHECK(s5.switches.spine == 1);
}

TEST_CASE("rail-optimized: NIC i of every server sits on a rail-i leaf - spines join the rails", "[fabric][rail]") {
    for (int servers : {32, 64}) {
        INFO(servers << " servers");
        const scenario::ClusterSpec c = test::cluster(servers, test::hgx_h100(), TopologyKind::rail_optimized, 64);
        const Topology t = build_topology(c);
        const TopologySummary s = summarize(t, c);
        CHECK(s.topology == "rail-optimized");
        CHECK(s.switches.leaf == 8 * (servers / 32));
        for (const ServerInfo& server : t.servers())
            for (std::size_t i = 0; i < server.nics.size(); ++i) {
                const NodeId leaf = leaf_of(t, server.nics[i]);
                REQUIRE(leaf.valid());
                CHECK(t.node(leaf).rail == i);
            }
        // A rail's leaf holds NIC i of 32 servers; every leaf reaches every spine.
        for (NodeId leaf : nodes_of(t, NodeKind::leaf)) {
            std::set<std::uint32_t> spines;
            for (const Port& p : t.node(leaf).ports)
                if (t.node(p.peer).kind == NodeKind::spine) spines.insert(p.peer.value());
            CHECK(spines.size() == nodes_of(t, NodeKind::spine).size());
        }
        CHECK(s.bisection == 400_Gbps * (servers * 8 / 2));
        CHECK(s.diameter_hops == 4);
    }
}

TEST_CASE("planes: NIC i of every server on plane i mod N - planes never joined", "[fabric][planes]") {
    scenario::ClusterSpec c = test::cluster(16, test::hgx_h100(), TopologyKind::leaf_spine, 64);
    c.fabric.planes = 4;
    const Topology t = build_topology(c);
    const TopologySummary s = summarize(t, c);
    CHECK(s.planes == 4);
    CHECK(s.switches.leaf == 4);  // 32 NICs per plane: one switch each
    CHECK(s.switches.spine == 0);
    for (const ServerInfo& server : t.servers())
        for (std::size_t i = 0; i < server.nics.size(); ++i) {
            CHECK(t.node(server.nics[i]).plane == i % 4);
            CHECK(t.node(leaf_of(t, server.nics[i])).plane == i % 4);
        }
    for (const Link& l : t.links())
        if (is_fabric_switch(t.node(l.a).kind) && is_fabric_switch(t.node(l.b).kind))
            CHECK(t.node(l.a).plane == t.node(l.b).plane);
    CHECK(s.bisection == 400_Gbps * 64);
    CHECK(s.diameter_hops == 2);
    // Bigger: 2 planes of 64 NICs each: 2 leaves + 1 spine per plane.
    c.servers = 16;
    c.fabric.planes = 2;
    const TopologySummary s2 = summarize(build_topology(c), c);
    CHECK(s2.switches.leaf == 4);
    CHECK(s2.switches.spine == 2);
    CHECK(s2.bisection == 400_Gbps * 64);
}

TEST_CASE("cables: copper within the passive reach - optical beyond with a transceiver per end", "[fabric][cables]") {
    scenario::ClusterSpec c = test::cluster(128, test::host_1nic(), TopologyKind::leaf_spine, 64);
    c.fabric.cable_length = 2_m;
    c.fabric.uplink_cable_length = 30_m;
    const TopologySummary s = summarize(build_topology(c), c);
    CHECK(s.cables.copper == 128);
    CHECK(s.cables.optical == 128);
    CHECK(s.cables.transceivers == 256);
    CHECK(s.cables.by_tier.at("nic-leaf") == 128);
    CHECK(s.cables.by_tier.at("leaf-spine") == 128);
    c.fabric.cable_length = 5_m;  // beyond 3 m at 400G
    const TopologySummary optical = summarize(build_topology(c), c);
    CHECK(optical.cables.copper == 0);
    CHECK(optical.cables.transceivers == 512);
}

TEST_CASE("cable length sets propagation at 5 ns/m on every fabric link", "[fabric][cables]") {
    scenario::ClusterSpec c = test::cluster(128, test::host_1nic(), TopologyKind::leaf_spine, 64);
    c.fabric.cable_length = 10_m;
    c.fabric.uplink_cable_length = 40_m;
    const Topology t = build_topology(c);
    for (const Link& l : t.links()) {
        if (l.type != LinkType::fabric) continue;
        CHECK(l.propagation == (l.tier == 1 ? 50_ns : 200_ns));
        CHECK(l.length == (l.tier == 1 ? 10_m : 40_m));
        CHECK(l.efficiency == Approx(4096.0 / 4178.0));
    }
}

TEST_CASE("worst zero-load NIC-to-NIC latency: cables plus every switch on the longest shortest path",
          "[fabric][latency]") {
    // Leaf-spine: NIC -5m- leaf -30m- spine -30m- leaf -5m- NIC, 600 ns per switch.
    scenario::ClusterSpec c = test::cluster(128, test::host_1nic(), TopologyKind::leaf_spine, 64);
    c.fabric.switch_spec.latency = 600_ns;
    const TopologySummary s = summarize(build_topology(c), c);
    CHECK(s.max_nic_to_nic_latency == 2 * 25_ns + 2 * 150_ns + 3 * 600_ns);
    // 3-tier k = 8 fat tree: 5 switches and 4 uplinks.
    scenario::ClusterSpec f = test::cluster(128, test::host_1nic(100_Gbps), TopologyKind::fat_tree, 8, 100_Gbps);
    f.fabric.switch_spec.latency = 300_ns;
    const TopologySummary sf = summarize(build_topology(f), f);
    CHECK(sf.max_nic_to_nic_latency == 2 * 25_ns + 4 * 150_ns + 5 * 300_ns);
}

TEST_CASE("the storage fabric: its own switches - the servers' storage NICs and the storage nodes",
          "[fabric][storage]") {
    scenario::ClusterSpec c = test::cluster(16, test::hgx_h100(), TopologyKind::leaf_spine, 64);
    c.storage_fabric.enabled = true;
    c.storage_fabric.fabric.switch_spec.radix = 16;
    c.storage_fabric.fabric.switch_spec.port_speed = 400_Gbps;
    c.storage_fabric.storage_nodes = 4;
    c.storage_fabric.nics_per_storage_node = 2;
    c.storage_fabric.storage_node_nic.line_rate = 400_Gbps;
    const Topology t = build_topology(c);
    const TopologySummary s = summarize(t, c);
    // 16 x 2 + 4 x 2 = 40 endpoints on 16-port leaves at 1:1 (8 down): 5 leaves.
    CHECK(s.storage_nodes == 4);
    CHECK(t.storage_nodes().size() == 4);
    CHECK(s.storage_switches.leaf == 5);
    CHECK(s.storage_switches.spine == 4);  // 8 uplinks per leaf, 2 to each spine (5 x 2 <= 16 ports)
    CHECK(s.links.at("storage_fabric") == 40 + 5 * 8);
    CHECK(s.switches.leaf == 4);  // the compute fabric is unchanged: 128 NICs, 4 leaves
    for (const Link& l : t.links()) {
        const bool storage = l.type == LinkType::storage_fabric;
        for (NodeId end : {l.a, l.b})
            if (is_fabric_switch(t.node(end).kind)) CHECK(t.node(end).storage_fabric == storage);
    }
    for (NodeId node : t.storage_nodes()) CHECK(t.node(leaf_of(t, node)).storage_fabric);
    CHECK(s.bisection == 400_Gbps * 64);  // the compute fabric's
}
