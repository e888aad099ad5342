// Validation of `- trace:` workload entries (docs/SCENARIO.md, "trace"). The files themselves
// are read when the run is built (workloads/trace_index.hpp), where their errors are found.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <optional>
#include <string>

namespace fabricsim::scenario {

// `kind_node` is the value of the entry's `trace` key; `ranks` the cluster's rank count when
// the cluster is valid.
std::optional<TraceSpec> validate_trace(const Node& kind_node, const std::string& path, std::optional<int> ranks,
                                        Issues& issues);

}  // namespace fabricsim::scenario
