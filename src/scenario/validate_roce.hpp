// cluster.roce: PFC, ECN, DCQCN, the switch MMU and lossless/lossy mode (roce_spec.hpp),
// read strictly like the rest of the scenario, with the checks across its keys:
// ecn.kmin <= ecn.kmax (an `auto` one worked out at the fabric's link speed when that is
// known), ecn.kmax below pfc.xoff when both are given (ECN must mark before PFC pauses,
// DCQCN paper §5), pfc.xon_delta below a given pfc.xoff, and PFC on a lossless fabric.
// The section is read whatever the fabric's technology; an InfiniBand fabric ignores it.
#pragma once

#include "core/units.hpp"
#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/roce_spec.hpp"

#include <optional>

namespace fabricsim::scenario {

// `node` may be null (all defaults). `link_speed`: the compute fabric's link speed when
// known (for `auto` ECN thresholds), nullopt otherwise.
RoceSpec validate_roce(const Node* node, std::optional<Bandwidth> link_speed, Issues& issues);

}  // namespace fabricsim::scenario
