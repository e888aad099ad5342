// Whether shortest-path routing can deadlock a lossless fabric: the channel dependency graph
// (Dally & Seitz, "Deadlock-free message routing in multiprocessor interconnection networks",
// IEEE Trans. Computers C-36(5), 1987). Its vertices are the directed fabric links; an edge
// c1 -> c2 says a packet may hold c1's downstream buffer while it waits for c2: it arrives on
// c1 at a switch whose routing candidates towards some destination include c2. Routing whose
// graph has no cycle cannot deadlock under PFC or credits; a cycle means it can (whether it
// does depends on the traffic). The up/down paths of the built Clos fabrics never make one; a
// custom topology's shortest paths may (a ring of five or more switches does).
//
// Every candidate counts (ecmp, static, adaptive and spray choose among the same ones), so a
// cycle found here is one some policy may take. Cost: every (switch, destination NIC) pair's
// candidates, so `fabricsim topo` and the run check custom topologies only.
#pragma once

#include "fabric/routing.hpp"
#include "fabric/topology.hpp"

#include <string>
#include <vector>

namespace fabricsim::fabric {

// The directed switch-to-switch links of one cycle of the channel dependency graph (its
// smallest strongly connected component with more than one link, as "sw0->sw1"), or empty
// when there is none. Boost.Graph strong_components.
std::vector<std::string> channel_dependency_cycle(const Topology& topology, const Routing& routing);

// One line for a person: "" when `cycle` is empty, else what it means and which links it uses.
std::string describe_cycle(const std::vector<std::string>& cycle);

}  // namespace fabricsim::fabric
