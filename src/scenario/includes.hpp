// `include:` at the top of a scenario (or of an included file): a path or a list of paths,
// relative to the including file. Included files are deep-merged underneath, in list order,
// and the including file's own keys win; nested includes work and cycles are errors.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/source_files.hpp"

#include <optional>
#include <string>

namespace fabricsim::scenario {

// `root` (a mapping read from `file`) with its includes merged in and its `include` key
// gone; nullopt when an included file could not be read or parsed, or includes loop.
std::optional<Node> resolve_includes(Node root, const std::string& file, SourceFiles& files, Issues& issues);

}  // namespace fabricsim::scenario
