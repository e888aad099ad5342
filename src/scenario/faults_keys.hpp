// faults: every key a fault entry may have, one declaration each (faults_keys.cpp); each kind
// takes the ones it lists. validate_faults() is declared in validate.hpp, describe_faults() in
// describe_entries.hpp.
#pragma once

#include "scenario/faults_spec.hpp"
#include "scenario/key_table.hpp"

namespace fabricsim::scenario {

// Every fault key, with the kinds that take it at the head of its doc (docs/SCENARIO.md, Faults).
const Table<FaultSpec>& faults_table();

}  // namespace fabricsim::scenario
