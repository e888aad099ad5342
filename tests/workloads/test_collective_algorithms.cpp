// Tree, hierarchical, NVLS and SHARP collectives and `algorithm: auto` on the ideal network,
// against their α–β forms (docs/models/collectives.md): α = the network's latency, B = the
// endpoint bandwidth (NIC across servers, the GPU's NVLink inside one).
#include <catch2/catch.hpp>

#include "workload_fixtures.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "workloads/collective.hpp"
#include "workloads/collective_algorithms.hpp"
#include "workloads/collective_tuner.hpp"
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
    Bandwidth nvls;  // the rate NVLS moves bytes through a GPU's NVLink
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
    o.nvls = net.nvls_bandwidth();
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

TEST_CASE("hierarchical all-reduce is intra reduce-scatter + inter all-reduce of S/g + intra all-gather",
          "[collective][hierarchical]") {
    // 4 servers of 8 GPUs, S = 4 MiB, one channel: one piece, every block one message, so the
    // time is the sum of the phases (within 1e-6: picosecond rounding of each transmission).
    const Bytes s = 4_MiB;
    auto a100_like = hgx(4);
    a100_like.server.nvlink.generation = "nvlink3";  // no NVLS: rings inside the server
    const auto o = run(a100_like, spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::hierarchical, s));
    const double intra = 7 * kAlpha.seconds() + 7.0 / 8 * secs(s, o.nvlink);
    const double inter = 2 * 3 * kAlpha.seconds() + 2.0 * 3 / 4 * secs(Bytes{s.count() / 8}, kB);
    CHECK(o.time.seconds() == Approx(2 * intra + inter).epsilon(1e-6));
    // With NVLS the inside phases are one NVSwitch operation each: α + S/B_NVLS.
    const auto nv = run(hgx(4), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::hierarchical, s));
    CHECK(nv.time.seconds() == Approx(2 * (kAlpha.seconds() + secs(s, nv.nvls)) + inter).epsilon(1e-6));
}

TEST_CASE("NVLS moves bytes at NCCL's nvlsEfficiency of the NVLink rate: 0.85 on NVLink4, 0.74 on NVLink5",
          "[collective][nvls]") {
    // NVIDIA/nccl src/tuning/nvls.cc: nvlsEfficiency Hopper 0.85, Blackwell 0.74.
    CHECK(run(hgx(1), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::nvls, 1_MiB)).nvls.bits_per_second() ==
          450'000'000'000LL * 8 * 17 / 20);
    auto b200 = hgx(1);
    b200.server.nvlink.generation = "nvlink5";
    b200.server.nvlink.link_bandwidth = 50_GBps;
    CHECK(run(b200, spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::nvls, 1_MiB)).nvls.bits_per_second() ==
          900'000'000'000LL * 8 * 37 / 50);
}

TEST_CASE("SHARP all-reduce replaces the inter-server ring by one aggregation of S/g", "[collective][sharp]") {
    // 2 MiB is one piece: NCCL's NVLS chunk falls to 16 KiB below 2 x 16 channels x 8 heads x
    // 32 KiB = 8 MiB, and a piece is 16 channels x 8 heads x 16 KiB = 2 MiB. The time is the
    // sum of the three phases: NVLS reduce-scatter, one aggregation per rail, NVLS all-gather.
    const Bytes s = 2_MiB;
    const auto o = run(hgx(4, true), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::sharp, s));
    const double intra = kAlpha.seconds() + secs(s, o.nvls);  // NVLS inside the server
    const double inter = kAlpha.seconds() + secs(Bytes{s.count() / 8}, kB);
    CHECK(o.time.seconds() == Approx(2 * intra + inter).epsilon(1e-6));
    CHECK(o.groups == 8 + 2 * 4);  // one aggregation per rail; NVLS reduce-scatter and all-gather per server
    // 4 MiB is two pieces of 2 MiB (chunk still 16 KiB: 4 MiB < 8 MiB): twice the groups, and
    // faster than the three phases one after the other, since piece 1's reduce-scatter runs
    // beside piece 0's aggregation.
    const Bytes s2 = 4_MiB;
    const auto two = run(hgx(4, true), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::sharp, s2));
    CHECK(two.groups == 2 * (8 + 2 * 4));
    const double serial = 2 * (kAlpha.seconds() + secs(s2, o.nvls)) + kAlpha.seconds() + secs(s2 / 8, kB);
    CHECK(two.time.seconds() < serial);
}

TEST_CASE("pipelined SHARP with NVLS all-reduce of 1 GiB: the fill plus S(1+1/g) at the NVLS rate",
          "[collective][sharp]") {
    // NCCL's NVLS chunk for 1 GiB is its default 128 KiB (1 GiB is not under 64 x 16 channels
    // x 8 heads x 128 KiB), so the pieces are P = 16 x 8 x 128 KiB = 16 MiB, 64 of them, taken
    // in order by three stages: NVLS reduce-scatter (P out of each GPU, P/g in), aggregation
    // (P/g up and down each NIC), NVLS all-gather (P/g out, P in). The fill is piece 0's
    // reduce-scatter and aggregation, before any all-gather runs; from then on each GPU's port
    // carries P + P/g per piece each way (one piece's reduce-scatter beside another's
    // all-gather) at the NVLS rate, which is slower than the NIC's P/g per piece:
    //   T = P/B_NVLS + (P/g)/B_NIC + S(1+1/g)/B_NVLS  (+ a few α: within 0.5 %).
    const Bytes s = 1_GiB;
    const Bytes piece = 16_MiB;
    const auto sharp = run(hgx(4, true), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::sharp, s));
    CHECK(sharp.groups == 64 * (8 + 2 * 4));
    const double fill = secs(piece, sharp.nvls) + secs(Bytes{piece.count() / 8}, kB);
    CHECK(sharp.time.seconds() == Approx(fill + secs(Bytes{s.count() + s.count() / 8}, sharp.nvls)).epsilon(0.005));
    // The ring needs 2(n-1)/n·S/8 through every NIC: slower.
    const auto ring = run(hgx(4, true), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, s, 16));
    CHECK(ring.time.seconds() == Approx(2.0 * 31 / 32 * secs(Bytes{s.count() / 8}, kB)).epsilon(0.03));
    CHECK(sharp.time < ring.time);
}

TEST_CASE("NVLS moves S(1+1/n) per GPU for all-reduce and S for reduce-scatter and all-gather", "[collective][nvls]") {
    const Bytes s = 1_GiB;
    const auto ar = run(hgx(1), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::nvls, s));
    CHECK(ar.time.seconds() ==
          Approx(kAlpha.seconds() + secs(Bytes{s.count() + s.count() / 8}, ar.nvls)).epsilon(1e-9));
    CHECK(ar.groups == 1);
    // busbw = algbw · 2(n-1)/n: 2·7/8 / (9/8) = 1.556 x the NVLS rate, 0.85 x 450 GB/s.
    const double busbw = static_cast<double>(s.count()) / ar.time.seconds() / 1e9 * 1.75;
    CHECK(busbw == Approx(1.75 / 1.125 * 450 * 0.85).epsilon(0.01));
    for (auto op : {CollectiveOp::reduce_scatter, CollectiveOp::all_gather}) {
        const auto o = run(hgx(1), spec_of(op, CollectiveAlgorithm::nvls, s));
        CHECK(o.time.seconds() == Approx(kAlpha.seconds() + secs(s, o.nvls)).epsilon(1e-9));
    }
}

TEST_CASE("NVLS and SHARP need a network that offers them", "[collective][nvls][sharp]") {
    auto a100 = hgx(1);
    a100.server.nvlink.generation = "nvlink3";
    CHECK(error_of(a100, spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::nvls, 1_MiB)) ==
          "all_reduce with algorithm nvls: the ideal network does not offer nvswitch_reduce over these 8 ranks (NVLS "
          "needs every rank on one server whose NVSwitches multicast and reduce: NVLink4 or later)");
    CHECK(
        error_of(hgx(2), spec_of(CollectiveOp::all_gather, CollectiveAlgorithm::nvls, 1_MiB)) ==
        "all_gather with algorithm nvls: the ideal network does not offer nvswitch_multicast over these 16 ranks (NVLS "
        "needs every rank on one server whose NVSwitches multicast and reduce: NVLink4 or later)");
    CHECK(
        error_of(hgx(2), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::sharp, 1_MiB)) ==
        "all_reduce with algorithm sharp: the ideal network does not offer switch_aggregation over these ranks (SHARP "
        "needs an InfiniBand fabric of switches with sharp: true, and a network model that runs it: ideal today)");
    CHECK(error_of(hgx(1, true), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::sharp, 1_MiB)) ==
          "all_reduce with algorithm sharp: needs ranks on more than one server");
    CHECK(error_of(hgx(2), spec_of(CollectiveOp::all_gather, CollectiveAlgorithm::tree, 1_MiB)) ==
          "all_gather with algorithm tree: the double binary tree runs all_reduce only (as in NCCL)");
}

TEST_CASE("auto chooses as NCCL's tuner does: tree when small and many servers and ring when large",
          "[collective][auto]") {
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

TEST_CASE("auto chooses per size of a sweep, and each choice is the fastest when each algorithm is run",
          "[collective][auto]") {
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
        const CollectiveAlgorithm fastest =
            tree.time < ring.time ? CollectiveAlgorithm::tree : CollectiveAlgorithm::ring;
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

TEST_CASE("auto picks NVLS inside an H100 server and SHARP across InfiniBand servers and ring across RoCE for 1 GiB",
          "[collective][auto]") {
    const auto one = run(hgx(1), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::automatic, 256_MiB, 0));
    CHECK(one.plan.runs.front().algorithm == CollectiveAlgorithm::nvls);
    const auto ib = run(hgx(4, true), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::automatic, 1_GiB, 0));
    CHECK(ib.plan.runs.front().algorithm == CollectiveAlgorithm::sharp);
    const auto roce = run(hgx(4), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::automatic, 1_GiB, 0));
    CHECK(roce.plan.runs.front().algorithm == CollectiveAlgorithm::ring);
}

// Above 8 GiB the tuner runs each candidate at 4 and 8 GiB and extrapolates along the line
// through the two (collective_tuner.cpp), so its cost stays that of an 8 GiB run: on the idle
// α–β model a run repeats one loop, so the line is its time at whole loops, and a size that
// ends in a short loop differs by what that loop's latency adds. The estimates are held to
// each candidate's own run at the size (4 hosts: ring and tree).
TEST_CASE("auto above 8 GiB extrapolates each candidate's run, as its run at the size gives it", "[collective][auto]") {
    const auto cluster = hosts(4);
    const workloads::RankLayout layout(cluster);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{kAlpha});
    for (Bytes size : {Bytes{std::int64_t{12} << 30}, Bytes{(std::int64_t{12} << 30) + 5}}) {
        const auto spec = spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::automatic, size, 0);
        const auto choice = workloads::choose_algorithm(spec, workloads::collective_group(spec, layout), size, layout,
                                                        &net, workloads::kMessageBytes);
        INFO(choice.reason);
        CHECK(choice.reason.find("run alone on the α–β model at 4GiB and 8GiB, extrapolated, ") != std::string::npos);
        REQUIRE(choice.estimates.size() == 2);  // ring and tree
        for (const auto& [algorithm, estimate] : choice.estimates) {
            INFO(workloads::to_string(algorithm) << " at " << size.count() << " B");
            const Time actual = run(cluster, spec_of(CollectiveOp::all_reduce, algorithm, size, 0)).time;
            if (size.count() % (std::int64_t{1} << 30) == 0)
                CHECK(estimate == actual);
            else  // one more loop of 5 bytes: a few α more, well under 0.01 %
                CHECK(std::abs((estimate - actual).seconds()) < 1e-4 * actual.seconds());
        }
    }
}
