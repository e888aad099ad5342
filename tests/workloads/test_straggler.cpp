// Stragglers (faults: straggler; docs/models/faults.md): a GPU that computes k times slower for
// a while, on the ideal model. Expected times by hand from the 1F1B schedule.
#include <catch2/catch.hpp>

#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "workloads/executor.hpp"
#include "workloads/straggler.hpp"
#include "workloads/training.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using workloads::compute_finish;
using workloads::Straggler;

TEST_CASE("a compute op runs at 1/k of its rate inside a straggler window and is split at its edges", "[straggler]") {
    const std::vector<Straggler> s{{RankId{1}, 2_us, 4_us, 3.0}};
    // Another rank, or no overlap: the duration as given.
    CHECK(compute_finish(Time::zero(), 10_us, RankId{0}, s) == 10_us);
    CHECK(compute_finish(5_us, 10_us, RankId{1}, s) == 15_us);
    CHECK(compute_finish(Time::zero(), 1_us, RankId{1}, s) == 1_us);
    // 2 us at full rate, the 2 us window does 2/3 us of work, the remaining 7 1/3 us at full
    // rate: 4 us + 7.333 us.
    CHECK(compute_finish(Time::zero(), 10_us, RankId{1}, s) == Time::ps(11'333'333));
    // Entirely inside: k times as long.
    CHECK(compute_finish(2_us, Time::ns(500), RankId{1}, s) == Time::ns(3500));
    // An open window from 1 us: 1 us at full rate, then 9 us of work at 1/2.
    const std::vector<Straggler> open{{RankId{1}, 1_us, Time::max(), 2.0}};
    CHECK(compute_finish(Time::zero(), 10_us, RankId{1}, open) == 19_us);
}

TEST_CASE("a straggler in the last pipeline stage stretches a 1F1B iteration to m·k·(f+b) + (f+b)",
          "[straggler][training][pipeline]") {
    // Two stages (pp = 2), one GPU each (tp = dp = 1), m micro-batches, communication free
    // (zero latency, ~infinite bandwidth). f, b: a micro-batch's forward and backward on a
    // stage (b = 2f, Megatron's 2:4 FLOPs); stage 1's GPU runs k = 2 times slower all along.
    // 1F1B order: stage 0 F0, F1, B0, F2, B1, ...; stage 1 F0, B0, F1, B1, ...
    //   stage 0 F0 ends f; stage 1 then runs F0 B0 F1 B1 ... back to back from f, each
    //   F_j B_j pair taking k(f+b), as stage 0 has F_{j+1} ready in time: F_{j+1} ends at
    //   f + j·k(f+b) + b + f ≤ f + (j+1)·k(f+b) when (f+b) ≤ k(f+b);
    //   stage 0's B_{m−1} starts when stage 1's ends, at f + m·k(f+b), and takes b:
    //   T = f + m·k(f+b) + b = m·k·(f+b) + (f+b).
    // Without the straggler (k = 1) the same schedule gives (m + 1)(f+b), the 1F1B
    // (m + p − 1)(f+b).
    scenario::ClusterSpec cluster;
    cluster.servers = 2;
    cluster.server.gpus = 8;
    cluster.server.nics = 8;
    cluster.server.nic.line_rate = Bandwidth::Gbps(100'000'000);
    cluster.server.nvlink.links_per_gpu = 18;
    cluster.server.nvlink.link_bandwidth = Bandwidth::Gbps(100'000'000);
    scenario::TrainingSpec spec;
    spec.model.parameters = 7'000'000'000;
    spec.model.layers = 32;
    spec.model.hidden = 4096;
    spec.model.sequence = 2048;
    const int m = 8;
    spec.global_batch = m;
    spec.peak_flops = 989'000'000'000'000;
    spec.pp = 2;
    const double k = 2.0;

    const auto iteration = [&](std::vector<Straggler> stragglers, workloads::TrainingPlan& plan) {
        Simulator sim(1);
        fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{Time::zero()});
        workloads::OpGraph g;
        const auto e = g.add_entry("job");
        plan = workloads::add_training(g, e, spec, cluster, net, 1, {});
        workloads::Executor ex(std::move(g), net);
        for (auto& s : stragglers) s.rank = plan.rank(0, 0, 1);
        ex.set_stragglers(std::move(stragglers));
        ex.start(sim);
        sim.run();
        REQUIRE(ex.ops_done() == ex.ops_total());
        return workloads::measure_training(plan, ex.graph(), ex.op_timings(), cluster).iterations.at(0).time;
    };
    workloads::TrainingPlan plan;
    const Time healthy = iteration({}, plan);
    const double fb = plan.compute_per_rank.seconds() / m;  // f + b of one micro-batch on a stage
    CHECK(healthy.seconds() == Approx((m + 1) * fb).epsilon(1e-4));
    const Time slow = iteration({Straggler{RankId{0}, Time::zero(), Time::max(), k}}, plan);
    CHECK(slow.seconds() == Approx(m * k * fb + fb).epsilon(1e-4));
    // The same GPU slowed only in a window that closes as the job starts: no effect.
    CHECK(iteration({Straggler{RankId{0}, Time::zero(), Time::zero(), k}}, plan) == healthy);
}
