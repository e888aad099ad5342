// The figures of the trace entries (report/trace_result.hpp) and the run's timeline
// (outputs.timeline), from the trace programs and the executor's op timings.
#pragma once

#include "report/trace_result.hpp"
#include "workloads/executor.hpp"
#include "workloads/workload_graph.hpp"

#include <vector>

namespace fabricsim::report {

std::vector<TraceResult> trace_results(const workloads::Workload& workload, const workloads::Executor& executor);

// One event per op with a start and an end: every trace node, and the graph's ops (transfers,
// traffic), named after their entry. Training and collective entries keep no per-op record.
std::vector<workloads::TimelineEvent> timeline_events(const workloads::Workload& workload,
                                                      const workloads::Executor& executor);

}  // namespace fabricsim::report
