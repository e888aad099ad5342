// Presets: named, reviewed parameter sets in configs/<folder>/<name>.yaml (docs/ARCHITECTURE.md),
// searched in LoadOptions::config_dirs in order. The keys that take them ("slots"):
//
//   cluster.server                                  servers/
//   cluster.server.nic, cluster.server.storage_nic  nics/
//   cluster.fabric.switch                           switches/
//   cluster.storage_fabric.switch                   switches/
//   cluster.storage_fabric.storage_node_nic         nics/
//   cluster.storage.nic                             nics/
//   cluster.fabric.switches[i] (topology: custom)   switches/  (each switch of the list)
//
//   server: hgx-h100                        shorthand for { preset: hgx-h100 }
//   server: { preset: hgx-h100, nics: 4 }   the preset file's keys, overridden by these
//
// A preset file is a mapping of the slot's keys plus an optional `description`; it may name
// presets for the slots inside it (a server preset's `nic: connectx-7`), which expand after
// it, under the user's keys for them. Its nodes keep their own locations, so a bad value in a
// preset file is reported there.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/source_files.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fabricsim::scenario {

struct PresetSlot {
    std::vector<std::string> path;  // where in the scenario
    std::string folder;             // configs/<folder>/
    std::string what;               // "server", in messages
};

// Whether the node at `path` (dotted, e.g. "cluster.server") takes a preset.
bool is_preset_slot(const std::vector<std::string>& path);

// A scalar at a preset slot becomes { preset: NAME }, located where the name was.
void desugar_preset_shorthand(Node& node);

class PresetLibrary {
public:
    PresetLibrary(std::vector<std::filesystem::path> config_dirs, SourceFiles& files);

    // Replaces every preset reference in `root` by the preset's values under the user's.
    // Issues from a preset file are reported by every call that uses it (the loader
    // reports an issue common to all variants once).
    void expand(Node& root, Issues& issues);

private:
    struct Loaded {
        std::optional<Node> tree;  // the preset file's mapping, without `description`
        Issues issues;             // found while reading it
    };

    const Loaded* load(const PresetSlot& slot, const std::string& name);
    // Expands the preset `node` names (if any) under the user's keys; `path` for messages.
    void expand_one(Node& node, const PresetSlot& slot, const std::string& path, Issues& issues);
    std::vector<std::string> available(const std::string& folder) const;

    std::vector<std::filesystem::path> dirs_;
    SourceFiles& files_;
    std::map<std::string, Loaded> cache_;  // by folder/name@slot path
};

}  // namespace fabricsim::scenario
