// Client hosts on the compute fabric (cluster.clients): extra endpoints on the compute leaves
// after the servers' NICs and the storage nodes, NIC k of a client on plane k mod planes;
// counted in the leaf sizing, the summary (text and JSON), the cable count and the
// "largest buildable" error.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "fabric/topology_builder.hpp"
#include "fabric/topology_summary.hpp"
#include "fabric_test_helpers.hpp"
#include "report/topology_json.hpp"
#include "report/topology_text.hpp"

#include <nlohmann/json.hpp>

#include <string>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::fabric;
using fabricsim::test::error_of;
using fabricsim::test::leaf_of;
using fabricsim::test::nodes_of;
using scenario::Ratio;
using scenario::TopologyKind;

namespace {

scenario::ClusterSpec with_clients(scenario::ClusterSpec c, int nodes, int nics_per_node = 1,
                                   Bandwidth rate = Bandwidth::Gbps(200)) {
    c.clients.nodes = nodes;
    c.clients.nics_per_node = nics_per_node;
    c.clients.nic.line_rate = rate;
    return c;
}

scenario::ClusterSpec with_storage(scenario::ClusterSpec c, int nodes, int nics_per_node = 1) {
    c.storage.nodes = nodes;
    c.storage.nics_per_node = nics_per_node;
    c.storage.nic.line_rate = 400_Gbps;
    return c;
}

int ports_to_kind(const Topology& t, NodeId node, NodeKind kind) {
    int n = 0;
    for (const Port& p : t.node(node).ports) n += t.node(p.peer).kind == kind;
    return n;
}

}  // namespace

TEST_CASE("16 HGX servers + 4 storage nodes + 30 clients: clients after the storage nodes on ceil(162 / 32) leaves",
          "[fabric][clients]") {
    // Endpoints in leaf order: 128 server NICs (0..127), 4 storage nodes (128..131), then the
    // 30 clients (132..161). 64-port leaves at 1:1 have 32 downlinks: 6 leaves; leaf 4 holds
    // the storage nodes and clients 0..27, leaf 5 clients 28 and 29.
    const scenario::ClusterSpec c = with_clients(
        with_storage(test::cluster(16, test::hgx_h100(), TopologyKind::leaf_spine, 64, 400_Gbps, Ratio{1, 1}), 4), 30);
    const Topology t = build_topology(c);
    REQUIRE(t.count(NodeKind::leaf) == 6U);
    REQUIRE(t.clients().size() == 30U);
    CHECK(t.count(NodeKind::client) == 30U);
    const std::vector<NodeId> leaves = nodes_of(t, NodeKind::leaf);
    for (std::size_t k = 0; k < 30; ++k) {
        INFO("client " << k);
        const Node& n = t.node(t.clients()[k]);
        CHECK(n.kind == NodeKind::client);
        CHECK(n.name == "client" + std::to_string(k));
        CHECK(!n.server.valid());
        REQUIRE(n.ports.size() == 1U);
        const Link& l = t.link(n.ports[0].link);
        CHECK(l.type == LinkType::fabric);
        CHECK(l.tier == 1);
        CHECK(l.bandwidth == 200_Gbps);  // the client NIC's rate, below the 400G fabric links
        CHECK(leaf_of(t, t.clients()[k]) == leaves[k < 28 ? 4 : 5]);
    }
    for (std::size_t i = 0; i < 4; ++i) CHECK(leaf_of(t, t.storage_nodes()[i]) == leaves[4]);
    // Leaf ports: 32 down on leaves 0..4 (leaf 4: 4 storage nodes + 28 clients), 2 on leaf 5;
    // every leaf has its 32 uplinks (6 leaves: 8 parallel links to each of 4 spines).
    CHECK(t.count(NodeKind::spine) == 4U);
    CHECK(ports_to_kind(t, leaves[4], NodeKind::client) == 28);
    CHECK(ports_to_kind(t, leaves[4], NodeKind::storage_node) == 4);
    CHECK(ports_to_kind(t, leaves[5], NodeKind::client) == 2);
    CHECK(t.node(leaves[4]).ports.size() == 64U);
    CHECK(t.node(leaves[5]).ports.size() == 34U);

    // Without the clients the same servers and storage nodes need ceil(132 / 32) = 5 leaves.
    scenario::ClusterSpec no_clients = c;
    no_clients.clients.nodes = 0;
    CHECK(build_topology(no_clients).count(NodeKind::leaf) == 5U);
}

TEST_CASE("clients in the summary: counts - NIC-leaf cables and the topo JSON keys", "[fabric][clients]") {
    // 16 HGX servers and 8 clients with 2 NICs each at 2:1 (42 downlinks): 128 + 16 = 144
    // endpoints on ceil(144 / 42) = 4 leaves; 21 uplinks each: 7 parallel links (the largest
    // divisor of 21 with 4 x 7 <= 64) to each of 3 spines.
    const scenario::ClusterSpec c =
        with_clients(test::cluster(16, test::hgx_h100(), TopologyKind::leaf_spine, 64, 400_Gbps, Ratio{2, 1}), 8, 2);
    const Topology t = build_topology(c);
    const TopologySummary s = summarize(t, c);
    CHECK(s.clients == 8);
    CHECK(s.client_nics == 16);
    CHECK(s.switches.leaf == 4);
    CHECK(s.switches.spine == 3);
    CHECK(s.nics == 128);  // compute NICs of the servers only
    CHECK(s.links.at("fabric") == 144 + 4 * 21);
    CHECK(s.cables.by_tier.at("nic-leaf") == 144);
    CHECK(s.cables.by_tier.at("leaf-spine") == 84);
    // 5 m NIC-leaf cables are optical at 200G and 400G alike (passive copper reaches 3 m at
    // 50G and 100G lanes, links.md), as are the 30 m uplinks: two transceivers per cable.
    CHECK(s.cables.total() == 228);
    CHECK(s.cables.optical == 228);
    CHECK(s.cables.transceivers == 456);
    // Spare ports: 4 x 64 leaf ports - 144 down - 84 up, and 3 spines with 64 - 4 x 7 free.
    CHECK(s.spare_ports == 4 * 64 - 144 - 84 + 3 * (64 - 28));

    const nlohmann::ordered_json j = report::topology_json(s);
    CHECK(j["clients"] == 8);
    CHECK(j["client_nics"] == 16);
    CHECK(j["nics"] == 128);
    CHECK(j["storage_nodes"] == 0);
    CHECK(j["switches"]["leaf"] == 4);
    CHECK(j["cables"]["by_tier"]["nic-leaf"] == 144);
    CHECK(report::topology_text(s).find("  clients       8 client hosts (16 NICs on the compute fabric)\n") !=
          std::string::npos);

    // No clients: the keys are there with 0, the text line is not.
    const scenario::ClusterSpec bare = test::cluster(16, test::hgx_h100(), TopologyKind::leaf_spine, 64);
    const TopologySummary b = summarize(build_topology(bare), bare);
    const nlohmann::ordered_json jb = report::topology_json(b);
    CHECK(jb["clients"] == 0);
    CHECK(jb["client_nics"] == 0);
    CHECK(report::topology_text(b).find("clients") == std::string::npos);
}

TEST_CASE("clients on 2 planes: NIC k on plane k mod 2 - a 1-NIC client sits on plane 0 only", "[fabric][clients]") {
    scenario::ClusterSpec c = with_clients(test::cluster(16, test::hgx_h100(), TopologyKind::leaf_spine, 64), 4, 1);
    c.fabric.planes = 2;
    {
        // Plane 0: 64 NICs + 4 clients = 68 endpoints, 3 leaves; plane 1: 64, 2 leaves.
        const Topology t = build_topology(c);
        CHECK(t.count(NodeKind::leaf) == 5U);
        for (NodeId id : t.clients()) {
            REQUIRE(t.node(id).ports.size() == 1U);
            CHECK(t.node(t.node(id).ports[0].peer).plane == 0);
            CHECK(t.node(t.node(id).ports[0].peer).name == "pl0.leaf2");
        }
    }
    c.clients.nics_per_node = 2;
    {
        const Topology t = build_topology(c);
        CHECK(t.count(NodeKind::leaf) == 6U);  // 68 endpoints on each plane
        for (NodeId id : t.clients()) {
            const Node& n = t.node(id);
            REQUIRE(n.ports.size() == 2U);
            CHECK(t.node(n.ports[0].peer).plane == 0);
            CHECK(t.node(n.ports[1].peer).plane == 1);
        }
    }
    c.clients.nics_per_node = 3;  // plane 0 takes NICs 0 and 2, plane 1 NIC 1: 72 and 68 endpoints
    CHECK(build_topology(c).count(NodeKind::leaf) == 6U);
    c.fabric.planes = 4;
    c.server.nics = 8;
    CHECK(error_of(c) ==
          "cluster.clients.nics_per_node: 3 NICs per client on the compute fabric's 4 planes would put a client on "
          "some planes but not all; give each client 1 NIC or at least 4 (NIC k on plane k mod 4)");
}

TEST_CASE("clients count in the largest-buildable error and the single-switch collapse", "[fabric][clients][errors]") {
    // 8-port leaves at 1:1: 4 down, at most 8 leaves = 32 endpoints.
    // 3 x 8 server NICs + 6 clients x 2 = 36; the servers get (32 - 12) / 8 = 2.
    CHECK(error_of(with_clients(test::cluster(3, test::hgx_h100(), TopologyKind::leaf_spine, 8), 6, 2)) ==
          "cluster.servers: 3 servers with 8 NICs each and 12 client NICs need 36 endpoints; a leaf-spine fabric of "
          "8-port switches at 1:1 holds at most 32 endpoints (2 servers beside the client hosts); it would fit with "
          "topology: fat-tree or switches with 16 ports at this link rate");
    CHECK(error_of(with_clients(test::cluster(3, test::hgx_h100(), TopologyKind::leaf_spine, 8), 4, 2)) ==
          "(no error)");
    // Storage nodes and clients: 24 + 2 x 4 + 4 x 1 = 36.
    CHECK(error_of(
              with_clients(with_storage(test::cluster(3, test::hgx_h100(), TopologyKind::leaf_spine, 8), 2, 4), 4)) ==
          "cluster.servers: 3 servers with 8 NICs each, 8 storage node NICs and 4 client NICs need 36 endpoints; a "
          "leaf-spine fabric of 8-port switches at 1:1 holds at most 32 endpoints (2 servers beside the storage nodes "
          "and client hosts); it would fit with topology: fat-tree or switches with 16 ports at this link rate");
    // One server: the verb agrees with the whole list ("need").
    CHECK(error_of(with_clients(test::cluster(1, test::host_1nic(), TopologyKind::single_switch, 8), 8)) ==
          "cluster.servers: 1 server with 1 NIC each and 8 client NICs need 9 endpoints; a single switch of 8 ports "
          "holds at most 8 endpoints (0 servers beside the client hosts); it would fit with topology: leaf-spine or "
          "switches with 16 ports at this link rate");
    // 7 hosts + 1 client fit one 64-port leaf's 32 downlinks: a single switch.
    const Topology t =
        build_topology(with_clients(test::cluster(7, test::host_1nic(), TopologyKind::leaf_spine, 64), 1));
    CHECK(t.count(NodeKind::leaf) == 1U);
    CHECK(t.count(NodeKind::spine) == 0U);
    CHECK(leaf_of(t, t.clients()[0]) == nodes_of(t, NodeKind::leaf)[0]);
    CHECK(error_of(with_clients(test::cluster(4, test::hgx_h100(), TopologyKind::rail_optimized, 64), 1)) ==
          "cluster.clients: client hosts cannot join a rail-optimized compute fabric (they have no rail); use "
          "leaf-spine or fat-tree");
    scenario::ClusterSpec no_nics = with_clients(test::cluster(1, test::hgx_h100(), TopologyKind::leaf_spine, 64), 1);
    no_nics.server.nics = 0;
    CHECK(error_of(no_nics) ==
          "cluster.clients: client hosts on the compute fabric need servers with NICs (cluster.server.nics is 0)");
}

TEST_CASE("clients on a fat tree: endpoints after the servers' fill the next leaves", "[fabric][clients]") {
    // 16-port switches at 1:1: 8 down per leaf, pods of 8 leaves. 9 HGX servers = 72 NICs on
    // leaves 0..8 (pod 1 starts at leaf 8); 12 one-NIC clients are endpoints 72..83 on leaves
    // 9 and 10 (83 / 8 = 10): ceil(84 / 8) = 11 leaves in 2 pods.
    const scenario::ClusterSpec c = with_clients(test::cluster(9, test::hgx_h100(), TopologyKind::fat_tree, 16), 12);
    const Topology t = build_topology(c);
    CHECK(t.count(NodeKind::leaf) == 11U);
    CHECK(t.count(NodeKind::core) > 0U);
    const std::vector<NodeId> leaves = nodes_of(t, NodeKind::leaf);
    for (std::size_t k = 0; k < 12; ++k) {
        INFO("client " << k);
        CHECK(leaf_of(t, t.clients()[k]) == leaves[(72 + k) / 8]);
        CHECK(t.node(leaf_of(t, t.clients()[k])).pod == 1);
    }
}

TEST_CASE("plan_fabric with client ports: leaf of each client port and the servers left beside them",
          "[fabric][clients]") {
    // 16 servers x 8 NICs, 4 storage ports, 30 client ports on 64-port switches at 1:1.
    const FabricPlan p = plan_fabric(TopologyKind::leaf_spine, 64, Ratio{1, 1}, PlaneDemand{16, 8, 1, 4, 30});
    CHECK(p.endpoints == 162);
    CHECK(p.leaves == 6);
    CHECK(p.storage_ports == 4);
    CHECK(p.client_ports == 30);
    CHECK(p.storage_leaf_of(0) == 4);  // endpoint 128
    CHECK(p.client_leaf_of(0) == 4);   // endpoint 132
    CHECK(p.client_leaf_of(27) == 4);  // endpoint 159
    CHECK(p.client_leaf_of(28) == 5);  // endpoint 160
    // 64 leaves x 32 down = 2048 endpoints; the servers get (2048 - 34) / 8 = 251.
    CHECK(p.max_endpoints == 2048);
    CHECK(p.max_servers == 251);
}
