// result.json's "traffic" part. Internal to src/report/.
#pragma once

#include "report/traffic_result.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace fabricsim::report {

nlohmann::ordered_json traffic_json(const std::vector<TrafficResult>& results);

}  // namespace fabricsim::report
