// A run's `traffic` entries measured from the executor's op timings (docs/models/traffic.md,
// "Results"): flows delivered, FCT and slowdown percentiles, a Poisson entry's achieved load, a
// GPU pool's calls and their added latency.
#pragma once

#include "core/network.hpp"
#include "report/traffic_result.hpp"
#include "workloads/executor.hpp"
#include "workloads/traffic.hpp"

#include <vector>

namespace fabricsim::report {

// One entry's figures; `network` gives each message's unloaded time, for its slowdown.
TrafficResult traffic_result(const workloads::TrafficPlan& plan, const workloads::Executor& executor,
                             const Network& network);

std::vector<TrafficResult> traffic_results(const std::vector<workloads::TrafficPlan>& plans,
                                           const workloads::Executor& executor, const Network& network);

}  // namespace fabricsim::report
