// The loading pipeline of loader.hpp: read, include, split into variants, override, expand
// presets, validate each variant on its own, and report every issue of every stage at once.
#include "scenario/loader.hpp"

#include "scenario/describe.hpp"
#include "scenario/includes.hpp"
#include "scenario/issues.hpp"
#include "scenario/key_table.hpp"
#include "scenario/overrides.hpp"
#include "scenario/presets.hpp"
#include "scenario/source_files.hpp"
#include "scenario/validate.hpp"
#include "scenario/yaml_tree.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace fabricsim::scenario {

namespace {

// Past this many, more issues are noise (often one mistake echoed); the count is still given.
constexpr std::size_t kMaxReported = 200;

struct VariantIssues {
    std::string name;
    std::vector<ConfigIssue> issues;
};

// All issues in reading order. An issue found in every variant is reported once; one found
// only in some carries ` (variant "big")`, as does every issue of a file's only variant.
std::vector<ConfigIssue> combine(std::vector<ConfigIssue> all, const std::vector<VariantIssues>& variants,
                                 bool declared, const SourceFiles& files) {
    std::map<std::string, std::set<std::size_t>> seen_in;
    for (std::size_t v = 0; v < variants.size(); ++v)
        for (const auto& i : variants[v].issues) seen_in[i.str()].insert(v);
    const bool merge_common = !declared || variants.size() > 1;
    std::set<std::string> reported;
    for (const auto& v : variants) {
        for (const auto& issue : v.issues) {
            const std::string text = issue.str();
            if (merge_common && seen_in[text].size() == variants.size()) {
                if (reported.insert(text).second) all.push_back(issue);
                continue;
            }
            ConfigIssue tagged = issue;
            tagged.message += fmt::format(" (variant \"{}\")", v.name);
            all.push_back(std::move(tagged));
        }
    }
    sort_in_file_order(all, files.order());
    if (all.size() > kMaxReported) {
        const std::size_t more = all.size() - kMaxReported;
        all.resize(kMaxReported);
        ConfigIssue note;
        note.message = fmt::format("... and {} more issue{}", more, more == 1 ? "" : "s");
        all.push_back(std::move(note));
    }
    return all;
}

[[noreturn]] void fail(Issues& issues, const SourceFiles& files) {
    auto all = issues.take();
    sort_in_file_order(all, files.order());
    throw ConfigError(std::move(all));
}

}  // namespace

LoadedScenario load_scenario_text(const std::string& text, const std::string& file_name, const LoadOptions& options) {
    SourceFiles files;
    files.note_file(file_name);
    Issues base;

    auto parsed = parse_yaml(YamlSource{text, file_name, "", true}, base);
    if (!parsed) fail(base, files);
    if (parsed->is_null()) {
        base.add(SourceLocation{file_name, 1, 1}, "",
                 "the file is empty; a scenario needs at least name, cluster and workload");
        fail(base, files);
    }
    if (!parsed->is_mapping()) {
        base.add(parsed->location, "",
                 fmt::format("expected a mapping of sections (name, cluster, workload, ...), found {}",
                             describe_found(*parsed)));
        fail(base, files);
    }
    auto root = resolve_includes(std::move(*parsed), file_name, files, base);
    if (!root) fail(base, files);

    auto definitions = take_variants(*root, base);
    const bool declared = !definitions.empty();
    if (!declared) definitions.push_back(VariantDef{"default", {}});

    std::vector<Override> sets;
    for (const auto& s : options.sets)
        if (auto o = parse_set(s, files, base)) sets.push_back(std::move(*o));
    if (options.seed) {
        const SourceLocation where{"--seed", 0, 0};
        files.note_pseudo_file(where.file);
        sets.push_back(Override{{"seed"}, where, Node::scalar(std::to_string(*options.seed), where)});
    }

    PresetLibrary presets(options.config_dirs, files);
    LoadedScenario out{file_name, {}, {}};
    std::vector<VariantIssues> variant_issues;
    std::vector<VariantIssues> variant_warnings;
    for (const auto& def : definitions) {
        Node tree = *root;
        Issues issues;
        for (const auto& o : def.overrides) apply_override(tree, o, issues);
        for (const auto& o : sets) apply_override(tree, o, issues);
        presets.expand(tree, issues);
        ScenarioSpec spec = validate_scenario(tree, issues);
        Value resolved = describe(spec);
        Issues warnings;
        if (issues.empty()) warn_unread_keys(tree, resolved, options.model.value_or(spec.simulation.model), warnings);
        variant_issues.push_back(VariantIssues{def.name, issues.take()});
        variant_warnings.push_back(VariantIssues{def.name, warnings.take()});
        out.variants.push_back(Variant{def.name, std::move(spec), std::move(resolved)});
    }

    auto all = combine(base.take(), variant_issues, declared, files);
    if (!all.empty()) throw ConfigError(std::move(all));
    out.warnings = combine({}, variant_warnings, declared, files);
    return out;
}

LoadedScenario load_scenario(const std::filesystem::path& file, const LoadOptions& options) {
    SourceFiles files;
    Issues issues;
    const auto text = files.read(file, SourceLocation{}, "", issues);
    if (!text) throw ConfigError(issues.take());
    return load_scenario_text(*text, file.string(), options);
}

}  // namespace fabricsim::scenario
