#include "cli/commands.hpp"

#include "cli/progress_bar.hpp"
#include "cli/fault_results.hpp"
#include "cli/run_variant.hpp"
#include "core/errors.hpp"
#include "fabric/packet/fault_injector.hpp"
#include "fabric/topology_builder.hpp"
#include "report/result_csv.hpp"
#include "report/result_json.hpp"
#include "report/busbw_curve.hpp"
#include "report/fault_summary.hpp"
#include "report/summary_table.hpp"
#include "scenario/loader.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace fabricsim::cli {

namespace {

namespace fs = std::filesystem;

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw Error(fmt::format("cannot write {}", path.string()));
}

fs::path output_dir(const RunArgs& args, const scenario::ScenarioSpec& first) {
    if (!args.out_dir.empty()) return args.out_dir;
    if (!first.outputs.dir.empty()) return first.outputs.dir;
    return fs::path("results") / first.name;
}

}  // namespace

Failure describe_failure(const std::exception& error) {
    if (const auto* e = dynamic_cast<const ConfigError*>(&error)) {
        std::string text;
        for (const auto& issue : e->issues()) text += issue.str() + "\n";
        const auto n = e->issues().size();
        text += fmt::format("fabricsim: {} error{} in the input\n", n, n == 1 ? "" : "s");
        return {kExitBadInput, text};
    }
    if (dynamic_cast<const ModelError*>(&error) != nullptr)
        return {kExitModel, fmt::format("fabricsim: model error: {}\n", error.what())};
    if (dynamic_cast<const InternalError*>(&error) != nullptr)
        return {kExitInternal, fmt::format("fabricsim: internal error (a bug, please report it): {}\n", error.what())};
    return {kExitInternal, fmt::format("fabricsim: error: {}\n", error.what())};
}

scenario::LoadedScenario load_scenario_args(const ScenarioArgs& args) {
    scenario::LoadOptions options;
    for (const auto& dir : config_dirs()) options.config_dirs.emplace_back(dir);
    options.sets = args.sets;
    options.seed = args.seed;
    return scenario::load_scenario(args.file, options);
}

fabric::Topology build_variant_topology(const scenario::LoadedScenario& loaded, const scenario::Variant& variant) {
    try {
        fabric::Topology topology = fabric::build_topology(variant.spec.cluster);
        // The faults' links and nodes are names in this topology (docs/models/faults.md).
        if (variant.spec.simulation.model == scenario::NetworkModel::packet)
            fabric::resolve_fault_targets(topology, variant.spec.faults);
        return topology;
    } catch (const ConfigError& e) {
        std::vector<ConfigIssue> issues = e.issues();
        for (auto& issue : issues) {
            if (issue.location.file.empty()) issue.location.file = loaded.file;
            if (loaded.variants.size() > 1) issue.message += fmt::format(" (variant \"{}\")", variant.name);
        }
        throw ConfigError(std::move(issues));
    }
}

std::vector<std::string> config_dirs() {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("FABRICSIM_CONFIG_DIR"); env != nullptr && *env != '\0') dirs.emplace_back(env);
    dirs.emplace_back(FABRICSIM_SOURCE_CONFIG_DIR);
    return dirs;
}

int run_command(const RunArgs& args) {
    const scenario::LoadedScenario loaded = load_scenario_args(args.scenario);
    const scenario::ScenarioSpec& first = loaded.variants.front().spec;

    report::RunResult result;
    result.fabricsim_version = FABRICSIM_VERSION;
    result.scenario_file = loaded.file;
    result.scenario = loaded.variants.front().resolved;
    const bool show_progress = !args.quiet && stderr_is_terminal();
    // Whichever model runs it, a cluster the topology builder rejects is bad input.
    for (const auto& variant : loaded.variants) build_variant_topology(loaded, variant);
    for (const auto& variant : loaded.variants) {
        ProgressBar bar(variant.name, show_progress);
        auto progress = [&bar](Time t, std::size_t done, std::size_t total) { bar.update(t, done, total); };
        result.variants.push_back(run_variant(variant, show_progress ? ProgressFn(progress) : ProgressFn{}, args.check));
        if (args.baseline && !variant.spec.faults.empty()) {  // the same variant without its faults
            scenario::Variant clean = variant;
            clean.spec.faults.clear();
            result.variants.back().baseline = compare_with_baseline(result.variants.back(), run_variant(clean, {}, args.check));
        }
    }

    const fs::path dir = output_dir(args, first);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        ConfigIssue issue;
        issue.location.file = args.out_dir.empty() ? loaded.file : std::string("--out");
        issue.key_path = "outputs.dir";
        issue.message = fmt::format("cannot create output folder \"{}\": {}", dir.string(), ec.message());
        throw ConfigError(std::move(issue));
    }
    for (auto format : first.outputs.formats) {
        if (format == scenario::OutputFormat::json) write_file(dir / "result.json", report::to_json(result));
        if (format == scenario::OutputFormat::csv) {
            write_file(dir / "transfers.csv", report::transfers_csv(result));
            write_file(dir / "summary.csv", report::summary_csv(result));
            bool any_ports = false;
            for (const auto& v : result.variants) any_ports = any_ports || !v.ports.empty();
            if (any_ports) write_file(dir / "ports.csv", report::ports_csv(result));
            bool any_rates = false;
            for (const auto& v : result.variants) any_rates = any_rates || !v.qp_rates.empty();
            if (any_rates) write_file(dir / "qp_rates.csv", report::qp_rates_csv(result));
        }
    }
    if (!args.quiet) {
        const std::string curves = report::busbw_curves(result);  // nccl-tests' columns, for sweeps
        const std::string faults = report::faults_summary(result);
        fmt::print("{} — {} variant{}\n\n{}\n{}{}{}{}results in {}\n", first.name, result.variants.size(),
                   result.variants.size() == 1 ? "" : "s", report::summary_table(result), curves,
                   curves.empty() ? "" : "\n", faults, faults.empty() ? "" : "\n", dir.string());
    }
    return kExitOk;
}

int validate_command(const ScenarioArgs& args, bool print) {
    const scenario::LoadedScenario loaded = load_scenario_args(args);
    if (print) {
        for (const auto& variant : loaded.variants)
            fmt::print("--- # variant: {}\n{}", variant.name, scenario::to_yaml(variant.resolved));
        return kExitOk;
    }
    std::string names;
    for (const auto& variant : loaded.variants) names += (names.empty() ? "" : ", ") + variant.name;
    fmt::print("{}: ok ({} variant{}: {})\n", loaded.file, loaded.variants.size(),
               loaded.variants.size() == 1 ? "" : "s", names);
    return kExitOk;
}

}  // namespace fabricsim::cli
