#include "scenario/presets.hpp"

#include "scenario/field_readers.hpp"
#include "scenario/yaml_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace fabricsim::scenario {

namespace fs = std::filesystem;

namespace {

// In expansion order: a slot inside another comes after it, so that a preset's own nested
// reference (a server preset's `nic: connectx-7`) is expanded once the outer preset is in.
const std::vector<PresetSlot>& slots() {
    static const std::vector<PresetSlot> all{
        {{"cluster", "server"}, "servers", "server"},
        {{"cluster", "server", "nic"}, "nics", "NIC"},
        {{"cluster", "server", "storage_nic"}, "nics", "NIC"},
        {{"cluster", "fabric", "switch"}, "switches", "switch"},
        {{"cluster", "storage_fabric", "switch"}, "switches", "switch"},
        {{"cluster", "storage_fabric", "storage_node_nic"}, "nics", "NIC"},
        {{"cluster", "storage", "nic"}, "nics", "NIC"},
        {{"cluster", "clients", "nic"}, "nics", "NIC"},
    };
    return all;
}

std::string dotted(const std::vector<std::string>& path) {
    std::string out;
    for (const auto& p : path) out = key_path(out, p);
    return out;
}

// The node at `path` (from `first` on), or nullptr when any step is missing or not a mapping.
Node* find_path(Node& root, const std::vector<std::string>& path, std::size_t first = 0) {
    Node* at = &root;
    for (std::size_t i = first; i < path.size(); ++i) {
        if (!at->is_mapping()) return nullptr;
        at = at->find(path[i]);
        if (at == nullptr) return nullptr;
    }
    return at;
}

bool starts_with(const std::vector<std::string>& path, const std::vector<std::string>& prefix) {
    return path.size() > prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

// A preset's own references to presets of slots inside it become { preset: NAME } mappings,
// so that the user's keys for that slot merge with the named preset instead of replacing it:
// `server: { preset: hgx-h100, nic: { line_rate: 200Gbps } }` keeps hgx-h100's ConnectX-7.
void desugar_nested(Node& tree, const PresetSlot& outer) {
    for (const PresetSlot& inner : slots()) {
        if (!starts_with(inner.path, outer.path)) continue;
        if (Node* n = find_path(tree, inner.path, outer.path.size())) desugar_preset_shorthand(*n);
    }
}

}  // namespace

bool is_preset_slot(const std::vector<std::string>& path) {
    return std::any_of(slots().begin(), slots().end(), [&](const PresetSlot& s) { return s.path == path; });
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

const PresetLibrary::Loaded* PresetLibrary::load(const PresetSlot& slot, const std::string& name) {
    const std::string& folder = slot.folder;
    const std::string root_path = dotted(slot.path);
    // By slot too: the same NIC preset read for two slots reports its issues under each path.
    const std::string cache_key = folder + "/" + name + "@" + root_path;
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
                    loaded.issues.add(tree->location, root_path, "a preset file must be a mapping, found {}",
                                      describe_found(*tree));
                } else {
                    if (const Node* d = tree->find("description"))
                        read_text(*d, key_path(root_path, "description"), loaded.issues);
                    tree->erase("description");
                    for (const auto& e : tree->entries)
                        if (e.key == "preset")
                            loaded.issues.add(e.key_location, key_path(root_path, "preset"),
                                              "a preset file cannot name another preset");
                    tree->erase("preset");
                    desugar_nested(*tree, slot);
                    loaded.tree = std::move(*tree);
                }
            }
        }
        return &cache_.emplace(cache_key, std::move(loaded)).first->second;
    }
    return nullptr;
}

void PresetLibrary::expand(Node& root, Issues& issues) {
    for (const PresetSlot& slot : slots()) {
        Node* node = find_path(root, slot.path);
        if (node != nullptr) expand_one(*node, slot, dotted(slot.path), issues);
    }
    // Each switch of a custom topology may name a switch preset too (cluster.fabric.switches[i]).
    static const PresetSlot custom_switch{{"cluster", "fabric", "switches"}, "switches", "switch"};
    if (Node* list = find_path(root, custom_switch.path); list != nullptr && list->is_sequence())
        for (std::size_t i = 0; i < list->items.size(); ++i)
            if (list->items[i].is_mapping())
                expand_one(list->items[i], custom_switch, index_path(dotted(custom_switch.path), i), issues);
}

void PresetLibrary::expand_one(Node& node, const PresetSlot& slot, const std::string& path, Issues& issues) {
    const bool shorthand = node.is_scalar();
    desugar_preset_shorthand(node);
    if (!node.is_mapping()) return;  // the validator reports the wrong type
    const Node* name = node.find("preset");
    if (name == nullptr) return;  // a full inline definition
    const std::string name_path = shorthand ? path : key_path(path, "preset");
    if (!name->is_scalar()) {
        issues.add(name->location, name_path, "expected a {} preset name, found {}", slot.what, describe_found(*name));
        node.unresolved = true;
        return;
    }
    const Loaded* preset = load(slot, name->text);
    if (preset == nullptr) {
        const auto names = available(slot.folder);
        std::string listing;
        if (!names.empty())
            listing = available_choices(name->text, names);
        else if (dirs_.empty())
            listing = "; no config folder was given";
        else
            listing = fmt::format("; no {} presets were found", slot.what);
        issues.add(name->location, name_path, "unknown {} preset \"{}\"{}", slot.what, name->text, listing);
        node.unresolved = true;
        return;
    }
    issues.append(preset->issues);
    if (!preset->tree) {
        node.unresolved = true;
        return;
    }
    Node merged = *preset->tree;
    merged.location = node.location;
    deep_merge(merged, std::move(node));
    node = std::move(merged);
}

}  // namespace fabricsim::scenario
