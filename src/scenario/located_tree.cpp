#include "scenario/located_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace fabricsim::scenario {

const Node* Node::find(std::string_view key) const {
    for (const auto& e : entries)
        if (e.key == key) return &e.value;
    return nullptr;
}

Node* Node::find(std::string_view key) { return const_cast<Node*>(std::as_const(*this).find(key)); }

bool Node::erase(std::string_view key) {
    const auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.key == key; });
    if (it == entries.end()) return false;
    entries.erase(it);
    return true;
}

Node Node::scalar(std::string text, SourceLocation where) {
    Node n;
    n.kind = Kind::scalar;
    n.text = std::move(text);
    n.location = std::move(where);
    return n;
}

Node Node::mapping(SourceLocation where) {
    Node n;
    n.kind = Kind::mapping;
    n.location = std::move(where);
    return n;
}

namespace {
// Numbers read better bare ("found 0"), words quoted ("found \"many\"").
bool looks_numeric(const std::string& s) {
    if (s.empty()) return false;
    std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (i == s.size()) return false;
    bool dot = false;
    for (; i < s.size(); ++i) {
        if (s[i] == '.' && !dot)
            dot = true;
        else if (s[i] < '0' || s[i] > '9')
            return false;
    }
    return s.back() != '.';
}
}  // namespace

std::string describe_found(const Node& node) {
    switch (node.kind) {
        case Node::Kind::null: return "nothing";
        case Node::Kind::sequence: return node.items.empty() ? "an empty list" : "a list";
        case Node::Kind::mapping: return node.entries.empty() ? "an empty mapping" : "a mapping";
        case Node::Kind::scalar: break;
    }
    if (looks_numeric(node.text)) return node.text;
    return fmt::format("\"{}\"", node.text);
}

void deep_merge(Node& base, Node over) {
    if (!base.is_mapping() || !over.is_mapping()) {
        base = std::move(over);
        return;
    }
    for (auto& e : over.entries) {
        if (Node* existing = base.find(e.key)) {
            deep_merge(*existing, std::move(e.value));
        } else {
            base.entries.push_back(std::move(e));
        }
    }
}

}  // namespace fabricsim::scenario
