// The console's report of trace entries: per entry and process group, its collectives in
// nccl-tests' columns (one row per op and size, the last column how many ran), then the run's
// breakdown on the critical rank (docs/models/traces.md).
#pragma once

#include "report/run_result.hpp"

#include <string>

namespace fabricsim::report {

// "" when no variant ran a trace.
std::string trace_tables(const RunResult& result);

}  // namespace fabricsim::report
