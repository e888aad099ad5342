// A run's `traffic` entries, measured from the executor's op timings.
#pragma once

#include "core/network.hpp"
#include "report/traffic_result.hpp"
#include "scenario/spec.hpp"
#include "workloads/executor.hpp"
#include "workloads/traffic.hpp"

#include <vector>

namespace fabricsim::cli {

// One entry's figures (docs/models/traffic.md, "Results").
report::TrafficResult traffic_result(const workloads::TrafficPlan& plan, const workloads::Executor& executor,
                                     const Network& network);

std::vector<report::TrafficResult> traffic_results(const scenario::ScenarioSpec& spec,
                                             const std::vector<workloads::TrafficPlan>& plans,
                                             const workloads::Executor& executor, const Network& network);

}  // namespace fabricsim::cli
