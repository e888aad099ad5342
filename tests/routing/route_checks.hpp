// Independent checks on routes: a path is a connected chain; hop distances by a plain BFS.
#pragma once

#include "fabric/topology.hpp"

#include <vector>

namespace routing_test {

// True when `path` starts at src, each link leaves where the previous one arrived, and it ends
// at dst.
bool is_chain(const fabricsim::fabric::Topology& t, const std::vector<fabricsim::fabric::DirectedLink>& path,
              fabricsim::fabric::NodeId src, fabricsim::fabric::NodeId dst);

// Hop count from every node to `dst` over fabric links, forwarding only through fabric switches
// (-1: unreachable).
std::vector<int> fabric_distance(const fabricsim::fabric::Topology& t, fabricsim::fabric::NodeId dst);

}  // namespace routing_test
