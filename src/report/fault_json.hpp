// result.json's "faults" (each fault's damage) and "baseline" (slowdown against the run without
// faults) of a variant. Internal to src/report/.
#pragma once

#include "report/fault_result.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace fabricsim::report {

nlohmann::ordered_json faults_json(const std::vector<FaultResult>& faults);
nlohmann::ordered_json baseline_json(const std::vector<SlowdownRow>& rows);

}  // namespace fabricsim::report
