// The faults: section at run time (docs/models/faults.md): whether the network must play
// faults (the packet model then routes around them), and the stragglers for the executor. What
// the faults did is measured in report/fault_figures.hpp.
#pragma once

#include "scenario/spec.hpp"
#include "workloads/straggler.hpp"

#include <vector>

namespace fabricsim::cli {

bool has_network_faults(const scenario::ScenarioSpec& spec);
std::vector<workloads::Straggler> stragglers_of(const scenario::ScenarioSpec& spec);

}  // namespace fabricsim::cli
