// Storage nodes on the compute fabric (cluster.storage, no storage fabric): extra endpoints on
// the compute leaves after the servers' NICs, NIC i of a node on plane i mod planes; counted in
// the leaf sizing, the summary and the "largest buildable" error.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "fabric/topology_builder.hpp"
#include "fabric/topology_summary.hpp"
#include "fabric_test_helpers.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::fabric;
using fabricsim::test::error_of;
using fabricsim::test::leaf_of;
using fabricsim::test::nodes_of;
using scenario::Ratio;
using scenario::TopologyKind;

namespace {

scenario::ClusterSpec with_storage(scenario::ClusterSpec c, int nodes, int nics_per_node = 1) {
    c.storage.nodes = nodes;
    c.storage.nics_per_node = nics_per_node;
    c.storage.nic.line_rate = 400_Gbps;
    return c;
}

}  // namespace

TEST_CASE("16 HGX servers x 8 NICs + 4 storage nodes: 132 endpoints on ceil(132 / down) leaves", "[fabric][storage]") {
    struct Case {
        Ratio ratio;
        int down, leaves;
    };
    // 64-port leaves: 1:1 gives 32 down (ceil(132/32) = 5), 2:1 gives 42 (ceil(132/42) = 4).
    for (const Case& k : {Case{{1, 1}, 32, 5}, Case{{2, 1}, 42, 4}}) {
        INFO(k.down);
        const scenario::ClusterSpec c =
            with_storage(test::cluster(16, test::hgx_h100(), TopologyKind::leaf_spine, 64, 400_Gbps, k.ratio), 4);
        const Topology t = build_topology(c);
        CHECK(t.count(NodeKind::leaf) == static_cast<std::size_t>(k.leaves));
        const TopologySummary s = summarize(t, c);
        CHECK(s.switches.leaf == k.leaves);
        CHECK(s.storage_nodes == 4);
        CHECK(s.storage_switches.total() == 0);
        REQUIRE(t.storage_nodes().size() == 4);
        // After the servers' 128 NICs: endpoints 128..131, on leaf 128 / down.
        const std::vector<NodeId> leaves = nodes_of(t, NodeKind::leaf);
        for (std::size_t i = 0; i < 4; ++i) {
            const Node& n = t.node(t.storage_nodes()[i]);
            CHECK(n.kind == NodeKind::storage_node);
            CHECK(n.name == "stor" + std::to_string(i));
            CHECK(n.ports.size() == 1U);
            CHECK(leaf_of(t, t.storage_nodes()[i]) == leaves[static_cast<std::size_t>((128 + i) / k.down)]);
            CHECK(t.link(n.ports[0].link).type == LinkType::fabric);
        }
    }
}

TEST_CASE("storage nodes on 2 planes: NIC i on plane i mod 2 - 68 endpoints and 3 leaves per plane",
          "[fabric][storage]") {
    scenario::ClusterSpec c = with_storage(test::cluster(16, test::hgx_h100(), TopologyKind::leaf_spine, 64), 4, 2);
    c.fabric.planes = 2;
    const Topology t = build_topology(c);
    CHECK(t.count(NodeKind::leaf) == 6U);  // ceil((16 x 4 + 4) / 32) = 3 per plane
    for (NodeId id : t.storage_nodes()) {
        const Node& n = t.node(id);
        REQUIRE(n.ports.size() == 2U);
        CHECK(t.node(n.ports[0].peer).plane == 0);
        CHECK(t.node(n.ports[1].peer).plane == 1);
    }
    c.storage.nics_per_node = 3;
    CHECK(error_of(c) ==
          "cluster.storage.nics_per_node: 3 does not split evenly over the compute fabric's 2 planes; every plane "
          "needs the same number of NICs per storage node");
}

TEST_CASE("storage nodes count in the largest-buildable error and the single-switch collapse",
          "[fabric][storage][errors]") {
    // 8-port leaves at 1:1: 4 down, at most 8 leaves = 32 endpoints; 3 x 8 + 3 x 4 = 36.
    CHECK(error_of(with_storage(test::cluster(3, test::hgx_h100(), TopologyKind::leaf_spine, 8), 3, 4)) ==
          "cluster.servers: 3 servers with 8 NICs each and 12 storage node NICs need 36 endpoints; a leaf-spine "
          "fabric of 8-port switches at 1:1 holds at most 32 endpoints (2 servers beside the storage nodes); it would "
          "fit "
          "with topology: fat-tree or switches with 16 ports at this link rate");
    CHECK(error_of(with_storage(test::cluster(3, test::hgx_h100(), TopologyKind::leaf_spine, 8), 2, 4)) ==
          "(no error)");
    // 7 hosts + 1 storage node fit one 64-port leaf's 32 downlinks: a single switch.
    const Topology t =
        build_topology(with_storage(test::cluster(7, test::host_1nic(), TopologyKind::leaf_spine, 64), 1));
    CHECK(t.count(NodeKind::leaf) == 1U);
    CHECK(t.count(NodeKind::spine) == 0U);
    CHECK(error_of(with_storage(test::cluster(4, test::hgx_h100(), TopologyKind::rail_optimized, 64), 1)) ==
          "cluster.storage: storage nodes cannot join a rail-optimized compute fabric (they have no rail); use "
          "leaf-spine or fat-tree, or put them on cluster.storage_fabric");
}
