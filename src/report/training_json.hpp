// result.json's "training" part: README.md's "Using it"'s object for the first job (zeros without one),
// plus every job under "jobs". Internal to src/report/.
#pragma once

#include "report/training_result.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace fabricsim::report {

nlohmann::ordered_json training_json(const std::vector<TrainingResult>& results);

}  // namespace fabricsim::report
