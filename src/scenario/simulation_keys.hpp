// simulation: which network model runs and its settings, one declaration per key.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/key_table.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

namespace fabricsim::scenario {

const Table<SimulationSpec>& simulation_table();

}  // namespace fabricsim::scenario
