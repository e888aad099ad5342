// `fabricsim topo --json` and the capacity plan's "topology": a built cluster's summary, and a
// custom fabric's switches and cables as built, as JSON (nlohmann-json, like every JSON file
// the project writes). The fields are README.md's "topo" ones.
#pragma once

#include "fabric/topology.hpp"
#include "fabric/topology_summary.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fabricsim::report {

nlohmann::ordered_json topology_json(const fabric::TopologySummary& summary);

// A custom topology's graph as built: each fabric switch with its tier, radix and ports in use,
// each cable between fabric nodes (parallel cables once, with a count), and the directed links
// of a cycle in the routing's channel dependency graph (empty: the routing cannot deadlock).
nlohmann::ordered_json custom_fabric_json(const fabric::Topology& topology, const std::vector<std::string>& cycle);

}  // namespace fabricsim::report
