// Training jobs on the ideal network: compute from 6·P·tokens (Narayanan et al. SC'21, Kaplan
// et al. 2020), the 1F1B bubble (p−1)/(m+p−1), DP ring volumes 2(n−1)/n·G, bytes per link
// class by hand, placements (docs/models/training.md).
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "training_fixtures.hpp"
#include "workloads/executor.hpp"
#include "workloads/training.hpp"

#include <algorithm>
#include <set>

using namespace fabricsim;
using namespace fabricsim::literals;
using scenario::TrainingSpec;
using workloads::Executor;
using workloads::OpGraph;
using workloads::TrainingOpKind;

namespace {

scenario::ClusterSpec hgx(int servers, Bandwidth nic = 400_Gbps) {
    scenario::ClusterSpec c;
    c.servers = servers;
    c.server.gpus = 8;
    c.server.nics = 8;
    c.server.nic.line_rate = nic;
    c.server.nvlink.links_per_gpu = 18;
    c.server.nvlink.link_bandwidth = 25_GBps;
    return c;
}

TrainingSpec dense(std::int64_t parameters, int tp, int pp, int dp, int global_batch) {
    return test::dense_job(parameters, tp, pp, dp, global_batch);
}

struct Run {
    workloads::TrainingPlan plan;
    workloads::TrainingMeasurement m;
    std::vector<workloads::Op> ops;
};

Run run(const scenario::ClusterSpec& cluster, const TrainingSpec& spec, Time latency = 2_us) {
    Simulator sim(1);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{latency});
    OpGraph g;
    const auto e = g.add_entry("job");
    Run r;
    r.plan = workloads::add_training(g, e, spec, cluster, net, 1, {});
    r.ops = g.ops();
    Executor ex(std::move(g), net);
    ex.start(sim);
    sim.run();
    REQUIRE(ex.ops_done() == ex.ops_total());
    r.m = workloads::measure_training(r.plan, ex.graph(), ex.op_timings(), cluster);
    return r;
}

double flops_time(double flops, const TrainingSpec& s) { return flops / (static_cast<double>(s.peak_flops) * s.mfu); }

// Forward FLOPs of the attention scores per token: 4·s·h per layer (SC'21 eq. 3's s/6h term).
double attention_scores(const TrainingSpec& s) { return 4.0 * s.model.layers * s.model.sequence * s.model.hidden; }

void check_adds_up(const workloads::TrainingMeasurement& m) {
    REQUIRE_FALSE(m.iterations.empty());
    for (const auto& it : m.iterations) {
        CHECK(it.compute + it.bubble + it.exposed_total() == it.time);
        CHECK(it.bubble >= Time::zero());
        for (Time e : it.exposed) CHECK(e >= Time::zero());
    }
}

}  // namespace

TEST_CASE("dense compute per GPU is 3·(2·P + 4·L·s·h)·tokens/(tp·pp·dp) over peak·MFU", "[training][compute]") {
    auto spec = dense(7'000'000'000, 2, 2, 2, 16);
    const auto r = run(hgx(1), spec);
    const double tokens = 16.0 * 2048;
    const double expected = flops_time(3.0 * (2.0 * 7e9 + attention_scores(spec)) * tokens / 8, spec);
    REQUIRE(r.m.iterations.size() == 1);
    CHECK(r.m.iterations[0].compute.seconds() == Approx(expected).epsilon(1e-9));
    CHECK(r.plan.compute_per_rank.seconds() == Approx(expected).epsilon(1e-9));
    CHECK(r.plan.flops_per_rank == Approx(3.0 * (2.0 * 7e9 + attention_scores(spec)) * tokens / 8).epsilon(1e-12));
}

TEST_CASE("full recomputation makes it one forward more", "[training][compute]") {
    auto spec = dense(7'000'000'000, 2, 2, 2, 16);
    spec.recompute = scenario::Recompute::full;
    const auto r = run(hgx(1), spec);
    const double expected = flops_time(4.0 * (2.0 * 7e9 + attention_scores(spec)) * 16 * 2048 / 8, spec);
    CHECK(r.m.iterations[0].compute.seconds() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("a mixture of experts computes with its active parameters", "[training][compute][moe]") {
    auto spec = dense(40'000'000'000, 1, 2, 4, 16);
    spec.model.experts = 8;
    spec.model.top_k = 2;
    spec.ep = 2;
    const auto r = run(hgx(1), spec);
    const double attention = 4.0 * 4096 * 4096 * 32;
    const double active = attention + (40e9 - attention) * 2 / 8;
    const double expected = flops_time(3.0 * (2.0 * active + attention_scores(spec)) * 16 * 2048 / 8, spec);
    CHECK(r.m.iterations[0].compute.seconds() == Approx(expected).epsilon(1e-9));
    CHECK(r.m.iterations[0].exposed[3] > Time::zero());  // the EP all-to-alls are on the path
    check_adds_up(r.m);
}

TEST_CASE("the breakdown adds up to the iteration time exactly", "[training][breakdown]") {
    SECTION("tp pp dp") {
        auto spec = dense(7'000'000'000, 4, 2, 4, 32);
        spec.iterations = 2;
        const auto r = run(hgx(4), spec);
        REQUIRE(r.m.iterations.size() == 2);
        check_adds_up(r.m);
        // Iterations are alike on the ideal network (to the ps of compute rounding).
        CHECK(r.m.iterations[0].time.seconds() == Approx(r.m.iterations[1].time.seconds()).epsilon(1e-9));
        CHECK(r.m.iterations[0].exposed[0] > Time::zero());
    }
    SECTION("zero without overlap") {
        auto spec = dense(7'000'000'000, 8, 1, 2, 8);
        spec.dp_mode = scenario::DpMode::zero;
        spec.overlap = false;
        const auto r = run(hgx(2), spec);
        check_adds_up(r.m);
        CHECK(r.m.iterations[0].exposed[2] > Time::zero());  // the DP reduction ends the iteration
    }
    SECTION("moe with recomputation") {
        auto spec = dense(40'000'000'000, 2, 2, 4, 16);
        spec.model.experts = 8;
        spec.model.top_k = 2;
        spec.ep = 2;
        spec.recompute = scenario::Recompute::full;
        check_adds_up(run(hgx(2), spec).m);
    }
}

TEST_CASE("with free communication the 1F1B bubble is (p-1)/(m+p-1) of the iteration", "[training][pipeline]") {
    // Each stage on its own server; bandwidth so high and latency zero that sends take ~0.
    auto cluster = hgx(4, Bandwidth::Gbps(100'000'000));
    cluster.server.nvlink.link_bandwidth = Bandwidth::Gbps(100'000'000);
    for (int m : {4, 8, 16}) {
        auto spec = dense(7'000'000'000, 8, 4, 1, m);
        spec.tp = 1;
        spec.dp = 1;
        const auto r = run(cluster, spec, Time::zero());
        const auto& it = r.m.iterations.at(0);
        INFO("m = " << m);
        const double p = 4;
        CHECK(it.bubble.seconds() / it.time.seconds() == Approx((p - 1) / (m + p - 1)).epsilon(0.01));
        check_adds_up(r.m);
    }
}

TEST_CASE("DP ring all-reduce sends 2(n-1)/n of the gradients per rank, and bytes by link class by hand",
          "[training][dp][bytes]") {
    // TP = 8 inside each server, DP = 2 across two servers, one stage.
    auto spec = dense(8'000'000'000, 8, 1, 2, 4);
    spec.overlap = false;
    const auto r = run(hgx(2), spec);
    const std::int64_t grads = 2 * 8'000'000'000 / 8;  // bf16 gradients of a TP rank's share
    const int n = 2;
    CHECK(r.m.critical_rank_bytes[2].count() == 2 * (n - 1) * grads / n);

    // By hand: every TP all-reduce of S over 8 GPUs moves 2·7·S on NVLink; per iteration
    // m = 2 micro-batches × (forward + backward) × 2 replicas; each of the 8 DP groups moves
    // 2(n−1)·G = 2G across the fabric. No PP, no PCIe.
    const std::int64_t s_tp = 2 * 32 * (1 * 2048 * 4096 * 2);
    const std::int64_t m = 2;
    CHECK(r.m.link_bytes[0].count() == m * 2 * 2 * 14 * s_tp);
    CHECK(r.m.link_bytes[1].count() == 0);
    CHECK(r.m.link_bytes[2].count() == 8 * 2 * (n - 1) * grads);
}

TEST_CASE("ZeRO's reduce-scatter plus all-gather moves what the all-reduce moves", "[training][dp]") {
    auto spec = dense(8'000'000'000, 8, 1, 2, 4);
    spec.overlap = false;
    const auto all_reduce = run(hgx(2), spec);
    spec.dp_mode = scenario::DpMode::zero;
    const auto zero = run(hgx(2), spec);
    CHECK(zero.m.critical_rank_bytes[2] == all_reduce.m.critical_rank_bytes[2]);
    CHECK(zero.m.link_bytes == all_reduce.m.link_bytes);
}

TEST_CASE("overlapped gradient buckets hide DP time behind the last backward", "[training][dp]") {
    auto spec = dense(8'000'000'000, 8, 1, 2, 4);
    spec.overlap = false;
    const auto plain = run(hgx(2), spec);
    spec.overlap = true;
    const auto overlapped = run(hgx(2), spec);
    CHECK(overlapped.m.iterations[0].time < plain.m.iterations[0].time);
    CHECK(overlapped.m.iterations[0].exposed[2] < plain.m.iterations[0].exposed[2]);
    check_adds_up(overlapped.m);
}

TEST_CASE("pipeline sends carry b·s·h·2/tp bytes between adjacent stages", "[training][pipeline][bytes]") {
    auto spec = dense(7'000'000'000, 2, 4, 1, 8);
    const auto r = run(hgx(1), spec);
    std::int64_t pp_sends = 0;
    for (std::uint32_t i = r.plan.first_op; i < r.plan.end_op; ++i)
        if (r.plan.kind(i) == TrainingOpKind::pp) {
            ++pp_sends;
            CHECK(r.ops[i].size.count() == 2048 * 4096 * 2 / 2);
        }
    // m micro-batches × 3 stage boundaries × 2 directions × tp ranks.
    CHECK(pp_sends == 8 * 3 * 2 * 2);
}

namespace {

std::vector<workloads::TrainingPlan> place(const scenario::ClusterSpec& cluster, std::vector<TrainingSpec> specs) {
    Simulator sim(1);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{});
    OpGraph g;
    std::vector<workloads::TrainingPlan> plans;
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const auto e = g.add_entry("job" + std::to_string(i));
        plans.push_back(workloads::add_training(g, e, specs[i], cluster, net, 7, plans));
    }
    return plans;
}

}  // namespace

TEST_CASE("placements put TP groups where documented", "[training][placement]") {
    const auto cluster = hgx(4);
    const workloads::RankLayout layout(cluster);
    auto small = dense(1'000'000'000, 4, 1, 1, 4);  // 4 GPUs: half of server 0
    auto job = dense(1'000'000'000, 8, 2, 1, 4);    // two stages of TP = 8

    SECTION("packed: the next free ranks, so a TP group may straddle servers") {
        const auto plans = place(cluster, {small, job});
        CHECK(plans[1].rank(0, 0, 0).value() == 4);
        CHECK(plans[1].rank(7, 0, 0).value() == 11);
        CHECK_FALSE(layout.same_server(plans[1].rank(0, 0, 0), plans[1].rank(7, 0, 0)));
    }
    SECTION("topology_aware: each TP group inside one server, on whole free servers") {
        job.placement = scenario::Placement::topology_aware;
        const auto plans = place(cluster, {small, job});
        for (int p = 0; p < 2; ++p)
            for (int t = 0; t < 8; ++t) {
                CHECK(layout.server(plans[1].rank(t, 0, p)) == 1 + p);
                CHECK(layout.local(plans[1].rank(t, 0, p)) == t);
            }
    }
    SECTION("topology_aware: DP groups on one rail when tp·pp fills servers") {
        auto wide = dense(1'000'000'000, 4, 2, 2, 4);
        wide.placement = scenario::Placement::topology_aware;
        const auto plans = place(cluster, {wide});
        for (int p = 0; p < 2; ++p)
            for (int t = 0; t < 4; ++t) {
                const RankId a = plans[0].rank(t, 0, p), b = plans[0].rank(t, 1, p);
                CHECK(layout.server(a) != layout.server(b));
                CHECK(layout.rail(a) == layout.rail(b));
                // adjacent stages share a server
                CHECK(layout.same_server(plans[0].rank(t, 0, 0), plans[0].rank(t, 0, 1)));
            }
    }
    SECTION("random: seeded, repeatable, and away from earlier jobs") {
        job.placement = scenario::Placement::random;
        const auto a = place(cluster, {small, job});
        const auto b = place(cluster, {small, job});
        CHECK(a[1].ranks == b[1].ranks);
        std::set<std::uint32_t> seen;
        for (RankId r : a[1].ranks) seen.insert(r.value());
        CHECK(seen.size() == 16);
        for (RankId r : a[0].ranks) CHECK(seen.count(r.value()) == 0);
        std::vector<RankId> sorted = a[1].ranks;
        std::sort(sorted.begin(), sorted.end());
        CHECK(sorted != a[1].ranks);  // not the packed order
    }
}

TEST_CASE("two jobs share the fabric without sharing ranks", "[training][placement]") {
    const auto cluster = hgx(2);
    const auto plans = place(cluster, {dense(1'000'000'000, 4, 1, 2, 4), dense(1'000'000'000, 8, 1, 1, 4)});
    std::set<std::uint32_t> first;
    for (RankId r : plans[0].ranks) first.insert(r.value());
    for (RankId r : plans[1].ranks) CHECK(first.count(r.value()) == 0);
    CHECK(plans[1].rank(0, 0, 0).value() == 8);
}

TEST_CASE("a job that does not fit in the ranks left gives the exact error", "[training][placement]") {
    const auto cluster = hgx(2);
    try {
        place(cluster, {dense(1'000'000'000, 4, 1, 1, 4), dense(1'000'000'000, 8, 1, 2, 4)});
        FAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
        REQUIRE(e.issues().size() == 1);
        CHECK(e.issues()[0].str() ==
              "workload[1].training.ranks: the job needs 16 GPUs; 12 of the cluster's 16 ranks are free after the "
              "training jobs before it");
    }
    auto aware = dense(1'000'000'000, 8, 1, 1, 4);
    aware.placement = scenario::Placement::topology_aware;
    auto listed = dense(1'000'000'000, 4, 1, 1, 4);
    listed.ranks = {RankId{8}, RankId{9}, RankId{10}, RankId{11}};  // half of server 1
    try {
        place(cluster, {dense(1'000'000'000, 4, 1, 1, 4), listed, aware});
        FAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
        CHECK(e.issues()[0].str() ==
              "workload[2].training.ranks: the job needs 8 GPUs as 1 groups of 8 aligned GPUs in one server (found 0 "
              "such groups); 8 of the cluster's 16 ranks are free after the training jobs before it");
    }
}

TEST_CASE("a 64-GPU 70B-class job builds a modest op graph", "[training][scale]") {
    auto spec = dense(70'000'000'000, 8, 4, 2, 64);
    spec.model.layers = 80;
    spec.model.hidden = 8192;
    spec.model.sequence = 4096;
    Simulator sim(1);
    const auto cluster = hgx(8);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{});
    OpGraph g;
    const auto plan = workloads::add_training(g, g.add_entry("llama"), spec, cluster, net, 1, {});
    CHECK(plan.end_op - plan.first_op < 1'000'000);
}
