#include "scenario/includes.hpp"

#include "scenario/field_readers.hpp"
#include "scenario/yaml_tree.hpp"

#include <filesystem>

namespace fabricsim::scenario {

namespace {

namespace fs = std::filesystem;

// One file on the include chain: its name in messages and its identity on disk.
struct ChainLink {
    std::string shown;
    fs::path identity;
};

fs::path identity_of(const std::string& file) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(fs::path{file}, ec), ec);
    if (ec) return fs::path{file}.lexically_normal();
    return p;
}

std::optional<Node> resolve(Node root, std::vector<ChainLink>& chain, SourceFiles& files, Issues& issues);

// Reads, parses and resolves one included file; nullopt after an issue.
std::optional<Node> load_included(const Node& name, const std::string& key, std::vector<ChainLink>& chain,
                                  SourceFiles& files, Issues& issues) {
    if (!name.is_scalar() || name.text.empty()) return add_expected(issues, name, key, "a file name");
    const std::string shown = resolve_display(chain.back().shown, name.text);
    const fs::path identity = identity_of(shown);
    for (const auto& link : chain) {
        if (link.identity != identity) continue;
        std::string cycle;
        for (const auto& l : chain) cycle += l.shown + " -> ";
        return issues.reject(name.location, key, "include cycle: {}{}", cycle, shown);
    }
    const auto text = files.read(shown, name.location, key, issues);
    if (!text) return std::nullopt;
    auto tree = parse_yaml(YamlSource{*text, shown, "", true}, issues);
    if (!tree) return std::nullopt;
    if (tree->is_null()) return Node::mapping(tree->location);  // an empty file adds nothing
    if (!tree->is_mapping())
        return issues.reject(tree->location, "", "an included file must be a mapping of sections, found {}",
                             describe_found(*tree));
    chain.push_back(ChainLink{shown, identity});
    auto resolved = resolve(std::move(*tree), chain, files, issues);
    chain.pop_back();
    return resolved;
}

std::optional<Node> resolve(Node root, std::vector<ChainLink>& chain, SourceFiles& files, Issues& issues) {
    const Node* include = root.find("include");
    if (include == nullptr) return root;
    std::vector<std::pair<const Node*, std::string>> names;
    if (include->is_sequence()) {
        for (std::size_t i = 0; i < include->items.size(); ++i)
            names.emplace_back(&include->items[i], index_path("include", i));
    } else {
        names.emplace_back(include, "include");
    }
    Node merged = Node::mapping(root.location);
    bool ok = true;
    for (const auto& [name, key] : names) {
        auto included = load_included(*name, key, chain, files, issues);
        if (!included) {
            ok = false;
            continue;
        }
        deep_merge(merged, std::move(*included));
    }
    if (!ok) return std::nullopt;
    root.erase("include");
    deep_merge(merged, std::move(root));
    return merged;
}

}  // namespace

std::optional<Node> resolve_includes(Node root, const std::string& file, SourceFiles& files, Issues& issues) {
    std::vector<ChainLink> chain{ChainLink{file, identity_of(file)}};
    return resolve(std::move(root), chain, files, issues);
}

}  // namespace fabricsim::scenario
