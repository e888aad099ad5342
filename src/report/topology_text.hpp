// The console text of a fabric's summary (fabricsim topo, fabricsim plan): its switches, links,
// cables, bisection, oversubscription, diameter and latency, with units for people
// (display_units.hpp); `topo --json` (topology_json.hpp) keeps the exact figures.
#pragma once

#include "fabric/topology_summary.hpp"

#include <string>

namespace fabricsim::report {

std::string topology_text(const fabric::TopologySummary& summary);

}  // namespace fabricsim::report
