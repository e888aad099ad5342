// YAML text → located tree (the only place that reads YAML; yaml-cpp stays in this .cpp).
//
// Strict where yaml-cpp is lenient: a duplicate key is an issue (the first value is kept),
// a key must be a scalar, a file holds one document. Anchors and aliases work; an alias
// expands to a copy, and a document that expands past kMaxNodes values is rejected so a
// "billion laughs" file cannot exhaust memory.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fabricsim::scenario {

inline constexpr std::size_t kMaxNodes = 1'000'000;

struct YamlSource {
    std::string_view text;
    std::string file;       // what locations call it
    std::string key_root;   // key path of the document's root, for messages ("cluster.server")
    bool positions = true;  // false: locations name only the file (a --set pseudo file)
};

// The document's root (a null node located at 1:1 when the text holds no document), or
// nullopt after a syntax error, which is added to `issues`.
std::optional<Node> parse_yaml(const YamlSource& source, Issues& issues);

}  // namespace fabricsim::scenario
