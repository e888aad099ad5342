// A training job as a program (training_program.hpp) against the same job as a whole graph
// (add_training, measured by measure_training's walk): the program makes the graph's ops in
// the graph's order, so the two runs are the same run — every breakdown figure, byte count and
// finish time equal to the picosecond — while the program holds only a few steps' ops at once.
#include <catch2/catch.hpp>

#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "training_fixtures.hpp"
#include "workloads/executor.hpp"
#include "workloads/training.hpp"
#include "workloads/training_program.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using scenario::TrainingSpec;

namespace {

scenario::ClusterSpec hgx(int servers) {
    scenario::ClusterSpec c;
    c.servers = servers;
    c.server.gpus = 8;
    c.server.nics = 8;
    c.server.nic.line_rate = 400_Gbps;
    c.server.nvlink.links_per_gpu = 18;
    c.server.nvlink.link_bandwidth = 25_GBps;
    return c;
}

TrainingSpec job(int tp, int pp, int dp, int global_batch) {
    return test::dense_job(7'000'000'000, tp, pp, dp, global_batch);
}

struct Outcome {
    workloads::TrainingMeasurement m;
    Time last_finish;
    std::size_t ops_done = 0, ops_total = 0;
    std::size_t graph_ops = 0;  // the whole graph's size; for the program, the most ops it held
    Time compute_per_rank;
};

std::vector<workloads::Straggler> slow_rank(const workloads::TrainingPlan& plan) {
    return {workloads::Straggler{plan.rank(0, 0, plan.pp - 1), 1_ms, Time::max(), 1.5}};
}

Outcome as_graph(const scenario::ClusterSpec& cluster, const TrainingSpec& spec, bool straggler) {
    Simulator sim(1);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{2_us});
    workloads::OpGraph g;
    const auto e = g.add_entry("job");
    const auto plan = workloads::add_training(g, e, spec, cluster, net, 3, {});
    Outcome o;
    o.graph_ops = g.ops().size();
    o.compute_per_rank = plan.compute_per_rank;
    workloads::Executor ex(std::move(g), net);
    if (straggler) ex.set_stragglers(slow_rank(plan));
    ex.start(sim);
    sim.run();
    o.m = workloads::measure_training(plan, ex.graph(), ex.op_timings(), cluster);
    o.last_finish = ex.last_finish();
    o.ops_done = ex.ops_done();
    o.ops_total = ex.ops_total();
    return o;
}

Outcome as_program(const scenario::ClusterSpec& cluster, const TrainingSpec& spec, bool straggler) {
    Simulator sim(1);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{2_us});
    workloads::OpGraph g;
    const auto e = g.add_entry("job");
    auto plan = workloads::plan_training(spec, cluster, e, "job", 3, {});
    auto program = std::make_unique<workloads::TrainingProgram>(spec, cluster, net, plan);
    const workloads::TrainingProgram* view = program.get();
    workloads::Executor ex(std::move(g), net);
    ex.set_program(e, std::move(program));
    if (straggler) ex.set_stragglers(slow_rank(plan));
    ex.start(sim);
    sim.run();
    Outcome o;
    o.m = view->measurement();
    o.last_finish = ex.last_finish();
    o.ops_done = ex.ops_done();
    o.ops_total = ex.ops_total();
    o.graph_ops = view->peak_ops();
    o.compute_per_rank = plan.compute_per_rank;
    return o;
}

void same_run(const scenario::ClusterSpec& cluster, const TrainingSpec& spec, bool straggler = false) {
    const Outcome g = as_graph(cluster, spec, straggler);
    const Outcome p = as_program(cluster, spec, straggler);
    REQUIRE(g.ops_done == g.ops_total);
    REQUIRE(p.ops_done == p.ops_total);
    CHECK(p.ops_total == g.ops_total);  // the program's closed-form count is the graph's
    CHECK(p.m.ops == g.m.ops);
    CHECK(p.last_finish == g.last_finish);
    CHECK(p.compute_per_rank == g.compute_per_rank);
    REQUIRE(p.m.iterations.size() == g.m.iterations.size());
    REQUIRE(g.m.iterations.size() == static_cast<std::size_t>(spec.iterations));
    for (std::size_t i = 0; i < g.m.iterations.size(); ++i) {
        const auto& a = g.m.iterations[i];
        const auto& b = p.m.iterations[i];
        CHECK(b.time == a.time);
        CHECK(b.compute == a.compute);
        CHECK(b.bubble == a.bubble);
        for (std::size_t k = 0; k < a.exposed.size(); ++k) CHECK(b.exposed[k] == a.exposed[k]);
        CHECK(b.critical == a.critical);
        // compute + bubble + Σ exposed tiles the iteration (training_measure.cpp).
        CHECK(b.compute + b.bubble + b.exposed_total() == b.time);
    }
    CHECK(p.m.link_bytes == g.m.link_bytes);
    CHECK(p.m.critical_rank_bytes == g.m.critical_rank_bytes);
    // What the program holds at once is a few steps of the schedule, not the whole graph.
    CHECK(p.graph_ops < g.graph_ops);
}

}  // namespace

TEST_CASE("a training program runs its graph's ops: TP, PP and DP rings", "[training][program]") {
    auto spec = job(8, 4, 2, 16);
    spec.iterations = 2;
    spec.placement = scenario::Placement::topology_aware;
    same_run(hgx(8), spec);
}

TEST_CASE("a training program runs its graph's ops: DP without overlap, recomputation, a straggler",
          "[training][program]") {
    auto spec = job(4, 2, 2, 8);
    spec.overlap = false;
    spec.recompute = scenario::Recompute::full;
    same_run(hgx(2), spec, true);
}

TEST_CASE("a training program runs its graph's ops: ZeRO and whole collectives on a random placement",
          "[training][program]") {
    // Random placement: the TP and DP groups are no sorted rank lists, so their rings are
    // built whole (add_collective) inside the program rather than streamed.
    auto spec = job(2, 2, 4, 16);
    spec.dp_mode = scenario::DpMode::zero;
    spec.placement = scenario::Placement::random;
    spec.iterations = 2;
    same_run(hgx(2), spec);
}

TEST_CASE("a training program runs its graph's ops: a mixture of experts", "[training][program][moe]") {
    auto spec = job(2, 2, 4, 8);
    spec.model.parameters = 47'000'000'000;
    spec.model.experts = 8;
    spec.model.top_k = 2;
    spec.ep = 2;
    same_run(hgx(2), spec);
}

TEST_CASE("a mixture of experts runs its all-to-alls as streams, none of their sends in its graph",
          "[training][program][moe]") {
    // The same job as above: every EP all-to-all (an EP group of this placement is a sorted
    // rank list, its members gated one each or all by one op) is an AllToAllStream in the graph
    // (all_to_all_stream.hpp), whose sends exist only in flight, instead of c·n·(n−1) sends.
    auto spec = job(2, 2, 4, 8);
    spec.model.parameters = 47'000'000'000;
    spec.model.experts = 8;
    spec.model.top_k = 2;
    spec.ep = 2;
    fabric::IdealNetwork net(hgx(2), scenario::IdealNetworkSpec{2_us});
    workloads::OpGraph g;
    const auto e = g.add_entry("job");
    const auto plan = workloads::add_training(g, e, spec, hgx(2), net, 3, {});
    std::size_t ep_streams = 0, ep_sends = 0;
    for (const auto& s : plan.streams) ep_streams += s.kind == workloads::TrainingOpKind::ep ? 1 : 0;
    for (std::uint32_t i = plan.first_op; i < g.ops().size(); ++i)
        ep_sends += g.ops()[i].kind == workloads::OpKind::send && plan.kind(i) == workloads::TrainingOpKind::ep;
    CHECK(ep_streams > 0);
    CHECK(ep_sends == 0);
}
