// A switch model (cluster.fabric.switch, cluster.storage_fabric.switch, each switch of a custom
// topology's cluster.fabric.switches): the keys of SwitchSpec over `base`, presets already
// expanded. The flags say which values were read without an issue, so that the checks across
// sections do not repeat an error as another.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fabricsim::scenario {

struct SwitchRead {
    SwitchSpec spec;
    const Node* node = nullptr;
    bool usable = true;
    bool technology_known = true;
    bool port_speed_known = true;
};

// An inline switch that does not say its technology has the fabric's. `extra_keys` are the
// keys a caller reads itself beside the model's (a custom switch's `name`).
SwitchRead validate_switch(const Node& node, const std::string& path, std::optional<Technology> fabric_technology,
                           Issues& issues, const SwitchSpec& base = SwitchSpec{},
                           const std::vector<std::string>& extra_keys = {});

}  // namespace fabricsim::scenario
