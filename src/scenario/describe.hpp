// ScenarioSpec → resolved Value tree, with every default filled in and units in core's exact
// human form (size: 1GiB, latency: 2us, nic_speed: 400Gbps, stop_time: none). This is what
// `fabricsim validate --print` shows and what result.json stores as "scenario"; read back
// by the loader it gives the same spec.
#pragma once

#include "scenario/resolved_tree.hpp"
#include "scenario/spec.hpp"

namespace fabricsim::scenario {

Value describe(const ScenarioSpec& spec);

}  // namespace fabricsim::scenario
