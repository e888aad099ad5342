// Client hosts on the compute fabric (cluster.clients): a client reaches a GPU rank through the
// leaf it hangs off, a spine, the rank NIC's leaf and the rank's NIC, and back the same way;
// endpoint ids (ClusterSpec::client_endpoint) address them as they do ranks.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology_builder.hpp"
#include "route_checks.hpp"

#include <algorithm>
#include <string>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::fabric;
using scenario::RoutingKind;
using scenario::Technology;
using scenario::TopologyKind;

namespace {

// 16 HGX H100-like servers (8 GPUs, 4 NVSwitches, 4 PCIe switches, 8 x 400G NICs; GPU g and
// NIC g on PCIe switch g / 2) on a leaf-spine of 64-port 400G switches at 1:1, and 4 client
// hosts with one 200G NIC each. One plane: the 128 server NICs fill leaves 0..3 and the
// clients are endpoints 128..131 on leaf 4; 5 leaves of 32 uplinks reach 4 spines with 8
// links each.
scenario::ClusterSpec client_cluster(int planes) {
    scenario::ClusterSpec c;
    c.servers = 16;
    c.server.gpus = 8;
    c.server.nvlink = {"nvlink4", 18, Bandwidth::GBps(25), 4, {5, 4, 4, 5}};
    c.server.pcie = {5, 16, 4};
    c.server.nics = 8;
    c.server.nic.line_rate = 400_Gbps;
    c.fabric.topology = TopologyKind::leaf_spine;
    c.fabric.switch_spec.radix = 64;
    c.fabric.planes = planes;
    c.clients.nodes = 4;
    c.clients.nics_per_node = 1;
    c.clients.nic.line_rate = 200_Gbps;
    return c;
}

Technology technology_of(RoutingKind policy) {
    return policy == RoutingKind::static_ ? Technology::infiniband : Technology::roce;
}

}  // namespace

TEST_CASE("client to GPU rank: client - leaf4 - a spine - the rank NIC's leaf - rank NIC - PCIe switch - GPU",
          "[routing][clients]") {
    const scenario::ClusterSpec c = client_cluster(1);
    const Topology t = build_topology(c);
    REQUIRE(t.clients().size() == 4U);
    REQUIRE(t.count(NodeKind::spine) == 4U);
    for (RoutingKind policy : {RoutingKind::ecmp, RoutingKind::static_}) {
        const Routing r(t, policy, technology_of(policy), 7);
        for (std::uint32_t rank : {0U, 5U, 127U}) {
            const RankInfo& info = t.rank(RankId{rank});
            // Rank r is GPU r mod 8 of server r / 8, on NIC r mod 8: endpoint r, leaf r / 32.
            const std::string rank_leaf = "leaf" + std::to_string(rank / 32);
            for (std::size_t k = 0; k < t.clients().size(); ++k) {
                const NodeId client = t.clients()[k];
                for (std::uint32_t qp : {0U, 1U, 2U}) {
                    INFO("policy " << static_cast<int>(policy) << " rank " << rank << " client " << k << " qp " << qp);
                    const auto path = r.path(FlowKey{client, info.gpu, qp});
                    REQUIRE(routing_test::is_chain(t, path, client, info.gpu));
                    REQUIRE(path.size() == 6U);
                    CHECK(t.node(t.target(path[0])).name == "leaf4");
                    CHECK(t.node(t.target(path[1])).kind == NodeKind::spine);
                    CHECK(t.node(t.target(path[2])).name == rank_leaf);
                    CHECK(t.target(path[3]) == info.nic);
                    CHECK(t.node(t.target(path[4])).kind == NodeKind::pcie_switch);
                    for (std::size_t h = 0; h < 4; ++h) CHECK(t.link(path[h].link).type == LinkType::fabric);
                    CHECK(t.link(path[0].link).bandwidth == 200_Gbps);
                    CHECK(t.link(path[4].link).type == LinkType::pcie);
                    CHECK(t.link(path[5].link).type == LinkType::pcie);

                    // The same route by endpoint ids.
                    CHECK(r.path(c.client_endpoint(static_cast<int>(k)), RankId{rank}, qp) == path);

                    // Back: GPU - PCIe switch - rank NIC - its leaf - a spine - leaf4 - client.
                    const auto back = r.path(FlowKey{info.gpu, client, qp});
                    REQUIRE(routing_test::is_chain(t, back, info.gpu, client));
                    REQUIRE(back.size() == 6U);
                    CHECK(t.target(back[1]) == info.nic);
                    CHECK(t.node(t.target(back[2])).name == rank_leaf);
                    CHECK(t.node(t.target(back[3])).kind == NodeKind::spine);
                    CHECK(t.node(t.target(back[4])).name == "leaf4");
                    CHECK(r.path(RankId{rank}, c.client_endpoint(static_cast<int>(k)), qp) == back);
                }
            }
        }
        // Two clients under one leaf: client - leaf4 - client.
        const auto between = r.path(c.client_endpoint(0), c.client_endpoint(3));
        REQUIRE(between.size() == 2U);
        CHECK(t.node(t.target(between[0])).name == "leaf4");
        // Ranks still reach ranks.
        CHECK(r.path(RankId{0}, RankId{127}).size() == 2U + 4U + 2U);
    }
    // Endpoint ids past the clients name nothing.
    CHECK(t.endpoint_node(c.client_endpoint(3)) == t.clients()[3]);
    CHECK_THROWS_AS(t.endpoint_node(c.client_endpoint(4)), ModelError);
}

TEST_CASE("a 1-NIC client on plane 0 of 2 reaches a plane-1 rank through a plane-0 NIC of its server",
          "[routing][clients]") {
    const scenario::ClusterSpec c = client_cluster(2);
    const Topology t = build_topology(c);
    for (RoutingKind policy : {RoutingKind::ecmp, RoutingKind::static_}) {
        const Routing r(t, policy, technology_of(policy), 11);
        for (std::uint32_t rank : {0U, 1U, 126U, 127U}) {
            const RankInfo& info = t.rank(RankId{rank});
            for (NodeId client : t.clients()) {
                for (std::uint32_t qp : {0U, 1U}) {
                    INFO("policy " << static_cast<int>(policy) << " rank " << rank << " qp " << qp);
                    for (const bool to_gpu : {true, false}) {
                        const NodeId src = to_gpu ? client : info.gpu, dst = to_gpu ? info.gpu : client;
                        const auto path = r.path(FlowKey{src, dst, qp});
                        REQUIRE(routing_test::is_chain(t, path, src, dst));
                        int nics = 0;
                        for (const DirectedLink& d : path) {
                            const Node& n = t.node(t.target(d));
                            if (is_fabric_switch(n.kind)) CHECK(n.plane == 0);
                            if (n.kind == NodeKind::nic) {
                                ++nics;
                                CHECK(n.server == info.server);
                                CHECK(n.local_index % 2 == 0);                      // NIC k is on plane k mod 2
                                if (rank % 2 == 0) CHECK(t.target(d) == info.nic);  // its own NIC is on plane 0
                            }
                            const LinkType type = t.link(d.link).type;
                            CHECK((type == LinkType::pcie || type == LinkType::fabric));
                        }
                        CHECK(nics == 1);
                    }
                }
            }
        }
    }
}
