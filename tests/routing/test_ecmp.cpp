#include <catch2/catch.hpp>

#include "core/rng.hpp"
#include "fabric/routing.hpp"
#include "fabrics.hpp"

#include <algorithm>
#include <map>
#include <numeric>

using namespace fabricsim;
using namespace fabricsim::fabric;
using scenario::RoutingKind;
using scenario::Technology;
using namespace routing_test;

TEST_CASE("ECMP: 10^6 random flows load each of a leaf's 32 uplinks within 3% of the mean", "[routing][ecmp]") {
    // Two leaves of 32 hosts under 32 spines: every flow from leaf 0 to leaf 1 has 32 choices.
    const Fabric f = leaf_spine(2, 32, 32);
    const Routing r(f.topology, RoutingKind::ecmp, Technology::roce, 2024);
    const NodeId leaf = f.leaves[0];
    REQUIRE(r.candidates(leaf, f.hosts[40]).size() == 32U);
    Rng rng(7, "ecmp-balance");
    std::map<std::uint32_t, std::int64_t> per_port;
    const int flows = 1'000'000;
    for (int i = 0; i < flows; ++i) {
        const NodeId src = f.hosts[rng.below(32)];
        const NodeId dst = f.hosts[32 + rng.below(32)];
        ++per_port[r.next_port(leaf, FlowKey{src, dst, static_cast<std::uint32_t>(rng.below(1 << 16))})];
    }
    REQUIRE(per_port.size() == 32U);
    const double mean = flows / 32.0;
    for (const auto& [port, n] : per_port) {
        CHECK(static_cast<double>(n) <= mean * 1.03);
        CHECK(static_cast<double>(n) >= mean * 0.97);
    }
}

TEST_CASE("ECMP: switches hash with their own seeds so a spine does not repeat the leaf's choice", "[routing][ecmp]") {
    // Polarisation check: flows that left leaf 0 through one aggregation switch must still
    // spread over all of that switch's 4 core uplinks (with one seed everywhere, h mod 4 would
    // be the same at both tiers and each aggregation switch would use a single core link).
    const int k = 8;
    const Fabric f = fat_tree(k, 3);
    const Routing r(f.topology, RoutingKind::ecmp, Technology::roce, 11);
    Rng rng(3, "polarisation");
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::int64_t> per_agg_port;  // (agg, port)
    std::map<std::uint32_t, std::int64_t> per_agg;
    const int flows = 100'000;
    for (int i = 0; i < flows; ++i) {
        const NodeId src = f.hosts[rng.below(k / 2)];                     // under leaf 0
        const NodeId dst = f.hosts[16 + rng.below(f.hosts.size() - 16)];  // another pod
        const FlowKey key{src, dst, static_cast<std::uint32_t>(rng.below(1 << 16))};
        const auto up = r.next_port(f.leaves[0], key);
        const NodeId agg = f.topology.node(f.leaves[0]).ports[up].peer;
        ++per_agg[agg.value()];
        ++per_agg_port[{agg.value(), r.next_port(agg, key)}];
    }
    REQUIRE(per_agg.size() == 4U);
    REQUIRE(per_agg_port.size() == 16U);
    for (const auto& [key, n] : per_agg_port) {
        const double expected = static_cast<double>(per_agg[key.first]) / 4.0;
        CHECK(static_cast<double>(n) == Approx(expected).epsilon(0.05));
    }
}

TEST_CASE("ECMP: the same seed gives the same ports and another seed another mapping", "[routing][ecmp]") {
    const Fabric f = fat_tree(8, 3);
    const Routing a(f.topology, RoutingKind::ecmp, Technology::roce, 42);
    const Routing b(f.topology, RoutingKind::ecmp, Technology::roce, 42);
    const Routing c(f.topology, RoutingKind::ecmp, Technology::roce, 43);
    Rng rng(1, "determinism");
    int same_ab = 0, same_ac = 0;
    const int flows = 2000;
    for (int i = 0; i < flows; ++i) {
        const NodeId src = f.hosts[rng.below(16)];        // pod 0
        const NodeId dst = f.hosts[16 + rng.below(112)];  // pods 1..7: 16 paths each
        const FlowKey key{src, dst, static_cast<std::uint32_t>(rng.below(100))};
        const auto pa = a.path(key);
        same_ab += pa == b.path(key);
        same_ac += pa == c.path(key);
    }
    CHECK(same_ab == flows);
    // Independent mappings agree on 1 path in 16: about 125 of 2000.
    CHECK(same_ac < flows / 8);
}

TEST_CASE("ECMP: one QP keeps one path and QPs of one connection spread", "[routing][ecmp]") {
    const Fabric f = leaf_spine(2, 4, 8);
    const Routing r(f.topology, RoutingKind::ecmp, Technology::roce, 5);
    const auto first = r.path(FlowKey{f.hosts[0], f.hosts[5], 0});
    for (std::uint64_t seq = 0; seq < 100; ++seq)
        CHECK(r.next_port(f.leaves[0], FlowKey{f.hosts[0], f.hosts[5], 0}, seq) ==
              r.next_port(f.leaves[0], FlowKey{f.hosts[0], f.hosts[5], 0}));
    std::map<std::uint32_t, int> uplinks;
    for (std::uint32_t qp = 0; qp < 64; ++qp) ++uplinks[r.next_port(f.leaves[0], FlowKey{f.hosts[0], f.hosts[5], qp})];
    CHECK(uplinks.size() == 8U);  // 64 QPs miss one of 8 uplinks with probability ~1e-3
    CHECK(first.size() == 4U);
}

TEST_CASE("ECMP on InfiniBand: a switch's choice depends on the destination and QP only", "[routing][ecmp]") {
    // LMC: each QP uses another destination LID, and the forwarding tables are per LID.
    const Fabric f = fat_tree(8, 3);
    const Routing ib(f.topology, RoutingKind::ecmp, Technology::infiniband, 8);
    const Routing roce(f.topology, RoutingKind::ecmp, Technology::roce, 8);
    int roce_differs = 0;
    std::map<std::uint32_t, int> ib_ports;
    for (std::size_t agg = 0; agg < 4; ++agg) {  // pod 0's aggregation switches
        const NodeId at = f.spines[agg];
        for (std::size_t d = 16; d < f.hosts.size(); d += 7)
            for (std::uint32_t qp = 0; qp < 4; ++qp) {
                const auto ib0 = ib.next_port(at, FlowKey{f.hosts[0], f.hosts[d], qp});
                const auto roce0 = roce.next_port(at, FlowKey{f.hosts[0], f.hosts[d], qp});
                ++ib_ports[ib0];
                for (std::size_t s = 1; s < 16; ++s) {
                    REQUIRE(ib.next_port(at, FlowKey{f.hosts[s], f.hosts[d], qp}) == ib0);
                    roce_differs += roce.next_port(at, FlowKey{f.hosts[s], f.hosts[d], qp}) != roce0;
                }
            }
    }
    CHECK(ib_ports.size() == 4U);  // QPs and destinations still use every uplink
    CHECK(roce_differs > 0);
}

TEST_CASE("ECMP: spread puts a flow's whole share on its one path", "[routing][ecmp]") {
    const Fabric f = fat_tree(4, 3);
    const Routing r(f.topology, RoutingKind::ecmp, Technology::roce, 1);
    const FlowKey key{f.hosts[0], f.hosts[15], 2};
    const auto s = r.spread(key);
    const auto p = r.path(key);
    REQUIRE(s.size() == p.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        CHECK(s[i].link == p[i]);
        CHECK(s[i].share == 1.0);
    }
}
