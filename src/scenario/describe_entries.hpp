// The parameters of traffic and training entries as the user writes them, for describe():
// each appends its keys (the kind key first) to the entry's map.
#pragma once

#include "scenario/resolved_tree.hpp"
#include "scenario/spec.hpp"

namespace fabricsim::scenario {

void describe_traffic(const TrafficSpec& traffic, Value::Map& entry);
void describe_training(const TrainingSpec& training, Value::Map& entry);
// The faults: section (faults_keys.cpp).
Value describe_faults(const std::vector<FaultSpec>& faults);

}  // namespace fabricsim::scenario
