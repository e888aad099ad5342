// A collective inside a graph, gated member by member (a training job's TP or DP ring, its
// experts' all-to-all): as ring_rounds' or pairwise_all_to_all's sends in the whole graph, and
// as a RingStream or AllToAllStream opened by one open op per gate (ring_stream.hpp,
// all_to_all_stream.hpp). The stream must release every send at the same moment and in the
// same order, so events, times and bytes are the same, and know which member its critical
// chain of releases goes back to.
#include <catch2/catch.hpp>

#include "workload_fixtures.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "workloads/all_to_all_stream.hpp"
#include "workloads/collective.hpp"
#include "workloads/collective_algorithms.hpp"
#include "workloads/executor.hpp"
#include "workloads/ring_stream.hpp"

#include <memory>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace workload_test;
using fabricsim::OpId;
using scenario::CollectiveOp;
using workloads::Executor;
using workloads::OpGraph;

namespace {

struct Outcome {
    std::uint64_t events = 0;
    std::size_t ops = 0;
    Time last = Time::zero();
    Time join = Time::zero();
    std::vector<Bytes> nic_sent;
};

// Member m's gate: a compute of gate_us[m] µs on its rank (one gate for all when it has one).
std::vector<OpId> gates(OpGraph& g, std::uint32_t e, const std::vector<RankId>& group,
                        const std::vector<int>& gate_us) {
    std::vector<OpId> out;
    for (std::size_t m = 0; m < group.size(); ++m)
        out.push_back(gate_us.size() == 1 && m > 0 ? out.front() : g.add_compute(e, group[m], Time::us(gate_us[m])));
    return out;
}

Outcome run(OpGraph g, fabric::IdealNetwork& net, OpId join) {
    Simulator sim(1);
    Executor ex(std::move(g), net);
    ex.start(sim);
    sim.run();
    REQUIRE(ex.ops_done() == ex.ops_total());
    return {sim.cost().events, ex.ops_done(), ex.last_finish(), ex.op_timings()[join.value()].finish,
            net.nic_bytes_sent()};
}

scenario::CollectiveAlgorithm algorithm_of(CollectiveOp op) {
    return op == CollectiveOp::all_to_all ? scenario::CollectiveAlgorithm::pairwise
                                          : scenario::CollectiveAlgorithm::ring;
}

Outcome whole(const scenario::ClusterSpec& cluster, CollectiveOp op, Bytes size, int channels,
              const std::vector<int>& gate_us) {
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{kAlpha});
    const workloads::RankLayout layout(cluster);
    OpGraph g;
    const auto e = g.add_entry("t");
    auto spec = spec_of(op, algorithm_of(op), size, channels);
    const auto group = workloads::collective_group(spec, layout);
    const auto gate = gates(g, e, group, gate_us);
    const auto first = static_cast<std::uint32_t>(g.ops().size());
    workloads::add_collective(g, e, spec, layout, &net, size);
    const auto end = static_cast<std::uint32_t>(g.ops().size());
    const OpId join = g.add_compute(e, group.front(), Time::zero());
    for (std::uint32_t i = first; i < end; ++i) {
        const auto& o = g.ops()[i];
        if (o.kind == workloads::OpKind::send)
            g.add_dependency(
                gate[static_cast<std::size_t>(std::find(group.begin(), group.end(), o.src) - group.begin())], OpId{i});
        g.add_dependency(OpId{i}, join);
    }
    return run(std::move(g), net, join);
}

Outcome streamed(const scenario::ClusterSpec& cluster, CollectiveOp op, Bytes size, int channels,
                 const std::vector<int>& gate_us, std::shared_ptr<workloads::MemberStream>& program) {
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{kAlpha});
    const workloads::RankLayout layout(cluster);
    OpGraph g;
    const auto e = g.add_entry("t");
    auto spec = spec_of(op, algorithm_of(op), size, channels);
    const auto group = workloads::collective_group(spec, layout);
    const auto gate = gates(g, e, group, gate_us);
    if (op == CollectiveOp::all_to_all)
        program = std::make_shared<workloads::AllToAllStream>(group, channels, size, layout);
    else
        program = std::make_shared<workloads::RingStream>(op, group, channels, size, size, layout);
    const auto s = g.add_stream(e, program);
    std::vector<OpId> all;
    if (gate_us.size() == 1) {
        all.push_back(g.add_open(s, workloads::OpProgram::kAllMembers));
        g.add_dependency(gate.front(), all.back());
    } else {
        for (std::size_t m = 0; m < group.size(); ++m) {
            all.push_back(g.add_open(s, static_cast<std::uint32_t>(m)));
            g.add_dependency(gate[m], all.back());
        }
    }
    all.push_back(g.add_compute(e, group.front(), Time::zero()));  // add_collective's closing join
    g.set_join(s, all.back());
    const OpId join = g.add_compute(e, group.front(), Time::zero());
    for (OpId a : all) g.add_dependency(a, join);
    return run(std::move(g), net, join);
}

void same(const Outcome& a, const Outcome& b) {
    CHECK(a.events == b.events);
    CHECK(a.ops == b.ops);
    CHECK(a.last == b.last);
    CHECK(a.join == b.join);
    CHECK(a.nic_sent == b.nic_sent);
}

}  // namespace

TEST_CASE("a gated ring streams as the whole graph runs it: same events, times and bytes", "[ring_stream]") {
    // 2 HGX servers, 16 ranks, 4 channels across servers; members join 1..16 µs apart.
    const auto cluster = hgx(2);
    std::vector<int> staggered;
    for (int m = 0; m < 16; ++m) staggered.push_back(1 + (m * 7) % 16);
    for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather}) {
        std::shared_ptr<workloads::MemberStream> p;
        same(whole(cluster, op, 64_MiB, 4, staggered), streamed(cluster, op, 64_MiB, 4, staggered, p));
        REQUIRE(p->done());
        // Every round of a loop moves each of its n blocks once: 2(n−1) rounds of 64MiB for an
        // all-reduce, n−1 for reduce-scatter and all-gather (n = 16).
        const std::int64_t rounds = op == CollectiveOp::all_reduce ? 30 : 15;
        CHECK(p->sent_inside_servers() + p->sent_between_servers() == Bytes{rounds * (64_MiB).count()});
    }
    // One gate for every member (ZeRO's all-gather after the optimizer step).
    std::shared_ptr<workloads::MemberStream> p;
    same(whole(cluster, CollectiveOp::all_gather, 8_MiB, 4, {3}),
         streamed(cluster, CollectiveOp::all_gather, 8_MiB, 4, {3}, p));
}

TEST_CASE("a ring whose last member joins much later goes back to that member", "[ring_stream]") {
    // 8 plain hosts; member 5 joins 1 ms after the others (1 µs): every send waits on it at
    // some round, and the last send's chain of releases starts at its gate.
    std::vector<int> gate_us(8, 1);
    gate_us[5] = 1000;
    std::shared_ptr<workloads::MemberStream> p;
    same(whole(hosts(8), CollectiveOp::all_reduce, 1_MiB, 1, gate_us),
         streamed(hosts(8), CollectiveOp::all_reduce, 1_MiB, 1, gate_us, p));
    CHECK(p->root() == 5);
}

TEST_CASE("a gated all-to-all streams as the whole graph runs it, and goes back to its last member",
          "[ring_stream][all_to_all]") {
    // 2 HGX servers, 16 ranks, 4 channels across servers; members join 1..16 µs apart.
    const auto cluster = hgx(2);
    std::vector<int> staggered;
    for (int m = 0; m < 16; ++m) staggered.push_back(1 + (m * 7) % 16);
    std::shared_ptr<workloads::MemberStream> p;
    same(whole(cluster, CollectiveOp::all_to_all, 64_MiB, 4, staggered),
         streamed(cluster, CollectiveOp::all_to_all, 64_MiB, 4, staggered, p));
    REQUIRE(p->done());
    // Block b of a channel goes from each of the n − 1 other ranks to rank b: (n − 1) × S.
    CHECK(p->sent_inside_servers() + p->sent_between_servers() == Bytes{15 * (64_MiB).count()});
    // One gate for all, and an uneven share (a byte more for some blocks).
    same(whole(cluster, CollectiveOp::all_to_all, Bytes{8 * 1024 * 1024 + 5}, 3, {3}),
         streamed(cluster, CollectiveOp::all_to_all, Bytes{8 * 1024 * 1024 + 5}, 3, {3}, p));
    // A member's sends wait only for its own gate and its own previous round: member 5, 1 ms
    // late, sends last, and the chain of its last send starts at its gate.
    std::vector<int> gate_us(8, 1);
    gate_us[5] = 1000;
    same(whole(hosts(8), CollectiveOp::all_to_all, 1_MiB, 1, gate_us),
         streamed(hosts(8), CollectiveOp::all_to_all, 1_MiB, 1, gate_us, p));
    CHECK(p->root() == 5);
}

TEST_CASE("a ring rank's bytes over one loop are its blocks' sum, and a coupled channel sends the most of them",
          "[ring_stream]") {
    // Rank i's round-k block is share(bytes, n, (i − k) mod n); ring_sent_in_loop is the closed
    // form of their sum, checked against the sum itself for sizes with every remainder.
    for (std::int64_t n : {2, 3, 5, 8}) {
        for (std::int64_t steps : {n - 1, 2 * (n - 1), 3 * n + 1}) {
            for (std::int64_t bytes : {std::int64_t{1}, n - 1, 7 * n + 3, 1000 * n + n / 2}) {
                Bytes most = Bytes::zero();
                for (std::int64_t i = 0; i < n; ++i) {
                    std::int64_t sum = 0;
                    for (std::int64_t k = 0; k < steps; ++k)
                        sum += workloads::share(Bytes{bytes}, n, ((i - k) % n + n) % n).count();
                    INFO("n " << n << " steps " << steps << " bytes " << bytes << " rank " << i);
                    CHECK(workloads::ring_sent_in_loop(Bytes{bytes}, n, steps, i).count() == sum);
                    most = std::max(most, Bytes{sum});
                }
                std::vector<RankId> order;
                for (std::int64_t i = 0; i < n; ++i) order.push_back(RankId{static_cast<std::uint32_t>(i)});
                const workloads::GroupOp g = workloads::ring_channel_group(order, Bytes{bytes}, steps);
                CHECK(g.egress == most);
                CHECK(g.steps == static_cast<std::uint32_t>(steps));
            }
        }
    }
}

// ring_order (collective.cpp), which every ring stream calls per channel. Layout: 3 servers of
// 4 ranks and 2 NICs, so locals 0-1 are on rail 0 and 2-3 on rail 1 (RankLayout::rail).
TEST_CASE("a ring's order: servers in order, each entered at its rail's first rank", "[ring_stream]") {
    const workloads::RankLayout layout(3, 4, 2);
    const auto ranks = [](std::initializer_list<int> values) {
        std::vector<RankId> v;
        for (int x : values) v.push_back(RankId{static_cast<RankId::rep>(x)});
        return v;
    };
    const std::vector<RankId> group = ranks({1, 2, 3, 4, 5, 6, 7, 9, 10});
    // Channel 0, rail 0: server 0's {1, 2, 3} starts at 1 (local 1), server 1 at 4, server 2
    // {9, 10} at 9 (local 1): no rotation.
    CHECK(workloads::ring_order(group, layout, 0) == group);
    // Channel 1, rail 1: each server starts at its first rank of local 2 or 3: 2, 6 and 10.
    CHECK(workloads::ring_order(group, layout, 1) == ranks({2, 3, 1, 6, 7, 4, 5, 10, 9}));
    // Channel 3 is rail 1 again (3 mod 2).
    CHECK(workloads::ring_order(group, layout, 3) == ranks({2, 3, 1, 6, 7, 4, 5, 10, 9}));
    // Not sorted: servers still in order, each server's ranks in the group's order before the
    // rotation. Channel 1: server 0's {1} has no rail-1 rank, so it starts at 1 mod 1 = 0;
    // server 1's {4, 5} neither, 1 mod 2 = 1: {5, 4}; server 2's {10, 9} starts at 10.
    CHECK(workloads::ring_order(ranks({10, 4, 1, 9, 5}), layout, 1) == ranks({1, 5, 4, 10, 9}));
    // One server: the ring starts at channel mod size, whatever the rails.
    CHECK(workloads::ring_order(ranks({4, 5, 6, 7}), layout, 5) == ranks({5, 6, 7, 4}));
    CHECK(workloads::ring_order({}, layout, 1).empty());
}

TEST_CASE("a ring stream takes its group in rank order, as collective_group makes it", "[ring_stream]") {
    const workloads::RankLayout layout(2, 4, 2);
    const std::vector<RankId> unsorted{RankId{4}, RankId{0}};
    CHECK_THROWS_MATCHES(
        workloads::RingStream(CollectiveOp::all_reduce, unsorted, 2, Bytes{1 << 20}, Bytes{1 << 20}, layout, false),
        InternalError, Catch::Message("ring stream: a group not in rank order"));
}
