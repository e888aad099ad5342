// Validation of `- collective:` workload entries (docs/SCENARIO.md, "collective").
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fabricsim::scenario {

// The parameter keys that sit beside `collective:` in an entry.
const std::vector<std::string>& collective_keys();

// `entry` is the whole entry mapping; `op_node` the value of its `collective` key; `ranks`
// the cluster's rank count when known.
std::optional<CollectiveSpec> validate_collective(const Node& entry, const Node& op_node, const std::string& path,
                                                  std::optional<int> ranks, Issues& issues);

}  // namespace fabricsim::scenario
