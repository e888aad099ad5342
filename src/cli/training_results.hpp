// A run's `training` entries, measured from the executor's op timings.
#pragma once

#include "core/network.hpp"
#include "report/training_result.hpp"
#include "scenario/spec.hpp"
#include "workloads/executor.hpp"
#include "workloads/training.hpp"

#include <vector>

namespace fabricsim::cli {

std::vector<report::TrainingResult> training_results(const scenario::ScenarioSpec& spec,
                                             const std::vector<workloads::TrainingPlan>& plans,
                                             const workloads::Executor& executor, const Network& network);

}  // namespace fabricsim::cli
