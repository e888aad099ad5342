#include <catch2/catch.hpp>

#include "fabric/routing.hpp"
#include "fabrics.hpp"
#include "route_checks.hpp"

#include <algorithm>
#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::fabric;
using scenario::RoutingKind;
using scenario::Technology;
using namespace routing_test;

namespace {

// The most flows any directed link carries under the shift permutation i -> (i + s) mod N.
int max_link_load(const Fabric& f, const Routing& r, std::size_t shift) {
    std::vector<int> load(f.topology.directed_link_count(), 0);
    const std::size_t n = f.hosts.size();
    for (std::size_t i = 0; i < n; ++i) {
        const FlowKey key{f.hosts[i], f.hosts[(i + shift) % n], static_cast<std::uint32_t>(i)};
        const auto p = r.path(key);
        REQUIRE(is_chain(f.topology, p, key.src, key.dst));
        for (const DirectedLink& d : p) ++load[d.index()];
    }
    return *std::max_element(load.begin(), load.end());
}

std::vector<std::size_t> shifts(std::size_t n, int k) {
    const auto h = static_cast<std::size_t>(k / 2);
    std::vector<std::size_t> s{1, 2, h - 1, h, h + 1, h * h - 1, h * h, h * h + 1, n / 2, n / 2 + 3, n - 1};
    s.erase(std::remove_if(s.begin(), s.end(), [n](std::size_t x) { return x == 0 || x >= n; }), s.end());
    return s;
}

}  // namespace

TEST_CASE("D-mod-K loads every link with at most one flow under shift permutations", "[routing][dmodk]") {
    for (int tiers : {2, 3}) {
        for (int k : {4, 8}) {
            const Fabric f = fat_tree(k, tiers);
            const Routing r(f.topology, RoutingKind::static_, Technology::infiniband, 1);
            for (std::size_t s : shifts(f.hosts.size(), k)) {
                INFO("k = " << k << ", tiers = " << tiers << ", shift = " << s);
                CHECK(max_link_load(f, r, s) == 1);
            }
        }
    }
}

TEST_CASE("D-mod-K stays contention-free with parallel leaf-spine links", "[routing][dmodk]") {
    // 4 leaves of 8 hosts, 4 spines, 2 links per leaf-spine pair: 8 uplinks per leaf.
    const Fabric f = leaf_spine(4, 8, 4, 2);
    const Routing r(f.topology, RoutingKind::static_, Technology::infiniband, 1);
    for (std::size_t s : {1, 3, 7, 8, 9, 16, 31}) {
        INFO("shift = " << s);
        CHECK(max_link_load(f, r, s) == 1);
    }
}

TEST_CASE("ECMP on the same shift permutations collides where D-mod-K does not", "[routing][dmodk]") {
    // The D-mod-K check above is not vacuous: hashing the same flows puts two on some link.
    const Fabric f = fat_tree(8, 3);
    const Routing r(f.topology, RoutingKind::ecmp, Technology::roce, 1);
    int worst = 0;
    for (std::size_t s : shifts(f.hosts.size(), 8)) worst = std::max(worst, max_link_load(f, r, s));
    CHECK(worst >= 2);
}

TEST_CASE("D-mod-K routes are fixed per destination: QP and source do not change a switch's port", "[routing][dmodk]") {
    const Fabric f = fat_tree(8, 3);
    const Routing r(f.topology, RoutingKind::static_, Technology::infiniband, 1);
    for (std::size_t d = 16; d < f.hosts.size(); d += 5) {
        const auto base = r.next_port(f.spines[1], FlowKey{f.hosts[0], f.hosts[d], 0});
        for (std::size_t s = 0; s < 16; ++s)
            for (std::uint32_t qp = 0; qp < 4; ++qp)
                REQUIRE(r.next_port(f.spines[1], FlowKey{f.hosts[s], f.hosts[d], qp}) == base);
    }
    // Going up at a leaf, destination d takes uplink d mod 4.
    for (std::size_t d = 4; d < f.hosts.size(); ++d) {
        const auto port = r.next_port(f.leaves[0], FlowKey{f.hosts[0], f.hosts[d], 0});
        const NodeId agg = f.topology.node(f.leaves[0]).ports[port].peer;
        REQUIRE(agg == f.spines[d % 4]);
    }
}
