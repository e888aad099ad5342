#include "report/training_json.hpp"

namespace fabricsim::report {

nlohmann::ordered_json training_json(const std::vector<TrainingResult>& results) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& r : results) out.push_back(nlohmann::ordered_json{{"name", r.name}});
    return out;
}

}  // namespace fabricsim::report
