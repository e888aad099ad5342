#include <catch2/catch.hpp>

#include "fabric/routing.hpp"
#include "fabrics.hpp"
#include "route_checks.hpp"

#include <algorithm>
#include <set>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::fabric;
using scenario::RoutingKind;
using scenario::Technology;
using namespace routing_test;

namespace {

std::vector<LinkType> types(const Topology& t, const std::vector<DirectedLink>& p) {
    std::vector<LinkType> out;
    for (const DirectedLink& d : p) out.push_back(t.link(d.link).type);
    return out;
}

bool only(const std::vector<LinkType>& v, LinkType type) {
    return std::all_of(v.begin(), v.end(), [type](LinkType x) { return x == type; });
}

bool visits(const Topology& t, const std::vector<DirectedLink>& p, NodeId node) {
    return std::any_of(p.begin(), p.end(), [&](const DirectedLink& d) { return t.target(d) == node; });
}

}  // namespace

TEST_CASE("GPU to GPU in a server: 2 NVLink hops striped over all 18 links of each GPU", "[routing][server]") {
    const Cluster c = hgx_cluster(2, ServerShape{}, 8);
    const Topology& t = c.topology;
    for (RoutingKind policy : {RoutingKind::ecmp, RoutingKind::static_}) {
        const Routing r(t, policy, Technology::roce, 1);
        const ServerInfo& s = t.servers()[1];
        for (NodeId a : s.gpus)
            for (NodeId b : s.gpus) {
                if (a == b) continue;
                std::set<std::uint32_t> first, last;
                for (std::uint32_t qp = 0; qp < 400; ++qp) {
                    const auto p = r.path(FlowKey{a, b, qp});
                    REQUIRE(p.size() == 2U);
                    REQUIRE(only(types(t, p), LinkType::nvlink));
                    REQUIRE(is_chain(t, p, a, b));
                    first.insert(p[0].index());
                    last.insert(p[1].index());
                }
                REQUIRE(r.candidates(a, b).size() == 18U);
                REQUIRE(first.size() == 18U);  // every NVLink link of the source GPU
                REQUIRE(last.size() == 18U);   // every NVLink link into the destination GPU
            }
    }
}

TEST_CASE("GPU to GPU in a server: spread gives each of the 18 links 1/18", "[routing][server]") {
    const Cluster c = hgx_cluster(1, ServerShape{}, 8);
    const Topology& t = c.topology;
    const Routing r(t, RoutingKind::ecmp, Technology::roce, 1);
    const NodeId a = t.servers()[0].gpus[2], b = t.servers()[0].gpus[6];
    const auto s = r.spread(FlowKey{a, b, 0});
    REQUIRE(s.size() == 36U);
    double out_of_a = 0, into_b = 0;
    for (const LinkShare& l : s) {
        CHECK(t.link(l.link.link).type == LinkType::nvlink);
        if (t.source(l.link) == a) out_of_a += l.share;
        if (t.target(l.link) == b) into_b += l.share;
        // NVSwitch i has split[i] links to each GPU: 5/18 of the traffic crosses switch 0.
        CHECK(l.share == Approx(1.0 / 18.0));
    }
    CHECK(out_of_a == Approx(1.0));
    CHECK(into_b == Approx(1.0));
}

TEST_CASE("GPU to NIC in a server uses PCIe only", "[routing][server]") {
    const Cluster c = hgx_cluster(2, ServerShape{}, 8);
    const Topology& t = c.topology;
    const Routing r(t, RoutingKind::ecmp, Technology::roce, 1);
    const ServerInfo& s = t.servers()[0];
    for (std::size_t g = 0; g < s.gpus.size(); ++g)
        for (std::size_t n = 0; n < s.nics.size(); ++n) {
            const auto p = r.path(FlowKey{s.gpus[g], s.nics[n], 0});
            REQUIRE(only(types(t, p), LinkType::pcie));
            REQUIRE(is_chain(t, p, s.gpus[g], s.nics[n]));
            // Same PCIe switch (GPU g and NIC g share switch g/2): GPU -> switch -> NIC;
            // otherwise up to the host and down another switch.
            REQUIRE(p.size() == (g / 2 == n / 2 ? 2U : 4U));
            const auto back = r.path(FlowKey{s.nics[n], s.gpus[g], 0});
            REQUIRE(only(types(t, back), LinkType::pcie));
            REQUIRE(back.size() == p.size());
        }
}

TEST_CASE("GPU to GPU across servers: PCIe to the rank's NIC then the fabric then PCIe", "[routing][server]") {
    const Cluster c = hgx_cluster(4, ServerShape{}, 8);  // one leaf per server, 8 spines
    const Topology& t = c.topology;
    const Routing r(t, RoutingKind::ecmp, Technology::roce, 1);
    for (std::uint32_t a = 0; a < 32; ++a)
        for (std::uint32_t b = 0; b < 32; ++b) {
            const RankInfo& ra = t.rank(RankId{a});
            const RankInfo& rb = t.rank(RankId{b});
            if (ra.server == rb.server) continue;
            const auto p = r.path(RankId{a}, RankId{b}, a);
            REQUIRE(is_chain(t, p, ra.gpu, rb.gpu));
            const std::vector<LinkType> expected{LinkType::pcie,   LinkType::pcie,   LinkType::fabric, LinkType::fabric,
                                                 LinkType::fabric, LinkType::fabric, LinkType::pcie,   LinkType::pcie};
            REQUIRE(types(t, p) == expected);
            REQUIRE(t.target(p[1]) == ra.nic);
            REQUIRE(t.source(p[6]) == rb.nic);
        }
}

TEST_CASE("GPUs without NVLink reach each other over PCIe", "[routing][server]") {
    ServerShape l40s;
    l40s.gpus = 4;
    l40s.nvlink_split = {};
    l40s.pcie_switches = 2;
    l40s.nics = 2;
    const Cluster c = hgx_cluster(2, l40s, 2);
    const Topology& t = c.topology;
    const Routing r(t, RoutingKind::ecmp, Technology::roce, 1);
    const ServerInfo& s = t.servers()[0];
    const auto near = r.path(FlowKey{s.gpus[0], s.gpus[1], 0});  // same PCIe switch
    const auto far = r.path(FlowKey{s.gpus[0], s.gpus[3], 0});
    CHECK(only(types(t, near), LinkType::pcie));
    CHECK(near.size() == 2U);
    CHECK(only(types(t, far), LinkType::pcie));
    CHECK(far.size() == 4U);
}

TEST_CASE("a GPU-less host reaches another host through its NIC", "[routing][server]") {
    ServerShape host;
    host.gpus = 0;
    host.nvlink_split = {};
    host.pcie_switches = 0;
    host.nics = 1;
    const Cluster c = hgx_cluster(8, host, 4);
    const Topology& t = c.topology;
    const Routing r(t, RoutingKind::ecmp, Technology::roce, 1);
    const auto same_leaf = r.path(RankId{0}, RankId{3});
    const auto other_leaf = r.path(RankId{0}, RankId{5});
    CHECK(same_leaf.size() == 4U);   // host -> NIC -> leaf -> NIC -> host
    CHECK(other_leaf.size() == 6U);  // ... through a spine
    CHECK(t.link(other_leaf.front().link).type == LinkType::pcie);
    CHECK(t.link(other_leaf.back().link).type == LinkType::pcie);
}

TEST_CASE("across planes a flow enters the destination server by the NIC of its own rail", "[routing][server]") {
    // NIC n on plane n mod 2: rank 0 (NIC 0, plane 0) cannot reach rank 9's NIC 1 (plane 1).
    const Cluster c = hgx_cluster(2, ServerShape{}, 4, 2);
    const Topology& t = c.topology;
    const Routing r(t, RoutingKind::ecmp, Technology::roce, 1);
    const ServerInfo& s1 = t.servers()[1];
    const auto p = r.path(RankId{0}, RankId{9});
    REQUIRE(is_chain(t, p, t.rank(RankId{0}).gpu, t.rank(RankId{9}).gpu));
    CHECK(visits(t, p, t.rank(RankId{0}).nic));
    CHECK(visits(t, p, s1.nics[0]));
    CHECK_FALSE(visits(t, p, s1.nics[1]));
    // NIC 0 and GPU 1 share PCIe switch 0: NIC -> switch -> GPU.
    CHECK(t.link(p[p.size() - 1].link).type == LinkType::pcie);
    CHECK(t.link(p[p.size() - 3].link).type == LinkType::fabric);
    // Same rail: the rank's own NICs.
    const auto q = r.path(RankId{2}, RankId{10});
    CHECK(visits(t, q, t.rank(RankId{10}).nic));
}

TEST_CASE("storage traffic leaves by a storage NIC onto the storage fabric", "[routing][server]") {
    ServerShape shape;
    shape.storage_nics = 2;
    const Cluster c = hgx_cluster(2, shape, 8, 1, 2);
    const Topology& t = c.topology;
    const Routing r(t, RoutingKind::ecmp, Technology::roce, 1);
    std::set<NodeId> used;
    for (std::uint32_t qp = 0; qp < 64; ++qp) {
        const NodeId gpu = t.servers()[1].gpus[5];
        const auto p = r.path(FlowKey{gpu, c.storage_nodes[1], qp});
        REQUIRE(is_chain(t, p, gpu, c.storage_nodes[1]));
        // GPU -> PCIe switch -> host -> storage NIC, then storage NIC -> leaf -> storage node.
        REQUIRE(types(t, p) == std::vector<LinkType>{LinkType::pcie, LinkType::pcie, LinkType::pcie,
                                                     LinkType::storage_fabric, LinkType::storage_fabric});
        used.insert(t.target(p[2]));
        const auto back = r.path(FlowKey{c.storage_nodes[1], gpu, qp});
        REQUIRE(is_chain(t, back, c.storage_nodes[1], gpu));
        REQUIRE(back.size() == 5U);
    }
    CHECK(used == std::set<NodeId>{t.servers()[1].storage_nics[0], t.servers()[1].storage_nics[1]});
}
