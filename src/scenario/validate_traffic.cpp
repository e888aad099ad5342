#include "scenario/validate_traffic.hpp"

#include "scenario/field_readers.hpp"

namespace fabricsim::scenario {

const std::vector<std::string>& traffic_keys() {
    static const std::vector<std::string> keys;
    return keys;
}

std::optional<TrafficSpec> validate_traffic(const Node& /*entry*/, const Node& kind_node, const std::string& path,
                                     const ClusterSpec* /*cluster*/, Issues& issues) {
    issues.add(kind_node.location, key_path(path, "traffic"), "the \"traffic\" workload is not available yet");
    return std::nullopt;
}

}  // namespace fabricsim::scenario
