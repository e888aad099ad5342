#include <catch2/catch.hpp>

#include "core/rng.hpp"
#include "fabric/routing.hpp"
#include "fabrics.hpp"

#include <map>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::fabric;
using scenario::RoutingKind;
using scenario::Technology;
using namespace routing_test;

namespace {

// Queue occupancy per directed link, set by hand.
class FakeLoad final : public PortLoad {
public:
    explicit FakeLoad(const Topology& t) : queued_(t.directed_link_count(), Bytes{0}) {}
    Bytes queued(DirectedLink link) const override { return queued_[link.index()]; }
    void set(DirectedLink link, Bytes b) { queued_[link.index()] = b; }

private:
    std::vector<Bytes> queued_;
};

}  // namespace

TEST_CASE("adaptive takes the least-queued uplink", "[routing][adaptive]") {
    const Fabric f = leaf_spine(2, 32, 32);
    const Topology& t = f.topology;
    const Routing r(t, RoutingKind::adaptive, Technology::roce, 3);
    const NodeId leaf = f.leaves[0];
    Rng rng(5, "adaptive");
    for (int trial = 0; trial < 1000; ++trial) {
        const FlowKey key{f.hosts[rng.below(32)], f.hosts[32 + rng.below(32)], static_cast<std::uint32_t>(trial)};
        const auto cands = r.candidates(leaf, key);
        REQUIRE(cands.size() == 32U);
        FakeLoad load(t);
        // Distinct random occupancies: one least-queued port.
        const std::uint32_t winner = cands[rng.below(32)];
        for (std::uint32_t p : cands)
            load.set(t.egress(leaf, p),
                     Bytes{p == winner ? 1000 : 2000 + static_cast<std::int64_t>(rng.below(100000))});
        REQUIRE(r.next_port(leaf, key, static_cast<std::uint64_t>(trial), &load) == winner);
    }
}

TEST_CASE("adaptive breaks ties by the ECMP hash and is ECMP without a load", "[routing][adaptive]") {
    const Fabric f = leaf_spine(2, 32, 32);
    const Topology& t = f.topology;
    const Routing adaptive(t, RoutingKind::adaptive, Technology::roce, 3);
    const Routing ecmp(t, RoutingKind::ecmp, Technology::roce, 3);
    const NodeId leaf = f.leaves[0];
    const FakeLoad idle(t);
    FakeLoad two_idle(t);  // every uplink busy but two
    const auto cands = adaptive.candidates(leaf, f.hosts[40]);
    for (std::uint32_t p : cands) two_idle.set(t.egress(leaf, p), Bytes{5000});
    two_idle.set(t.egress(leaf, cands[3]), Bytes{0});
    two_idle.set(t.egress(leaf, cands[17]), Bytes{0});
    std::map<std::uint32_t, int> tie_choices;
    for (std::uint32_t qp = 0; qp < 2000; ++qp) {
        const FlowKey key{f.hosts[qp % 32], f.hosts[32 + qp % 32], qp};
        const auto hashed = ecmp.next_port(leaf, key);
        REQUIRE(adaptive.next_port(leaf, key, qp, &idle) == hashed);
        REQUIRE(adaptive.next_port(leaf, key, qp, nullptr) == hashed);
        REQUIRE(adaptive.path(key) == ecmp.path(key));
        ++tie_choices[adaptive.next_port(leaf, key, qp, &two_idle)];
    }
    REQUIRE(tie_choices.size() == 2U);
    CHECK(tie_choices[cands[3]] == Approx(1000).epsilon(0.10));
    CHECK(tie_choices[cands[17]] == Approx(1000).epsilon(0.10));
}

TEST_CASE("spray spreads one flow's 10^6 packets over 8 uplinks within 2% of even", "[routing][spray]") {
    const Fabric f = leaf_spine(2, 8, 8);
    const Routing spray(f.topology, RoutingKind::spray, Technology::roce, 17);
    const Routing ecmp(f.topology, RoutingKind::ecmp, Technology::roce, 17);
    const FlowKey key{f.hosts[1], f.hosts[12], 0};
    std::map<std::uint32_t, std::int64_t> per_port;
    const int packets = 1'000'000;
    for (int seq = 0; seq < packets; ++seq)
        ++per_port[spray.next_port(f.leaves[0], key, static_cast<std::uint64_t>(seq))];
    REQUIRE(per_port.size() == 8U);
    for (const auto& [port, n] : per_port) CHECK(static_cast<double>(n) == Approx(packets / 8.0).epsilon(0.02));
    CHECK(spray.path(key) == ecmp.path(key));  // the flow model's single path is the ECMP one
}

TEST_CASE("spray: spread splits a flow evenly over every equal-cost link", "[routing][spray]") {
    const Fabric f = fat_tree(4, 3);
    const Routing r(f.topology, RoutingKind::spray, Technology::roce, 1);
    const auto s = r.spread(FlowKey{f.hosts[0], f.hosts[15], 0});
    // host -> leaf (1), leaf -> 2 aggs (1/2 each), aggs -> 4 cores (1/4), cores -> 2 aggs of
    // pod 3 (1/4 each, 4 links), aggs -> leaf (1/2), leaf -> host (1).
    REQUIRE(s.size() == 1U + 2U + 4U + 4U + 2U + 1U);
    std::map<double, int> shares;
    double total = 0;
    for (const LinkShare& l : s) {
        ++shares[l.share];
        total += l.share;
    }
    CHECK(total == Approx(6.0));  // six hops, each summing to 1
    CHECK(shares[1.0] == 2);
    CHECK(shares[0.5] == 4);
    CHECK(shares[0.25] == 8);
}
