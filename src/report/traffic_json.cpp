#include "report/traffic_json.hpp"

namespace fabricsim::report {

nlohmann::ordered_json traffic_json(const std::vector<TrafficResult>& results) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& r : results) out.push_back(nlohmann::ordered_json{{"name", r.name}});
    return out;
}

}  // namespace fabricsim::report
