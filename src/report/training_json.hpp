// result.json's "training" part: DESIGN §6's object for the first job (zeros without one),
// plus every job under "jobs". Internal to src/report/.
#pragma once

#include "report/training_result.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace fabricsim::report {

nlohmann::ordered_json training_json(const std::vector<TrainingResult>& results);

}  // namespace fabricsim::report
