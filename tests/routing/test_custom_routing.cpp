// Routing on custom topologies (cluster.fabric.topology: custom, docs/models/routing.md):
// shortest paths over whatever switch graph is written, every equal-cost next hop a candidate,
// and the channel dependency check that tells when such paths may deadlock.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "fabric/channel_dependencies.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology_builder.hpp"
#include "scenario/loader.hpp"

#include <set>
#include <string>

using namespace fabricsim;
using namespace fabricsim::fabric;
using scenario::RoutingKind;
using scenario::Technology;

namespace {

// A cluster of `servers` one-NIC hosts with the given switches and links (YAML flow lists).
scenario::ClusterSpec custom_cluster(int servers, const std::string& switches, const std::string& links) {
    const std::string text = "name: t\ncluster:\n  servers: " + std::to_string(servers) +
                             "\n  server: { gpus: 0, nics: 1, nic: { line_rate: 100Gbps } }\n"
                             "  fabric:\n    topology: custom\n    switches: " +
                             switches + "\n    links: " + links +
                             "\nworkload:\n  - transfer: { from: 0, to: 1, size: 1MiB }\n";
    const auto loaded = scenario::load_scenario_text(text, "custom.yaml", {});
    return loaded.variants.front().spec.cluster;
}

NodeId node_named(const Topology& t, const std::string& name) {
    for (std::uint32_t i = 0; i < t.nodes().size(); ++i)
        if (t.nodes()[i].name == name) return NodeId{i};
    FAIL("no node " << name);
    return NodeId::invalid();
}

// Four switches in a ring a-b-c-d-a; host 0 on a, host 1 on c, host 2 on b.
scenario::ClusterSpec ring_of_four() {
    return custom_cluster(3, "[{name: a}, {name: b}, {name: c}, {name: d}]",
                          "[{from: s0.nic0, to: a}, {from: s1.nic0, to: c}, {from: s2.nic0, to: b}, "
                          "{from: a, to: b}, {from: b, to: c}, {from: c, to: d}, {from: d, to: a}]");
}

}  // namespace

TEST_CASE("custom topology: across a ring of four switches both two-hop paths are equal-cost candidates",
          "[routing][custom]") {
    const Topology t = build_topology(ring_of_four());
    const Routing r(t, RoutingKind::ecmp, Technology::roce, 7);
    const NodeId a = node_named(t, "a"), b = node_named(t, "b");
    const NodeId h0 = node_named(t, "s0.nic0"), h1 = node_named(t, "s1.nic0"), h2 = node_named(t, "s2.nic0");
    // a to c: via b or via d, both 2 switch hops; b to c: one hop, one port.
    CHECK(r.candidates(a, h1).size() == 2U);
    CHECK(r.candidates(b, h1).size() == 1U);
    // a to b's host: the direct link only (via d and c is 3 hops).
    CHECK(r.candidates(a, h2).size() == 1U);
    // Switches: a, b and c carry hosts (leaves); d is one hop from them (a spine).
    CHECK(t.node(a).kind == NodeKind::leaf);
    CHECK(t.node(node_named(t, "d")).kind == NodeKind::spine);

    // Every path is NIC-a-(b|d)-c-NIC, 4 links; over many QPs ECMP takes both, about evenly.
    std::set<std::string> paths;
    int via_b = 0;
    const int qps = 2000;
    for (std::uint32_t qp = 0; qp < static_cast<std::uint32_t>(qps); ++qp) {
        const auto p = r.path(FlowKey{h0, h1, qp});
        REQUIRE(p.size() == 4U);
        const std::string middle = t.node(t.target(p[1])).name;
        paths.insert(middle);
        via_b += middle == "b";
    }
    CHECK(paths == std::set<std::string>{"b", "d"});
    CHECK(via_b == Approx(qps / 2).margin(qps * 0.05));
}

TEST_CASE("custom topology: parallel cables are separate equal-cost next hops", "[routing][custom]") {
    // a =2= b - c and a - d - c: three ports of a lead to c's host on a shortest path.
    const Topology t = build_topology(
        custom_cluster(2, "[{name: a}, {name: b}, {name: c}, {name: d}]",
                       "[{from: s0.nic0, to: a}, {from: s1.nic0, to: c}, {from: a, to: b, count: 2}, {from: b, to: c}, "
                       "{from: a, to: d}, {from: d, to: c}]"));
    const Routing r(t, RoutingKind::ecmp, Technology::roce, 7);
    CHECK(r.candidates(node_named(t, "a"), node_named(t, "s1.nic0")).size() == 3U);
    CHECK(t.node(node_named(t, "a")).ports.size() == 4U);  // the host, b twice, d
}

TEST_CASE("custom topology: static (D-mod-K) and spray routing find a path on any graph", "[routing][custom]") {
    const Topology t = build_topology(ring_of_four());
    const NodeId h0 = node_named(t, "s0.nic0"), h1 = node_named(t, "s1.nic0");
    for (RoutingKind kind : {RoutingKind::static_, RoutingKind::spray, RoutingKind::adaptive}) {
        const Routing r(t, kind, Technology::infiniband, 7);
        CHECK(r.path(FlowKey{h0, h1, 0}).size() == 4U);
        CHECK(r.path(FlowKey{h1, h0, 0}).size() == 4U);
    }
}

TEST_CASE("custom topology: a ring with hosts on every switch has a channel dependency cycle, a line has none",
          "[routing][custom][deadlock]") {
    // Ring a-b-c-d-a with a host on each: a's host reaches c's via b, b's reaches d's via c, and
    // so on round the ring, so a->b waits on b->c, which waits on c->d, then d->a, then a->b.
    const Topology ring = build_topology(custom_cluster(
        4, "[{name: a}, {name: b}, {name: c}, {name: d}]",
        "[{from: s0.nic0, to: a}, {from: s1.nic0, to: b}, {from: s2.nic0, to: c}, {from: s3.nic0, to: d}, "
        "{from: a, to: b}, {from: b, to: c}, {from: c, to: d}, {from: d, to: a}]"));
    const Routing ring_routing(ring, RoutingKind::ecmp, Technology::roce, 1);
    const auto cycle = channel_dependency_cycle(ring, ring_routing);
    CHECK(cycle.size() >= 4U);  // at least the four links one way round
    CHECK(describe_cycle(cycle).find("can deadlock") != std::string::npos);

    // A line a-b-c: every path goes one way along it, so no dependency ever turns back.
    const Topology line = build_topology(custom_cluster(3, "[{name: a}, {name: b}, {name: c}]",
                                                        "[{from: s0.nic0, to: a}, {from: s1.nic0, to: b}, {from: "
                                                        "s2.nic0, to: c}, {from: a, to: b}, {from: b, to: c}]"));
    const Routing line_routing(line, RoutingKind::ecmp, Technology::roce, 1);
    CHECK(channel_dependency_cycle(line, line_routing).empty());
    CHECK(describe_cycle({}).empty());
}

TEST_CASE("custom topology: a fabric in two pieces is a ConfigError naming them", "[routing][custom]") {
    const auto cluster =
        custom_cluster(2, "[{name: a}, {name: b}]", "[{from: s0.nic0, to: a}, {from: s1.nic0, to: b}]");
    try {
        build_topology(cluster);
        FAIL("a disconnected fabric was built");
    } catch (const ConfigError& e) {
        REQUIRE(e.issues().size() == 1U);
        const ConfigIssue& issue = e.issues().front();
        CHECK(issue.location.file == "custom.yaml");
        CHECK(issue.location.line == 8);  // the links key
        CHECK(issue.key_path == "cluster.fabric.links");
        CHECK(issue.message ==
              "the fabric falls apart into 2 pieces: {a, s0.nic0}, {b, s1.nic0}; expected one connected fabric in "
              "which every NIC reaches every other: link the pieces");
    }
}
