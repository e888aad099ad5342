// Collectives on the ideal network against their α–β closed forms (`docs/REFERENCES.md`):
// α = the network's latency, B = the endpoint bandwidth.
#include <catch2/catch.hpp>

#include "workload_fixtures.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "workloads/collective.hpp"
#include "workloads/executor.hpp"

#include <cmath>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace workload_test;
using scenario::CollectiveAlgorithm;
using scenario::CollectiveOp;
using workloads::Executor;
using workloads::OpGraph;

namespace {

struct Outcome {
    workloads::CollectivePlan plan;
    std::vector<workloads::CollectiveMeasurement> measured;
    std::vector<Bytes> nic_sent;
    std::size_t sends = 0;
};

Outcome run(const scenario::ClusterSpec& cluster, scenario::CollectiveSpec spec) {
    Simulator sim(1);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{kAlpha});
    OpGraph g;
    const auto e = g.add_entry("c");
    Outcome o;
    o.plan = workloads::add_collective(g, e, spec, workloads::RankLayout(cluster), &net);
    for (const auto& op : g.ops()) o.sends += op.kind == workloads::OpKind::send ? 1 : 0;
    Executor ex(std::move(g), net);
    ex.start(sim);
    sim.run();
    REQUIRE(ex.ops_done() == ex.ops_total());
    o.measured = workloads::measure(o.plan, ex.op_timings());
    o.nic_sent = net.nic_bytes_sent();
    return o;
}

double seconds(Bytes s) { return transmit_time(s, kB).seconds(); }

}  // namespace

TEST_CASE("ring all-reduce takes 2(n-1)α + 2(n-1)/n·S/B exactly when each block is one message", "[collective][ring]") {
    // n = 8, S = 4 MiB: blocks of 512 KiB = one message per round.
    const auto o = run(hosts(8), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 4_MiB));
    const double expected = 2 * 7 * kAlpha.seconds() + 2.0 * 7 / 8 * seconds(4_MiB);
    CHECK(o.measured[0].time.seconds() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("pipelined ring all-reduce of 1 GiB is within 1% of the α–β form", "[collective][ring]") {
    // With two or more channels a rank's port always has a ready message; a single channel
    // idles while each round's block is in flight (about 2% here: docs/models/collectives.md).
    for (int channels : {2, 4}) {
        const auto o = run(hosts(8), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 1_GiB, channels));
        const double expected = 2 * 7 * kAlpha.seconds() + 2.0 * 7 / 8 * seconds(1_GiB);
        CHECK(o.measured[0].time.seconds() == Approx(expected).epsilon(0.01));
        // busbw = algbw · 2(n-1)/n approaches B = 50 GB/s.
        CHECK(o.measured[0].busbw_GBps == Approx(50.0).epsilon(0.01));
    }
}

TEST_CASE("ring reduce-scatter and all-gather take (n-1)α + (n-1)/n·S/B", "[collective][ring]") {
    for (auto op : {CollectiveOp::reduce_scatter, CollectiveOp::all_gather}) {
        const auto o = run(hosts(4), spec_of(op, CollectiveAlgorithm::ring, 2_MiB));  // 512 KiB blocks
        const double expected = 3 * kAlpha.seconds() + 3.0 / 4 * seconds(2_MiB);
        CHECK(o.measured[0].time.seconds() == Approx(expected).epsilon(1e-9));
    }
}

TEST_CASE("halving-doubling all-reduce takes 2·log2(n)·α + 2(n-1)/n·S/B", "[collective][hd]") {
    const auto o = run(hosts(16), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::halving_doubling, 64_MiB));
    const double expected = 2 * 4 * kAlpha.seconds() + 2.0 * 15 / 16 * seconds(64_MiB);
    CHECK(o.measured[0].time.seconds() == Approx(expected).epsilon(1e-9));
    CHECK_THROWS_WITH(run(hosts(12), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::halving_doubling, 1_MiB)),
                      "all_reduce with algorithm halving_doubling: needs a power-of-two number of ranks, got 12");
}

TEST_CASE("pairwise all-to-all takes (n-1)α + (n-1)/n·S/B", "[collective][a2a]") {
    const auto o = run(hosts(8), spec_of(CollectiveOp::all_to_all, CollectiveAlgorithm::pairwise, 8_MiB));
    const double expected = 7 * kAlpha.seconds() + 7.0 / 8 * seconds(8_MiB);
    CHECK(o.measured[0].time.seconds() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("a ring all-reduce has 2(n-1) rounds of n sends per loop on each channel", "[collective][ring]") {
    // n = 8, c = 2, S = 16 MiB: each channel 8 MiB = 2 loops of 8 x 512 KiB.
    const auto o = run(hosts(8), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 16_MiB, 2));
    CHECK(o.sends == std::size_t{2} * 2 * (2 * 7) * 8);
}

TEST_CASE("channels across servers: one channel uses one NIC per server and eight spread over eight",
          "[collective][channels]") {
    const Bytes s = 64_MiB;
    // Ring all-reduce over 16 ranks: the NIC a channel leaves through sends 2(n-1)/n · S/c.
    const auto one = run(hgx(2), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, s, 1));
    int used = 0;
    for (Bytes b : one.nic_sent) used += b > Bytes::zero() ? 1 : 0;
    CHECK(used == 2);  // one NIC in each of the two servers
    CHECK(one.nic_sent[0].count() == Approx(2.0 * 15 / 16 * static_cast<double>(s.count())).epsilon(0.01));

    const auto eight = run(hgx(2), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, s, 8));
    for (Bytes b : eight.nic_sent)
        CHECK(b.count() == Approx(2.0 * 15 / 16 * static_cast<double>(s.count()) / 8).epsilon(0.01));
}

TEST_CASE("busbw factors follow nccl-tests", "[collective][busbw]") {
    CHECK(workloads::bus_factor(CollectiveOp::all_reduce, 8) == Approx(1.75));
    CHECK(workloads::bus_factor(CollectiveOp::all_gather, 8) == Approx(0.875));
    CHECK(workloads::bus_factor(CollectiveOp::reduce_scatter, 4) == Approx(0.75));
    CHECK(workloads::bus_factor(CollectiveOp::all_to_all, 2) == Approx(0.5));
    CHECK(workloads::bus_factor(CollectiveOp::broadcast, 16) == 1.0);
    CHECK(workloads::bus_factor(CollectiveOp::send_recv, 16) == 1.0);
}

TEST_CASE("a sweep measures each size over its iterations", "[collective]") {
    scenario::CollectiveSpec s = spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 4_MiB);
    s.sizes = {1_MiB, 4_MiB};
    s.iterations = 3;
    const auto o = run(hosts(8), s);
    REQUIRE(o.measured.size() == 2);
    CHECK(o.plan.runs.size() == 6);
    // Iterations run back to back and are identical: each equals the closed form.
    CHECK(o.measured[1].time.seconds() == Approx(14 * kAlpha.seconds() + 1.75 * seconds(4_MiB)).epsilon(1e-9));
    CHECK(o.measured[0].time < o.measured[1].time);
}

TEST_CASE("auto picks ring for all-reduce and pairwise for all-to-all and says why", "[collective]") {
    const auto ar = run(hosts(4), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::automatic, 1_MiB));
    CHECK(ar.plan.runs.front().algorithm == CollectiveAlgorithm::ring);
    CHECK_FALSE(ar.plan.runs.front().choice.empty());
    const auto a2a = run(hosts(4), spec_of(CollectiveOp::all_to_all, CollectiveAlgorithm::automatic, 1_MiB));
    CHECK(a2a.plan.runs.front().algorithm == CollectiveAlgorithm::pairwise);
}
