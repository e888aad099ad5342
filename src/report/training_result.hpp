// What a `training` entry produced, in engine units (docs/models/training.md): the mean
// iteration and its split on the critical rank, compute + bubble + Σ exposed = iteration.
#pragma once

#include "core/units.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace fabricsim::report {

struct TrainingResult {
    std::string name;
    int ranks = 0;
    int iterations = 0;    // measured (whole) iterations
    std::int64_t ops = 0;  // ops the job added to the graph
    Time iteration_time;   // mean over iterations
    Time compute;          // on the critical rank, mean
    Time bubble;
    std::array<Time, 4> exposed{};      // tp, pp, dp, ep
    std::array<Bytes, 3> comm_bytes{};  // per iteration: nvlink, pcie, fabric
    std::array<Bytes, 4> rank_bytes{};  // sent per iteration by the critical rank: tp, pp, dp, ep
    double flops_per_rank = 0;          // executed by one GPU per iteration, recomputation included
    Time exposed_total() const { return exposed[0] + exposed[1] + exposed[2] + exposed[3]; }
    // What Megatron-LM reports as "achieved teraFLOP/s per GPU" (SC'21 §5.1): executed FLOPs
    // over the iteration time.
    double tflops_per_gpu() const {
        return iteration_time > Time::zero() ? flops_per_rank / iteration_time.seconds() / 1e12 : 0.0;
    }
};

}  // namespace fabricsim::report
