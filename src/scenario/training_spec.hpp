// `- training: {...}` workload entries: a training job described by its model and its
// parallelism, docs/models/training.md.
#pragma once

#include "core/ids.hpp"
#include "core/units.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim::scenario {

struct TrainingSpec {
    std::int64_t parameters = 0;
    int layers = 0;
    int hidden = 0;
    int sequence = 0;
    int global_batch = 0;
    int micro_batch = 1;
    int tp = 1, pp = 1, dp = 1, ep = 1;
    double peak_flops = 0;             // per GPU, FLOP/s
    double mfu = 0.4;
    int iterations = 1;
    bool operator==(const TrainingSpec&) const = default;
};

}  // namespace fabricsim::scenario
