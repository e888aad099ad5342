#include "scenario/validate_training.hpp"

#include "scenario/field_readers.hpp"

namespace fabricsim::scenario {

const std::vector<std::string>& training_keys() {
    static const std::vector<std::string> keys;
    return keys;
}

std::optional<TrainingSpec> validate_training(const Node& /*entry*/, const Node& kind_node, const std::string& path,
                                     const ClusterSpec* /*cluster*/, Issues& issues) {
    issues.add(kind_node.location, key_path(path, "training"), "the \"training\" workload is not available yet");
    return std::nullopt;
}

}  // namespace fabricsim::scenario
