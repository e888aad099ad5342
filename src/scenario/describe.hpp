// ScenarioSpec → resolved Value tree, with every default filled in and units in core's exact
// human form (size: 1GiB, latency: 2us, line_rate: 400Gbps, stop_time: none; link_speed:
// auto where a default follows another key; no storage_fabric when there is none). This is what
// `fabricsim validate --print` shows and what result.json stores as "scenario"; read back
// by the loader it gives the same spec.
#pragma once

#include "scenario/resolved_tree.hpp"
#include "scenario/spec.hpp"

namespace fabricsim::scenario {

Value describe(const ScenarioSpec& spec);

// The YAML words of these enums, as describe() prints them and the loader reads them
// (fabric_keys.cpp).
std::string_view name_of(Technology t);
std::string_view name_of(TopologyKind t);
std::string_view name_of(RoutingKind r);

}  // namespace fabricsim::scenario
