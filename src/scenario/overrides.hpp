// Overrides by dotted key path: the entries of a variant (`variants: { big: {
// cluster.servers: 32 } }`) and the CLI's `--set cluster.servers=32`.
//
// A path segment that is an integer indexes a list (workload.0.transfer.size). The value
// replaces the node at the path; when both are mappings they deep-merge. Missing keys are
// created (located at the override) and validated like any other, so a misspelt path gets
// the usual "unknown key; did you mean" error at the line of the override.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/source_files.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fabricsim::scenario {

struct Override {
    std::vector<std::string> path;  // {"workload", "0", "transfer", "size"}
    SourceLocation location;        // of the key as written, or the --set pseudo file
    Node value;                     // located at the override too
};

struct VariantDef {
    std::string name;
    std::vector<Override> overrides;
};

// Removes `variants` from `root` and returns its variants in file order (none when the
// scenario has no variants section); malformed variants and paths are issues.
std::vector<VariantDef> take_variants(Node& root, Issues& issues);

// Parses one "--set key.path=value" (the value as YAML flow text); its nodes are located in
// the pseudo file "--set key.path=value".
std::optional<Override> parse_set(const std::string& argument, SourceFiles& files, Issues& issues);

// Applies `o` to `root`; a path that cannot be followed (an index past the end of a list, a
// key inside a single value) is an issue at the override.
void apply_override(Node& root, const Override& o, Issues& issues);

}  // namespace fabricsim::scenario
