// cluster.roce: the key table of RoceSpec (roce_spec.hpp has the meaning and source of each
// default), read strictly like the rest of the scenario, with the checks across its keys:
// ecn.kmin <= ecn.kmax (an `auto` one worked out at the fabric's link speed when that is
// known), ecn.kmax below pfc.xoff when both are given (ECN must mark before PFC pauses,
// DCQCN paper §5), pfc.xon_delta below a given pfc.xoff, PFC on a lossless fabric, and the
// control priority outside the lossless ones. The section is read whatever the fabric's
// technology; an InfiniBand fabric ignores it.
#pragma once

#include "core/units.hpp"
#include "scenario/issues.hpp"
#include "scenario/key_table.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/roce_spec.hpp"

#include <optional>

namespace fabricsim::scenario {

const Table<RoceSpec>& roce_table();

// `node` may be null (all defaults). `link_speed`: the compute fabric's link speed when
// known (for `auto` ECN thresholds), nullopt otherwise.
RoceSpec validate_roce(const Node* node, std::optional<Bandwidth> link_speed, Issues& issues);
// Every key present (auto, off and unset DCQCN overrides as `auto`): read back, the same spec.
Value describe_roce(const RoceSpec& roce);

}  // namespace fabricsim::scenario
