// The console's account of faults: per variant that had any, each fault's damage, what RC did
// about it and, with run --baseline, the slowdown against the run without faults. "" when no
// variant had faults.
#pragma once

#include "report/run_result.hpp"

#include <string>

namespace fabricsim::report {

std::string faults_summary(const RunResult& result);

}  // namespace fabricsim::report
