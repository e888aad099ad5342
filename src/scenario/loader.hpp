// Loads a scenario file into one validated ScenarioSpec per variant (docs/SCENARIO.md).
//
//   file ──yaml-cpp──▶ located tree ──include:──▶ base tree
//   per variant: base + the variant's overrides + --set + --seed
//                ──presets──▶ validate (collect every issue) ──▶ ScenarioSpec + resolved tree
//
// Errors: one ConfigError holding every issue found, in reading order, each naming
// file:line:col, the key path, what was found and what was expected (and the nearest valid
// key for a misspelling). An issue found in only some variants ends in ` (variant "big")`;
// one found in every variant is reported once. The library never prints.
#pragma once

#include "scenario/resolved_tree.hpp"
#include "scenario/spec.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fabricsim::scenario {

struct LoadOptions {
    // Folders searched, in order, for presets: <dir>/servers/<name>.yaml, ...
    std::vector<std::filesystem::path> config_dirs;
    // "--set key.path=value" overrides, applied after variants, in order.
    std::vector<std::string> sets;
    std::optional<std::uint64_t> seed;  // --seed, overrides the file's seed
    // The model the command runs in place of each variant's own (`plan --model`): the
    // unread-key warnings are for it. Unset: each variant's simulation.model.
    std::optional<NetworkModel> model;
};

struct Variant {
    std::string name;  // "default" when the file has no variants
    ScenarioSpec spec;
    Value resolved;  // the spec with every default, as a tree
};

struct LoadedScenario {
    std::string file;
    std::vector<Variant> variants;  // in file order
    // Keys set that the model run does not read (key_table.hpp; LoadOptions::model, else the
    // variant's own), in reading order, merged across variants as issues are; not errors.
    std::vector<ConfigIssue> warnings;
};

LoadedScenario load_scenario(const std::filesystem::path& file, const LoadOptions& options);
// Same, from text; `file_name` is what errors call it.
LoadedScenario load_scenario_text(const std::string& text, const std::string& file_name, const LoadOptions& options);

std::string to_yaml(const Value& tree);

}  // namespace fabricsim::scenario
