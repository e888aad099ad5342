// cluster.fabric.switches and cluster.fabric.links: a custom topology (topology: custom),
// read and checked against the servers it connects (docs/SCENARIO.md, "A custom topology").
#pragma once

#include "scenario/fabric_keys.hpp"
#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"
#include "scenario/validate.hpp"

#include <optional>
#include <string>

namespace fabricsim::scenario {

// Reads the two keys of `map` (the fabric's mapping, or null) into spec.custom. With another
// topology they are an issue each; with topology: custom every link must name known ends, run
// no faster than either end's port, appear once, leave no switch with more links than its
// radix and no server NIC without a link. Whether the graph is connected is checked when it is
// built (fabric/custom_fabric.cpp, Boost.Graph). `servers`: cluster.servers when it was read.
void validate_custom_fabric(const Node* map, const std::string& path, FabricSpec& spec, const SwitchRead& base,
                            const ServerRead& server, std::optional<int> servers, Issues& issues);

// The keys of a switch entry (`name` and the switch model's) and of a link entry.
const Table<CustomSwitchSpec>& custom_switch_table();
const Table<CustomLinkSpec>& custom_link_table();

}  // namespace fabricsim::scenario
