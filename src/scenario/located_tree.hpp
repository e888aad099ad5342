// The scenario as read from YAML, before validation: a tree in which every node remembers
// the file, line and column it came from (1-based), so that an error found after includes,
// presets, variants and --set overrides have been applied still points at the text the user
// wrote. Internal to src/scenario/; yaml-cpp never appears here.
#pragma once

#include "core/errors.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::scenario {

struct Entry;

struct Node {
    enum class Kind { null, scalar, sequence, mapping };

    Kind kind = Kind::null;
    SourceLocation location;
    std::string text;            // scalar only; YAML scalars stay text until validation
    std::vector<Node> items;     // sequence only
    std::vector<Entry> entries;  // mapping only, in file order
    // A preset reference that could not be resolved (already reported): its values are
    // unknown, so validation skips it and the checks that depend on it.
    bool unresolved = false;

    bool is_null() const { return kind == Kind::null; }
    bool is_scalar() const { return kind == Kind::scalar; }
    bool is_sequence() const { return kind == Kind::sequence; }
    bool is_mapping() const { return kind == Kind::mapping; }

    // The value at `key` in a mapping, or nullptr.
    const Node* find(std::string_view key) const;
    Node* find(std::string_view key);
    // Removes `key` from a mapping; true when it was there.
    bool erase(std::string_view key);

    static Node scalar(std::string text, SourceLocation where);
    static Node mapping(SourceLocation where);
};

struct Entry {
    std::string key;
    SourceLocation key_location;
    Node value;
};

// How a node reads in "found ..." messages: "nothing", "a list", "a mapping", 16 or "abc".
std::string describe_found(const Node& node);

// Overlays `over` onto `base`: mappings merge key by key (recursively); anything else in
// `over` replaces what `base` has. Keys new to `base` are appended in `over`'s order.
void deep_merge(Node& base, Node over);

}  // namespace fabricsim::scenario
