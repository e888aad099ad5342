// cluster.fabric, cluster.storage_fabric and a switch model (cluster.fabric.switch, each switch
// of a custom topology), one declaration per key, and the checks that look across the cluster:
// a switch of the fabric's technology, links no faster than the switch ports or the NICs, an
// MTU the technology allows, and planes that split every endpoint's NICs evenly. The entry
// points (validate_fabric, validate_storage_fabric) are declared in validate.hpp.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/key_table.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fabricsim::scenario {

const Table<SwitchSpec>& switch_table();
const Table<FabricSpec>& fabric_table();
const Table<StorageFabricSpec>& storage_fabric_table();

// A switch as far as it was read without an issue, so that the checks across sections do not
// repeat an error as another.
struct SwitchRead {
    SwitchSpec spec;
    const Node* node = nullptr;
    bool usable = true;
    bool technology_known = true;
    bool port_speed_known = true;
};

}  // namespace fabricsim::scenario
