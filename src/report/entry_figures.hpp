// A run's transfer, collective and training entries measured from the executor's op timings:
// each a thin conversion of the workloads' own measures (collective.hpp's measure(),
// training_measure.hpp) into the report's structs. Traffic entries: traffic_figures.hpp.
#pragma once

#include "core/network.hpp"
#include "report/run_result.hpp"
#include "scenario/spec.hpp"
#include "workloads/executor.hpp"
#include "workloads/training.hpp"
#include "workloads/workload_graph.hpp"

#include <vector>

namespace fabricsim::report {

// Every message of the point-to-point entries (transfers, traffic), unfinished ones too; a
// collective's sends are not flows. `network` gives each one's unloaded time.
std::vector<TransferResult> transfer_results(const scenario::ScenarioSpec& spec, const workloads::Executor& executor,
                                             const Network& network);

// One row per collective entry and size.
std::vector<CollectiveResult> collective_results(const std::vector<workloads::PlannedCollective>& planned,
                                                 const workloads::Executor& executor);

// One row per training job, as its program measured it while the run went: the means over its
// whole iterations, in whole picoseconds.
std::vector<TrainingResult> training_results(const std::vector<workloads::PlannedTraining>& jobs,
                                             const workloads::Executor& executor);

}  // namespace fabricsim::report
