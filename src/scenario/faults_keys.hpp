// faults: every key a fault entry may have, one declaration each (faults_keys.cpp); each kind
// takes the ones it lists. validate_faults() is declared in validate.hpp.
#pragma once

#include "scenario/faults_spec.hpp"
#include "scenario/key_table.hpp"

namespace fabricsim::scenario {

// Every fault key, with the kinds that take it at the head of its doc (docs/SCENARIO.md, Faults).
const Table<FaultSpec>& faults_table();

// The faults: section as the user writes it.
Value describe_faults(const std::vector<FaultSpec>& faults);

}  // namespace fabricsim::scenario
