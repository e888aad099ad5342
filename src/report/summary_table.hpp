// The console summary: one row per headline metric, one column per variant, so the designs of
// a scenario stand side by side.
#pragma once

#include "report/run_result.hpp"

#include <string>

namespace fabricsim::report {

std::string summary_table(const RunResult& result);

}  // namespace fabricsim::report
