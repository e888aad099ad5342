// simulation: which network model runs and its settings, one declaration per key.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/key_table.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

namespace fabricsim::scenario {

const Table<SimulationSpec>& simulation_table();

SimulationSpec validate_simulation(const Node& node, Issues& issues);
// flow_backend only with the flow model or when not `cpu`, so that scenarios of the other
// models resolve as they always did.
Value describe_simulation(const SimulationSpec& simulation);

}  // namespace fabricsim::scenario
