// The console summary: one row per headline metric, one column per variant, so the designs of
// a scenario stand side by side. Rows are keyed by metric name: when variants run different
// workloads, a metric one variant lacks shows "—" in its column.
#pragma once

#include "report/run_result.hpp"

#include <string>

namespace fabricsim::report {

std::string summary_table(const RunResult& result);

}  // namespace fabricsim::report
