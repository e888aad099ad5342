// Validation of `- traffic:` workload entries (docs/SCENARIO.md, "traffic").
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fabricsim::scenario {

// The parameter keys that may sit beside `traffic:` in an entry (each pattern takes some).
const std::vector<std::string>& traffic_keys();

// `entry` is the whole entry mapping; `kind_node` the value of its `traffic` key; `cluster`
// the validated cluster, or null when it had issues (then ranks are not checked).
std::optional<TrafficSpec> validate_traffic(const Node& entry, const Node& kind_node, const std::string& path,
                                            const ClusterSpec* cluster, Issues& issues);

// At most this many flows per entry (a guard against a typo that asks for billions).
inline constexpr std::int64_t kMaxTrafficFlows = 10'000'000;

}  // namespace fabricsim::scenario
