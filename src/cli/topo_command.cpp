#include "cli/topo_command.hpp"

#include "core/errors.hpp"
#include "fabric/topology_summary.hpp"
#include "scenario/loader.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace fabricsim::cli {

namespace {

namespace fs = std::filesystem;

// "{\n<fields>\n}" -> "<fields>"
std::string inner(const std::string& object) {
    const auto open = object.find('\n') + 1;
    const auto close = object.rfind('\n');
    return object.substr(open, close - open);
}

std::string json_quoted(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

fs::path dot_path(const std::string& file, const std::string& variant, bool several) {
    if (!several) return file;
    fs::path p(file);
    const fs::path ext = p.extension();
    p.replace_extension();
    return p.string() + "." + variant + ext.string();
}

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) {
        ConfigIssue issue;
        issue.location.file = "--dot";
        issue.message = fmt::format("cannot write \"{}\"", path.string());
        throw ConfigError(std::move(issue));
    }
}

}  // namespace

std::string topo_output(const TopoArgs& args) {
    const scenario::LoadedScenario loaded = load_scenario_args(args.scenario);
    std::vector<const scenario::Variant*> variants;
    for (const auto& v : loaded.variants)
        if (args.variant.empty() || v.name == args.variant) variants.push_back(&v);
    if (variants.empty()) {
        std::string names;
        for (const auto& v : loaded.variants) names += (names.empty() ? "" : ", ") + v.name;
        ConfigIssue issue;
        issue.location.file = "--variant";
        issue.message = fmt::format("no variant \"{}\" in {}; it has: {}", args.variant, loaded.file, names);
        throw ConfigError(std::move(issue));
    }

    std::string text, objects, first;
    for (const scenario::Variant* v : variants) {
        const fabric::Topology topology = build_variant_topology(loaded, *v);
        const fabric::TopologySummary summary = fabric::summarize(topology, v->spec.cluster);
        if (!args.dot_file.empty())
            write_file(dot_path(args.dot_file, v->name, variants.size() > 1), fabric::to_dot(topology, args.dot_servers));
        if (!args.json) {
            text += fmt::format("{}variant {}\n{}", text.empty() ? "" : "\n", v->name, fabric::to_text(summary));
            continue;
        }
        // The summary's fields, without its braces, one per line.
        const std::string fields = inner(fabric::to_json(summary, 4));
        objects += fmt::format("{}    {{\n      \"variant\": {},\n{}\n    }}", objects.empty() ? "" : ",\n",
                               json_quoted(v->name), fields);
        if (first.empty()) first = inner(fabric::to_json(summary, 0));
    }
    if (!args.json)
        return fmt::format("{} — topology of {} variant{}\n\n{}", loaded.variants.front().spec.name, variants.size(),
                           variants.size() == 1 ? "" : "s", text);
    // The first variant's fields at the top level, then every variant.
    return fmt::format("{{\n  \"schema_version\": 1,\n  \"scenario\": {},\n  \"variant\": {},\n{},\n  \"variants\": [\n{}\n  ]\n}}\n",
                       json_quoted(loaded.variants.front().spec.name), json_quoted(variants.front()->name), first, objects);
}

int topo_command(const TopoArgs& args) {
    fmt::print("{}", topo_output(args));
    return kExitOk;
}

}  // namespace fabricsim::cli
