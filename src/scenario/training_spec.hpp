// `- training: {...}` workload entries: a training job described by its model, batch, GPU and
// parallelism (docs/models/), turned into one iteration's compute and communication by
// src/workloads/training.cpp. The model and its formulas: docs/models/training.md.
//
//   - training:
//       model: { parameters: 70B, layers: 80, hidden: 8192, sequence: 4096, experts: 0, top_k: 1 }
//       batch: { global: 64, micro: 1 }
//       gpu: { peak: 989TFLOPS, mfu: 0.4 }
//       parallelism: { tp: 8, pp: 4, dp: 2, ep: 1, dp_mode: all_reduce }
//       recompute: none            # none | full
//       overlap: true              # DP gradient reduction overlapped with the last backward
//       placement: packed          # packed | random | topology_aware
//       ranks: 64                  # a count (= tp·pp·dp) or an explicit list
//       iterations: 2
#pragma once

#include "core/ids.hpp"
#include "core/units.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim::scenario {

enum class DpMode { all_reduce, zero };  // zero: reduce-scatter + all-gather (ZeRO-1/2)
enum class Recompute { none, full };     // full: one more forward in the backward
enum class Placement { packed, random, topology_aware };

struct TrainingModelSpec {
    std::int64_t parameters = 0;  // total, experts included
    int layers = 0;
    int hidden = 0;
    int sequence = 0;  // tokens per sequence
    int experts = 0;   // 0: a dense model; else every layer's FFN is a mixture of experts
    int top_k = 1;     // experts each token visits (MoE only)
    bool operator==(const TrainingModelSpec&) const = default;
};

struct TrainingSpec {
    TrainingModelSpec model;
    int global_batch = 0;         // sequences per iteration
    int micro_batch = 1;          // sequences per micro-batch
    std::int64_t peak_flops = 0;  // per GPU, FLOP/s (dense bf16 peak of the datasheet)
    double mfu = 0.4;             // fraction of the peak sustained on the FLOPs executed
    int tp = 1, pp = 1, dp = 1, ep = 1;
    DpMode dp_mode = DpMode::all_reduce;
    Recompute recompute = Recompute::none;
    bool overlap = true;
    Placement placement = Placement::packed;
    std::vector<RankId> ranks;  // explicit ranks in job order; empty: placed (tp·pp·dp of them)
    int iterations = 1;
    bool operator==(const TrainingSpec&) const = default;

    int gpus() const { return tp * pp * dp; }
    int micro_batches() const { return global_batch / (micro_batch * dp); }  // per pipeline, per iteration
};

}  // namespace fabricsim::scenario
