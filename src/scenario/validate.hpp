// Located tree → ScenarioSpec, collecting every issue (validation goes on after a bad value
// so that one run reports them all). The tree has had its includes, variant overrides,
// --set overrides and presets applied; `variants` and `include` are gone from it.
//
// The schema lives here and in validate_workload.cpp, one function per section; a section
// the models do not have yet is an unknown key.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <optional>
#include <vector>

namespace fabricsim::scenario {

ScenarioSpec validate_scenario(const Node& root, Issues& issues);

// `ranks`: the cluster's rank count, when the cluster section was valid, to check rank ids.
std::vector<WorkloadEntry> validate_workload(const Node& node, std::optional<int> ranks, Issues& issues);

}  // namespace fabricsim::scenario
