// cluster.infiniband: the key table of InfinibandSpec (infiniband_spec.hpp has the meaning and
// source of each default), read strictly like the rest of the scenario, with the checks across
// its keys: every VL named is a data VL of the fabric, every VL an SL maps to has a weight in
// the arbitration tables, a given vl_buffer holds one MTU packet, and the CC's
// ccti_min <= ccti_limit <= the table's last index. Read whatever the fabric's technology.
#pragma once

#include "core/units.hpp"
#include "scenario/infiniband_spec.hpp"
#include "scenario/issues.hpp"
#include "scenario/key_table.hpp"
#include "scenario/located_tree.hpp"

namespace fabricsim::scenario {

// What the keys learn from virtual_lanes, read first: the data VLs a VL may name.
struct Lanes {
    int count = 2;
    bool known = true;
};

const Table<InfinibandSpec, Lanes>& infiniband_table();

// `node` may be null (all defaults). `mtu`: the compute fabric's MTU (payload bytes).
InfinibandSpec validate_infiniband(const Node* node, Bytes mtu, Issues& issues);

}  // namespace fabricsim::scenario
