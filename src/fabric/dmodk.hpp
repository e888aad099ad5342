// Static D-mod-K routing for up/down fat trees: InfiniBand linear forwarding tables that are
// a fixed function of the destination (Zahavi, Johnson, Kerbyson, Lang, "Optimized
// InfiniBand fat-tree routing for shift all-to-all communication patterns", CCPE 2010;
// the "ftree" routing engine of OpenSM follows the same rule).
//
// Destination endpoints of one fabric are numbered d = 0, 1, ... in the order of the switch
// port they hang off (leaf by leaf), and tiers are 0 (endpoints), 1 leaf, 2 spine, 3 core.
// With w_t the up-fan-out of tier t (ports to the tier above; 1 for a single-port NIC):
//   going up from tier t:    candidate (d / (w_0 ... w_{t-1})) mod (number of up candidates)
//   going down from tier t:  candidate (d / (w_0 ... w_{t-2})) mod (number of down candidates)
// Going down is unique in a fat tree without parallel links; with parallel links the down
// rule picks the same parallel link the up rule picked one tier lower, when up candidates
// are ordered by parent switch (routing sorts candidates by (peer node, port)).
// On a full-bisection k-ary fat tree every shift permutation (host i -> i + s) then loads
// each directed link with at most one flow.
#pragma once

#include "fabric/topology.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fabricsim::fabric {

// 0 for endpoints, 1 leaf, 2 spine, 3 core.
int fabric_tier(NodeKind kind);

struct DmodkPlan {
    std::vector<std::uint32_t> index;         // per endpoint: d, its number within its fabric
    std::vector<std::uint32_t> up_divisor;    // per switch: w_0 ... w_{t-1}
    std::vector<std::uint32_t> down_divisor;  // per switch: w_0 ... w_{t-2}
};

// `endpoints[e]` lies in fabric `endpoint_component[e]`, `switches[s]` in
// `switch_component[s]`; components are numbered 0.. densely.
DmodkPlan plan_dmodk(const Topology& topology, std::span<const NodeId> endpoints,
                     std::span<const std::uint32_t> endpoint_component, std::span<const NodeId> switches,
                     std::span<const std::uint32_t> switch_component);

// The candidate index D-mod-K takes among n > 0 candidates.
constexpr std::uint32_t dmodk_pick(std::uint32_t d, std::uint32_t divisor, std::size_t n) {
    return static_cast<std::uint32_t>((d / divisor) % n);
}

}  // namespace fabricsim::fabric
