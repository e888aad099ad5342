// Turns a scenario's `workload:` entries into one OpGraph. Each entry kind has its own
// builder file (transfer.cpp today; collectives, traffic and training jobs join later).
#pragma once

#include "scenario/spec.hpp"
#include "workloads/op_graph.hpp"

namespace fabricsim::workloads {

OpGraph build_op_graph(const scenario::ScenarioSpec& spec);

}  // namespace fabricsim::workloads
