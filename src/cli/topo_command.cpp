#include "cli/topo_command.hpp"

#include "core/errors.hpp"
#include "fabric/channel_dependencies.hpp"
#include "fabric/host_staging.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology_summary.hpp"
#include "report/topology_json.hpp"
#include "report/topology_text.hpp"
#include "scenario/loader.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace fabricsim::cli {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

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

    std::string text;
    Json first, variants_json = Json::array();
    for (const scenario::Variant* v : variants) {
        const fabric::Topology topology = build_variant_topology(loaded, *v);
        const fabric::TopologySummary summary = fabric::summarize(topology, v->spec.cluster);
        if (!args.dot_file.empty())
            write_file(dot_path(args.dot_file, v->name, variants.size() > 1),
                       fabric::to_dot(topology, args.dot_servers));
        // A custom graph's shortest paths: whether their channel dependencies have a cycle.
        std::vector<std::string> cycle;
        const bool custom = v->spec.cluster.fabric.topology == scenario::TopologyKind::custom;
        if (custom) {
            const fabric::Routing routing(topology, v->spec.cluster.fabric.routing, v->spec.cluster.fabric.technology,
                                          v->spec.seed);
            cycle = fabric::channel_dependency_cycle(topology, routing);
        }
        if (!args.json) {
            text += fmt::format("{}variant {}\n{}", text.empty() ? "" : "\n", v->name, report::topology_text(summary));
            // The server's data paths, GPUDirect or through host memory (docs/models/gpudirect.md).
            for (const std::string& path : fabric::host_path_lines(v->spec.cluster))
                text += fmt::format("  {:<14}{}\n", "data path", path);
            if (custom)
                text += fmt::format("  {:<14}{}\n", "deadlock",
                                    cycle.empty() ? "no cycle in the routing's channel dependencies (cannot deadlock)"
                                                  : fabric::describe_cycle(cycle));
            continue;
        }
        Json fields = report::topology_json(summary);
        fields["data_paths"] = fabric::host_path_lines(v->spec.cluster);
        if (custom) fields["custom_fabric"] = report::custom_fabric_json(topology, cycle);
        Json variant{{"variant", v->name}};
        variant.update(fields);
        variants_json.push_back(std::move(variant));
        if (first.is_null()) first = std::move(fields);
    }
    if (!args.json)
        return fmt::format("{} — topology of {} variant{}\n\n{}", loaded.variants.front().spec.name, variants.size(),
                           variants.size() == 1 ? "" : "s", text);
    // The first variant's fields at the top level, then every variant.
    Json root{
        {"schema_version", 1}, {"scenario", loaded.variants.front().spec.name}, {"variant", variants.front()->name}};
    root.update(first);
    root["variants"] = std::move(variants_json);
    return root.dump(2) + "\n";
}

int topo_command(const TopoArgs& args) {
    fmt::print("{}", topo_output(args));
    return kExitOk;
}

}  // namespace fabricsim::cli
