#include "scenario/presets.hpp"

#include "scenario/field_readers.hpp"
#include "scenario/suggest.hpp"
#include "scenario/yaml_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace fabricsim::scenario {

namespace fs = std::filesystem;

namespace {

struct Slot {
    std::vector<std::string> path;  // where in the scenario
    std::string folder;             // configs/<folder>/
    std::string what;               // "server", in messages
};

const std::vector<Slot>& slots() {
    static const std::vector<Slot> all{{{"cluster", "server"}, "servers", "server"}};
    return all;
}

std::string dotted(const std::vector<std::string>& path) {
    std::string out;
    for (const auto& p : path) out = key_path(out, p);
    return out;
}

// The node at `path`, or nullptr when any step is missing or not a mapping.
Node* find_path(Node& root, const std::vector<std::string>& path) {
    Node* at = &root;
    for (const auto& key : path) {
        if (!at->is_mapping()) return nullptr;
        at = at->find(key);
        if (at == nullptr) return nullptr;
    }
    return at;
}

}  // namespace

bool is_preset_slot(const std::vector<std::string>& path) {
    return std::any_of(slots().begin(), slots().end(), [&](const Slot& s) { return s.path == path; });
}

void desugar_preset_shorthand(Node& node) {
    if (!node.is_scalar()) return;
    Node name = std::move(node);
    node = Node::mapping(name.location);
    SourceLocation where = name.location;
    node.entries.push_back(Entry{"preset", std::move(where), std::move(name)});
}

PresetLibrary::PresetLibrary(std::vector<fs::path> config_dirs, SourceFiles& files)
    : dirs_(std::move(config_dirs)), files_(files) {}

std::vector<std::string> PresetLibrary::available(const std::string& folder) const {
    std::set<std::string> names;
    for (const auto& dir : dirs_) {
        std::error_code ec;
        for (fs::directory_iterator it(dir / folder, ec), end; !ec && it != end; it.increment(ec)) {
            const fs::path& p = it->path();
            if (p.extension() == ".yaml" && is_valid_name(p.stem().string())) names.insert(p.stem().string());
        }
    }
    return {names.begin(), names.end()};
}

const PresetLibrary::Loaded* PresetLibrary::load(const std::string& folder, const std::string& name,
                                                 const std::string& root_path) {
    const std::string cache_key = folder + "/" + name;
    if (auto it = cache_.find(cache_key); it != cache_.end()) return &it->second;
    // Names are plain words, never paths: "../x" cannot reach outside the config folders.
    if (!is_valid_name(name) || name.front() == '.') return nullptr;
    for (const auto& dir : dirs_) {
        const fs::path file = dir / folder / (name + ".yaml");
        std::error_code ec;
        if (!fs::is_regular_file(file, ec)) continue;
        Loaded loaded;
        const std::string shown = file.lexically_normal().generic_string();
        if (auto text = files_.read(file.lexically_normal(), SourceLocation{shown, 0, 0}, "", loaded.issues)) {
            if (auto tree = parse_yaml(YamlSource{*text, shown, root_path, true}, loaded.issues)) {
                if (!tree->is_mapping()) {
                    loaded.issues.add(tree->location, root_path,
                                      fmt::format("a preset file must be a mapping, found {}", describe_found(*tree)));
                } else {
                    if (const Node* d = tree->find("description")) read_text(*d, key_path(root_path, "description"), loaded.issues);
                    tree->erase("description");
                    for (const auto& e : tree->entries)
                        if (e.key == "preset")
                            loaded.issues.add(e.key_location, key_path(root_path, "preset"),
                                              "a preset file cannot name another preset");
                    tree->erase("preset");
                    loaded.tree = std::move(*tree);
                }
            }
        }
        return &cache_.emplace(cache_key, std::move(loaded)).first->second;
    }
    return nullptr;
}

void PresetLibrary::expand(Node& root, Issues& issues) {
    for (const Slot& slot : slots()) {
        Node* node = find_path(root, slot.path);
        if (node == nullptr) continue;
        const std::string path = dotted(slot.path);
        const bool shorthand = node->is_scalar();
        desugar_preset_shorthand(*node);
        if (!node->is_mapping()) continue;  // the validator reports the wrong type
        const Node* name = node->find("preset");
        if (name == nullptr) continue;      // a full inline definition
        const std::string name_path = shorthand ? path : key_path(path, "preset");
        if (!name->is_scalar()) {
            issues.add(name->location, name_path,
                       fmt::format("expected a {} preset name, found {}", slot.what, describe_found(*name)));
            node->unresolved = true;
            continue;
        }
        const Loaded* preset = load(slot.folder, name->text, path);
        if (preset == nullptr) {
            const auto names = available(slot.folder);
            std::string listing;
            if (!names.empty()) listing = available_choices(name->text, names);
            else if (dirs_.empty()) listing = "; no config folder was given";
            else listing = fmt::format("; no {} presets were found", slot.what);
            issues.add(name->location, name_path,
                       fmt::format("unknown {} preset \"{}\"{}", slot.what, name->text, listing));
            node->unresolved = true;
            continue;
        }
        issues.append(preset->issues);
        if (!preset->tree) {
            node->unresolved = true;
            continue;
        }
        Node merged = *preset->tree;
        merged.location = node->location;
        deep_merge(merged, std::move(*node));
        *node = std::move(merged);
    }
}

}  // namespace fabricsim::scenario
