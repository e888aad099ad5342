// Tree, hierarchical, NVLS and SHARP collectives and `algorithm: auto` on the ideal network,
// against their α–β forms (docs/models/collectives.md): α = the network's latency, B = the
// endpoint bandwidth (NIC across servers, the GPU's NVLink inside one).
#include <catch2/catch.hpp>

#include "workload_fixtures.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "workloads/collective.hpp"
#include "workloads/executor.hpp"

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
    Time time;
    std::size_t sends = 0;
    std::size_t groups = 0;
    Bandwidth nvlink;
};

Outcome run(const scenario::ClusterSpec& cluster, scenario::CollectiveSpec spec) {
    Simulator sim(1);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{kAlpha});
    OpGraph g;
    const auto e = g.add_entry("c");
    Outcome o;
    o.plan = workloads::add_collective(g, e, spec, workloads::RankLayout(cluster), &net);
    for (const auto& op : g.ops()) {
        o.sends += op.kind == workloads::OpKind::send ? 1 : 0;
        o.groups += op.kind == workloads::OpKind::group ? 1 : 0;
    }
    Executor ex(std::move(g), net);
    ex.start(sim);
    sim.run();
    REQUIRE(ex.ops_done() == ex.ops_total());
    o.time = workloads::measure(o.plan, ex.op_timings()).front().time;
    o.nvlink = net.intra_server_bandwidth();
    return o;
}

double secs(Bytes s, Bandwidth b) { return transmit_time(s, b).seconds(); }

std::string error_of(const scenario::ClusterSpec& c, const scenario::CollectiveSpec& s) {
    try {
        run(c, s);
    } catch (const ModelError& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("tree all-reduce latency is 2·depth·α: 8α on 16 hosts where the ring needs 30α", "[collective][tree]") {
    // NCCL's binary tree over 16 nodes is 4 levels deep (15 -> 14 -> 12 -> 8 -> 0), its mirror too.
    const auto tree = run(hosts(16), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::tree, 64_B));
    CHECK(tree.time.seconds() == Approx(2 * 4 * kAlpha.seconds()).epsilon(1e-3));
    const auto ring = run(hosts(16), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 64_B));
    CHECK(ring.time.seconds() == Approx(2 * 15 * kAlpha.seconds()).epsilon(1e-3));
}

TEST_CASE("tree all-reduce of 1 GiB on 8 hosts moves 2S through the busiest port", "[collective][tree]") {
    // Interior in one tree and a leaf in the other, a rank sends S/2 up each tree and S down
    // the tree it is interior in: 2S in all, against the ring's 2(n-1)/n·S.
    const auto o = run(hosts(8), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::tree, 1_GiB, 2));
    CHECK(o.time.seconds() == Approx(secs(2_GiB, kB)).epsilon(0.01));
}

TEST_CASE("a tree all-reduce sends every message up and down both trees", "[collective][tree]") {
    // 8 hosts, one channel, 4 MiB: each tree 2 MiB = 4 messages, each n-1 sends up and n-1 down.
    const auto o = run(hosts(8), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::tree, 4_MiB));
    CHECK(o.sends == std::size_t{2} * 4 * 2 * 7);
}

TEST_CASE("hierarchical all-reduce is intra reduce-scatter + inter all-reduce of S/g + intra all-gather", "[collective][hierarchical]") {
    // 4 servers of 8 GPUs, S = 4 MiB, one channel: one piece, every block one message, so the
    // time is the sum of the phases (within 1e-6: picosecond rounding of each transmission).
    const Bytes s = 4_MiB;
    auto a100_like = hgx(4);
    a100_like.server.nvlink.generation = "nvlink3";  // no NVLS: rings inside the server
    const auto o = run(a100_like, spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::hierarchical, s));
    const double intra = 7 * kAlpha.seconds() + 7.0 / 8 * secs(s, o.nvlink);
    const double inter = 2 * 3 * kAlpha.seconds() + 2.0 * 3 / 4 * secs(Bytes{s.count() / 8}, kB);
    CHECK(o.time.seconds() == Approx(2 * intra + inter).epsilon(1e-6));
    // With NVLS the inside phases are one NVSwitch operation each: α + S/B.
    const auto nv = run(hgx(4), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::hierarchical, s));
    CHECK(nv.time.seconds() == Approx(2 * (kAlpha.seconds() + secs(s, nv.nvlink)) + inter).epsilon(1e-6));
}

TEST_CASE("SHARP all-reduce replaces the inter-server ring by one aggregation of S/g", "[collective][sharp]") {
    const Bytes s = 4_MiB;
    const auto o = run(hgx(4, true), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::sharp, s));
    const double intra = kAlpha.seconds() + secs(s, o.nvlink);  // NVLS inside the server
    const double inter = kAlpha.seconds() + secs(Bytes{s.count() / 8}, kB);
    CHECK(o.time.seconds() == Approx(2 * intra + inter).epsilon(1e-6));
    CHECK(o.groups == 8 + 2 * 4);  // one aggregation per rail; NVLS reduce-scatter and all-gather per server
}

TEST_CASE("pipelined SHARP with NVLS all-reduce of 1 GiB runs at the NVLink pace of S(1+1/g)", "[collective][sharp]") {
    // Pieces of 4 MiB overlap: NVLink carries S(1+1/g) per GPU (NVLS reduce-scatter S out,
    // all-gather S in, plus S/g each way) and each NIC only S/g up and down, so NVLink sets the
    // pace; the ring needs 2(n-1)/n·S/8 through every NIC.
    const Bytes s = 1_GiB;
    const auto sharp = run(hgx(4, true), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::sharp, s));
    CHECK(sharp.time.seconds() == Approx(secs(Bytes{s.count() + s.count() / 8}, sharp.nvlink)).epsilon(0.03));
    const auto ring = run(hgx(4, true), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, s, 16));
    CHECK(ring.time.seconds() == Approx(2.0 * 31 / 32 * secs(Bytes{s.count() / 8}, kB)).epsilon(0.03));
}

TEST_CASE("NVLS moves S(1+1/n) per GPU for all-reduce and S for reduce-scatter and all-gather", "[collective][nvls]") {
    const Bytes s = 1_GiB;
    const auto ar = run(hgx(1), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::nvls, s));
    CHECK(ar.time.seconds() == Approx(kAlpha.seconds() + secs(Bytes{s.count() + s.count() / 8}, ar.nvlink)).epsilon(1e-9));
    CHECK(ar.groups == 1);
    // busbw = algbw · 2(n-1)/n exceeds the NVLink rate: 2·7/8 / (9/8) = 1.556 x 360 GB/s.
    const double busbw = static_cast<double>(s.count()) / ar.time.seconds() / 1e9 * 1.75;
    CHECK(busbw == Approx(1.75 / 1.125 * ar.nvlink.bits_per_second() / 8e9).epsilon(0.01));
    for (auto op : {CollectiveOp::reduce_scatter, CollectiveOp::all_gather}) {
        const auto o = run(hgx(1), spec_of(op, CollectiveAlgorithm::nvls, s));
        CHECK(o.time.seconds() == Approx(kAlpha.seconds() + secs(s, o.nvlink)).epsilon(1e-9));
    }
}

TEST_CASE("NVLS and SHARP need a network that offers them", "[collective][nvls][sharp]") {
    auto a100 = hgx(1);
    a100.server.nvlink.generation = "nvlink3";
    CHECK(error_of(a100, spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::nvls, 1_MiB)) ==
          "all_reduce with algorithm nvls: the ideal network does not offer nvswitch_reduce over these 8 ranks (NVLS "
          "needs every rank on one server whose NVSwitches multicast and reduce: NVLink4 or later)");
    CHECK(error_of(hgx(2), spec_of(CollectiveOp::all_gather, CollectiveAlgorithm::nvls, 1_MiB)) ==
          "all_gather with algorithm nvls: the ideal network does not offer nvswitch_multicast over these 16 ranks (NVLS "
          "needs every rank on one server whose NVSwitches multicast and reduce: NVLink4 or later)");
    CHECK(error_of(hgx(2), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::sharp, 1_MiB)) ==
          "all_reduce with algorithm sharp: the ideal network does not offer switch_aggregation over these ranks (SHARP "
          "needs an InfiniBand fabric of switches with sharp: true, and a network model that runs it: ideal today)");
    CHECK(error_of(hgx(1, true), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::sharp, 1_MiB)) ==
          "all_reduce with algorithm sharp: needs ranks on more than one server");
    CHECK(error_of(hgx(2), spec_of(CollectiveOp::all_gather, CollectiveAlgorithm::tree, 1_MiB)) ==
          "all_gather with algorithm tree: the double binary tree runs all_reduce only (as in NCCL)");
}

TEST_CASE("auto chooses as NCCL's tuner does: tree when small and many servers and ring when large", "[collective][auto]") {
    const auto small = run(hosts(32), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::automatic, 64_KiB, 0));
    CHECK(small.plan.runs.front().algorithm == CollectiveAlgorithm::tree);
    CHECK(small.plan.runs.front().choice.rfind("auto: tree (run alone on the α–β model, ", 0) == 0);
    const auto large = run(hosts(32), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::automatic, 1_GiB, 0));
    CHECK(large.plan.runs.front().algorithm == CollectiveAlgorithm::ring);
    // The choice is right on the model: the tree is faster at 64 KiB and slower at 1 GiB.
    const auto ring_small = run(hosts(32), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 64_KiB, 0));
    CHECK(small.time < ring_small.time);
    const auto tree_large = run(hosts(32), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::tree, 1_GiB, 0));
    CHECK(large.time < tree_large.time);
}

TEST_CASE("auto chooses per size of a sweep, and each choice is the fastest when each algorithm is run", "[collective][auto]") {
    // allreduce-sweep.yaml's all-reduce: 4 HGX H100 (32 ranks), 64 KiB .. 1 GiB x4. The tree
    // wins while latency dominates (2·depth·α against the ring's 2(n−1)α) and the ring once
    // bandwidth does (the tree's interior NICs carry more); before, auto chose once, at 64 KiB,
    // and ran the tree at 1 GiB too.
    const auto cluster = hgx(4);
    bool saw_tree = false, saw_ring = false;
    for (Bytes size = 64_KiB; size <= 1_GiB; size = Bytes{size.count() * 4}) {
        const auto chosen = run(cluster, spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::automatic, size, 0));
        const auto ring = run(cluster, spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, size, 0));
        const auto tree = run(cluster, spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::tree, size, 0));
        INFO("size " << size.count());
        const CollectiveAlgorithm fastest = tree.time < ring.time ? CollectiveAlgorithm::tree : CollectiveAlgorithm::ring;
        CHECK(chosen.plan.runs.front().algorithm == fastest);
        CHECK(chosen.time == std::min(ring.time, tree.time));
        saw_tree = saw_tree || fastest == CollectiveAlgorithm::tree;
        saw_ring = saw_ring || fastest == CollectiveAlgorithm::ring;
    }
    CHECK(saw_tree);
    CHECK(saw_ring);
    // One entry with two sizes: each size's runs carry their own choice.
    scenario::CollectiveSpec both = spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::automatic, 64_KiB, 0);
    both.sizes = {64_KiB, 1_GiB};
    const auto sweep = run(cluster, both);
    REQUIRE(sweep.plan.runs.size() == 2);
    CHECK(sweep.plan.runs[0].algorithm == CollectiveAlgorithm::tree);
    CHECK(sweep.plan.runs[1].algorithm == CollectiveAlgorithm::ring);
}

TEST_CASE("auto picks NVLS inside an H100 server and SHARP across InfiniBand servers and ring across RoCE for 1 GiB", "[collective][auto]") {
    const auto one = run(hgx(1), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::automatic, 256_MiB, 0));
    CHECK(one.plan.runs.front().algorithm == CollectiveAlgorithm::nvls);
    const auto ib = run(hgx(4, true), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::automatic, 1_GiB, 0));
    CHECK(ib.plan.runs.front().algorithm == CollectiveAlgorithm::sharp);
    const auto roce = run(hgx(4), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::automatic, 1_GiB, 0));
    CHECK(roce.plan.runs.front().algorithm == CollectiveAlgorithm::ring);
}
