// A dense transformer job for the training tests: 32 layers of hidden 4096 at sequence 2048
// (a 7B-class shape), micro-batch 1, H100 dense BF16 peak 989 TFLOP/s at 40 % MFU.
#pragma once

#include "scenario/training_spec.hpp"

#include <cstdint>

namespace fabricsim::test {

inline scenario::TrainingSpec dense_job(std::int64_t parameters, int tp, int pp, int dp, int global_batch) {
    scenario::TrainingSpec s;
    s.model.parameters = parameters;
    s.model.layers = 32;
    s.model.hidden = 4096;
    s.model.sequence = 2048;
    s.global_batch = global_batch;
    s.micro_batch = 1;
    s.peak_flops = 989'000'000'000'000;
    s.mfu = 0.4;
    s.tp = tp;
    s.pp = pp;
    s.dp = dp;
    return s;
}

}  // namespace fabricsim::test
