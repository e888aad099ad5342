// Validation of `- training:` workload entries (docs/SCENARIO.md, "training").
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fabricsim::scenario {

// The parameter keys that may sit beside `training:` in an entry.
const std::vector<std::string>& training_keys();

// `entry` is the whole entry mapping; `kind_node` the value of its `training` key; `cluster`
// the validated cluster, or null when it had issues (then ranks are not checked).
std::optional<TrainingSpec> validate_training(const Node& entry, const Node& kind_node, const std::string& path,
                                              const ClusterSpec* cluster, Issues& issues);

}  // namespace fabricsim::scenario
