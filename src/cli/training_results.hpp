// A run's `training` entries, as their programs measured them.
#pragma once

#include "core/network.hpp"
#include "report/training_result.hpp"
#include "scenario/spec.hpp"
#include "workloads/executor.hpp"
#include "workloads/workload_graph.hpp"

#include <vector>

namespace fabricsim::cli {

std::vector<report::TrainingResult> training_results(const scenario::ScenarioSpec& spec,
                                             const std::vector<workloads::PlannedTraining>& jobs,
                                             const workloads::Executor& executor, const Network& network);

}  // namespace fabricsim::cli
