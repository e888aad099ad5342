#include "scenario/overrides.hpp"

#include "scenario/field_readers.hpp"
#include "scenario/presets.hpp"
#include "scenario/yaml_tree.hpp"

#include <fmt/format.h>

#include <charconv>

namespace fabricsim::scenario {

namespace {

// "cluster.servers" → {"cluster", "servers"}; nullopt for empty segments or a section that
// is not part of a variant's tree.
std::optional<std::vector<std::string>> split_path(const std::string& dotted, std::string& why) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t dot = dotted.find('.', start);
        parts.push_back(dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (parts.back().empty()) {
            why = fmt::format("\"{}\" is not a key path (expected e.g. cluster.servers)", dotted);
            return std::nullopt;
        }
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    if (parts.front() == "variants" || parts.front() == "include") {
        why = fmt::format("\"{}\" cannot be overridden", parts.front());
        return std::nullopt;
    }
    return parts;
}

std::optional<std::size_t> parse_index(const std::string& s) {
    std::size_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

}  // namespace

std::vector<VariantDef> take_variants(Node& root, Issues& issues) {
    std::vector<VariantDef> out;
    Node* variants = root.find("variants");
    if (variants == nullptr) return out;
    Node section = std::move(*variants);
    root.erase("variants");
    if (section.is_null()) return out;
    if (!section.is_mapping()) {
        add_expected(issues, section, "variants", "a mapping of variant names to overrides");
        return out;
    }
    for (auto& v : section.entries) {
        const std::string vpath = key_path("variants", v.key);
        if (!is_valid_name(v.key)) {
            issues.add(v.key_location, vpath, "a variant name may use only letters, digits, \".\", \"_\" and \"-\"");
            continue;
        }
        VariantDef def{v.key, {}};
        if (!v.value.is_null() && !v.value.is_mapping()) {
            issues.add(v.value.location, vpath, "expected a mapping of key.path: value, found {}",
                       describe_found(v.value));
            continue;
        }
        for (auto& e : v.value.entries) {
            std::string why;
            auto path = split_path(e.key, why);
            if (!path) {
                issues.add(e.key_location, vpath, why);
                continue;
            }
            def.overrides.push_back(Override{std::move(*path), e.key_location, std::move(e.value)});
        }
        out.push_back(std::move(def));
    }
    return out;
}

std::optional<Override> parse_set(const std::string& argument, SourceFiles& files, Issues& issues) {
    const std::string pseudo = "--set " + argument;
    files.note_pseudo_file(pseudo);
    const SourceLocation where{pseudo, 0, 0};
    const std::size_t eq = argument.find('=');
    if (eq == std::string::npos) return issues.reject(where, "", "expected key.path=value");
    std::string why;
    auto path = split_path(argument.substr(0, eq), why);
    if (!path) return issues.reject(where, "", why);
    auto value = parse_yaml(YamlSource{std::string_view(argument).substr(eq + 1), pseudo, "", false}, issues);
    if (!value) return std::nullopt;
    return Override{std::move(*path), where, std::move(*value)};
}

void apply_override(Node& root, const Override& o, Issues& issues) {
    Node* at = &root;
    std::vector<std::string> walked;  // segments so far, for preset slots
    std::string shown;                // key path so far, in message spelling
    for (const std::string& segment : o.path) {
        if (is_preset_slot(walked)) desugar_preset_shorthand(*at);
        if (at->is_null()) *at = Node::mapping(o.location);
        if (at->is_sequence()) {
            const auto index = parse_index(segment);
            const std::size_t n = at->items.size();
            if (!index) {
                issues.add(o.location, shown, "is a list; expected an index (0..{}), found \"{}\"", n == 0 ? 0 : n - 1,
                           segment);
                return;
            }
            if (*index >= n) {
                issues.add(o.location, shown, "index {} is past the end of the list ({} entr{})", *index, n,
                           n == 1 ? "y" : "ies");
                return;
            }
            at = &at->items[*index];
            shown = index_path(shown, *index);
        } else if (at->is_mapping()) {
            Node* child = at->find(segment);
            if (child == nullptr) {
                Node created;
                created.location = o.location;
                at->entries.push_back(Entry{segment, o.location, std::move(created)});
                child = &at->entries.back().value;
            }
            at = child;
            shown = key_path(shown, segment);
        } else {
            issues.add(o.location, shown, "is a single value ({}), so it has no key \"{}\"", describe_found(*at),
                       segment);
            return;
        }
        walked.push_back(segment);
    }
    if (is_preset_slot(walked) && o.value.is_mapping()) desugar_preset_shorthand(*at);
    deep_merge(*at, o.value);
}

}  // namespace fabricsim::scenario
