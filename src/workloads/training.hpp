// `- training:` entries: a training job's iterations as compute and communication ops, the way
// Megatron-LM runs them (Narayanan et al., "Efficient Large-Scale Language Model Training on
// GPU Clusters Using Megatron-LM", SC'21), docs/models/training.md.
//
//   compute per GPU and iteration  = c · (P_active + 2·L·s·h) · tokens / (tp · pp · dp) / (peak · mfu)
//                                    c = 6 (forward 2 + backward 4; Kaplan et al. 2020),
//                                    c = 8 with full recomputation (one more forward);
//                                    2·L·s·h: the attention scores (SC'21 eq. 3's s/6h term)
//   schedule                       = 1F1B (PipeDream-Flush) per pipeline stage, m micro-batches
//   TP (per stage, per micro-batch) = all-reduce of 2·L_stage·b·s·h·2 B forward, as much backward
//                                    (twice as much with recomputation), inside the TP group
//   PP                             = b·s·h·2/tp B per TP rank to the next (prev.) stage
//   EP (MoE)                       = all-to-all of 2·L_stage·b·s·h·k·2/tp B per rank each way
//   DP                             = gradients 2 B/param of the rank's stage share: ring
//                                    all-reduce, or reduce-scatter + all-gather (dp_mode: zero),
//                                    in buckets that start during the stage's last backward
//
// Collectives are planned by add_collective (ring, pairwise) over a ranks list; each of their
// sends carries one ring step's block (S/(channels·n)) rather than NCCL's 512 KiB messages, so
// an iteration of a 64-GPU job is ~10^5 ops instead of ~10^8.
#pragma once

#include "core/network.hpp"
#include "scenario/spec.hpp"
#include "workloads/executor.hpp"
#include "workloads/op_graph.hpp"
#include "workloads/rank_layout.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace fabricsim::workloads {

// What an op of a training job is for; the breakdown adds up time per kind.
enum class TrainingOpKind : std::uint8_t { compute, tp, pp, dp, ep, sync };
inline constexpr int kCommKinds = 4;  // tp, pp, dp, ep: index = kind − 1

// first_op, end_op, kinds, streams, start and iteration_end describe the job's whole graph
// (add_training); a job run as a program (training_program.hpp) leaves them empty.
struct TrainingPlan {
    std::uint32_t entry = 0;
    std::uint32_t first_op = 0;
    std::uint32_t end_op = 0;
    // The job's ranks in Megatron order: ranks[t + tp·(d + dp·p)] is TP rank t of data-parallel
    // replica d in pipeline stage p.
    std::vector<RankId> ranks;
    int tp = 1, pp = 1, dp = 1, ep = 1;
    int micro_batches = 0;
    std::vector<TrainingOpKind> kinds;  // per op in [first_op, end_op)
    // Its collectives that run as streams (member_stream.hpp: rings and all-to-alls): the
    // graph's stream index, what they are for and the iteration that made them.
    struct StreamRef {
        std::uint32_t stream = 0;
        TrainingOpKind kind = TrainingOpKind::dp;
        int iteration = 0;
    };
    std::vector<StreamRef> streams;
    OpId start;                       // zero-time op every first op waits for
    std::vector<OpId> iteration_end;  // zero-time barrier closing each iteration
    Time compute_per_rank;            // one iteration's compute on one GPU (exact sum of its ops)
    double flops_per_rank = 0;        // FLOPs one GPU executes per iteration, recomputation included

    RankId rank(int t, int d, int p) const {
        const auto u = [](int v) { return static_cast<std::size_t>(v); };
        return ranks[u(t) + u(tp) * (u(d) + u(dp) * u(p))];
    }
    TrainingOpKind kind(std::uint32_t op) const { return kinds[op - first_op]; }
};

// Told the graph's op count as a job's graph grows (a front end's progress while it builds).
using BuildProgressFn = std::function<void(std::size_t ops)>;

// The job's ranks and figures without its ops (place_training, training_steps.hpp's shape):
// what add_training and the job's program (training_program.hpp) start from.
TrainingPlan plan_training(const scenario::TrainingSpec& spec, const scenario::ClusterSpec& cluster,
                           std::uint32_t entry, const std::string& name, std::uint64_t seed,
                           const std::vector<TrainingPlan>& earlier);

// The job as a whole graph (tests compare it with the program, which the runs use).
// `earlier` holds the plans of the training entries before this one: their ranks are taken.
// Throws ConfigError (no file position) when the job does not fit in the ranks left.
// `built`, when set, is called after each pipeline step is built.
TrainingPlan add_training(OpGraph& graph, std::uint32_t entry, const scenario::TrainingSpec& spec,
                          const scenario::ClusterSpec& cluster, const Network& network, std::uint64_t seed,
                          const std::vector<TrainingPlan>& earlier, const BuildProgressFn& built = {});

// The job's ranks in Megatron order, chosen by spec.placement among the ranks not in `taken`
// (placement rules: docs/models/training.md). `name` seeds `random`.
std::vector<RankId> place_training(const scenario::TrainingSpec& spec, const RankLayout& layout,
                                   const std::vector<bool>& taken, std::uint64_t seed, const std::string& name,
                                   const std::string& key_path);

// One iteration on its critical rank: compute + bubble + Σ exposed = time, exactly.
struct TrainingBreakdown {
    Time time;
    Time compute;
    Time bubble;                             // waiting on other ranks' compute
    std::array<Time, kCommKinds> exposed{};  // waiting on tp, pp, dp, ep communication
    RankId critical;
    Time exposed_total() const { return exposed[0] + exposed[1] + exposed[2] + exposed[3]; }
};

enum class LinkClass { nvlink, pcie, fabric };

struct TrainingMeasurement {
    std::vector<TrainingBreakdown> iterations;
    std::array<Bytes, 3> link_bytes{};                    // per iteration, by LinkClass
    std::array<Bytes, kCommKinds> critical_rank_bytes{};  // sent by the last iteration's critical rank
    std::size_t ops = 0;
};

// Link class of a send between two ranks: NVLink inside a server that has it, PCIe inside one
// without, the fabric between servers (GPUDirect bytes also cross PCIe but count as fabric).
LinkClass link_class(RankId src, RankId dst, const scenario::ClusterSpec& cluster, const RankLayout& layout);

TrainingMeasurement measure_training(const TrainingPlan& plan, const OpGraph& graph,
                                     const std::vector<OpTiming>& timings, const scenario::ClusterSpec& cluster);

}  // namespace fabricsim::workloads
