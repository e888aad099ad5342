#include "cli/topo_command.hpp"

#include "core/errors.hpp"
#include "fabric/channel_dependencies.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology_summary.hpp"
#include "scenario/loader.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

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

// A custom topology's graph as built (nlohmann-json): each fabric switch with its tier, radix
// and ports in use, and each cable between fabric nodes (parallel cables once, with a count),
// so a script can check what it wrote against what was built; and the directed links of a
// cycle in the routing's channel dependency graph (empty: the routing cannot deadlock).
std::string custom_fabric_json(const fabric::Topology& t, const std::vector<std::string>& cycle, int indent) {
    using Json = nlohmann::ordered_json;
    Json switches = Json::array();
    for (const fabric::Node& n : t.nodes()) {
        if (!fabric::is_fabric_switch(n.kind) || n.storage_fabric) continue;
        switches.push_back(Json{{"name", n.name},
                                {"tier", std::string(fabric::to_string(n.kind))},
                                {"radix", n.radix},
                                {"ports_used", n.ports.size()}});
    }
    std::map<std::tuple<std::string, std::string, std::int64_t, std::int64_t>, std::pair<const fabric::Link*, int>> cables;
    for (const fabric::Link& l : t.links()) {
        if (l.type != fabric::LinkType::fabric) continue;
        auto& entry = cables[{t.node(l.a).name, t.node(l.b).name, l.bandwidth.bits_per_second(), l.length.millimetres()}];
        entry.first = &l;
        ++entry.second;
    }
    Json links = Json::array();
    for (const auto& [key, value] : cables) {
        const fabric::Link& l = *value.first;
        links.push_back(Json{{"from", std::get<0>(key)},
                             {"to", std::get<1>(key)},
                             {"count", value.second},
                             {"speed_bps", l.bandwidth.bits_per_second()},
                             {"length_m", static_cast<double>(l.length.millimetres()) / 1000.0},
                             {"class", l.link_class},
                             {"medium", std::string(fabric::to_string(l.medium))}});
    }
    std::string text = Json{{"switches", std::move(switches)},
                            {"links", std::move(links)},
                            {"channel_dependency_cycle", cycle}}.dump(2);
    const std::string pad(static_cast<std::size_t>(indent), ' ');
    for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1))
        text.insert(at + 1, pad);
    return text;
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
        // A custom graph's shortest paths: whether their channel dependencies have a cycle.
        std::vector<std::string> cycle;
        const bool custom = v->spec.cluster.fabric.topology == scenario::TopologyKind::custom;
        if (custom) {
            const fabric::Routing routing(topology, v->spec.cluster.fabric.routing, v->spec.cluster.fabric.technology,
                                          v->spec.seed);
            cycle = fabric::channel_dependency_cycle(topology, routing);
        }
        if (!args.json) {
            text += fmt::format("{}variant {}\n{}", text.empty() ? "" : "\n", v->name, fabric::to_text(summary));
            if (custom)
                text += fmt::format("  {:<14}{}\n", "deadlock",
                                    cycle.empty() ? "no cycle in the routing's channel dependencies (cannot deadlock)"
                                                  : fabric::describe_cycle(cycle));
            continue;
        }
        // The summary's fields, without its braces, one per line; a custom topology's graph after them.
        std::string fields = inner(fabric::to_json(summary, 4));
        std::string top = inner(fabric::to_json(summary, 0));
        if (custom) {
            fields += ",\n      \"custom_fabric\": " + custom_fabric_json(topology, cycle, 6);
            top += ",\n  \"custom_fabric\": " + custom_fabric_json(topology, cycle, 2);
        }
        objects += fmt::format("{}    {{\n      \"variant\": {},\n{}\n    }}", objects.empty() ? "" : ",\n",
                               json_quoted(v->name), fields);
        if (first.empty()) first = top;
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
