#include "cli/commands.hpp"

#include "cli/interrupt.hpp"
#include "cli/malloc_huge_pages.hpp"
#include "cli/memory_estimate.hpp"
#include "cli/progress_bar.hpp"
#include "cli/result_files.hpp"
#include "cli/variant_runner.hpp"
#include "core/errors.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "fabric/packet/dcqcn_config.hpp"
#include "fabric/packet/fault_injector.hpp"
#include "fabric/packet/queue_sampler.hpp"
#include "fabric/pfc_headroom.hpp"
#include "fabric/topology_builder.hpp"
#include "report/busbw_curve.hpp"
#include "report/fault_summary.hpp"
#include "report/run_status.hpp"
#include "report/summary_table.hpp"
#include "report/trace_table.hpp"
#include "scenario/loader.hpp"
#include "scenario/units_parse.hpp"
#include "workloads/trace_index.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <new>

#include <fmt/format.h>

namespace fabricsim::cli {

namespace {

namespace fs = std::filesystem;

fs::path output_dir(const RunArgs& args, const scenario::ScenarioSpec& first) {
    if (!args.out_dir.empty()) return args.out_dir;
    if (!first.outputs.dir.empty()) return first.outputs.dir;
    return default_results_dir(first.name);
}

// SHARP is computed by InfiniBand switches (docs/models/sharp.md): asking for it on another
// fabric is a mistake in the input, not something the run finds out.
void check_in_network_algorithms(const scenario::LoadedScenario& loaded, const scenario::Variant& variant) {
    const scenario::ScenarioSpec& spec = variant.spec;
    std::vector<ConfigIssue> issues;
    for (std::size_t i = 0; i < spec.workload.size(); ++i) {
        const auto* c = std::get_if<scenario::CollectiveSpec>(&spec.workload[i].kind);
        if (c == nullptr || c->algorithm != scenario::CollectiveAlgorithm::sharp) continue;
        std::string why;
        if (spec.cluster.fabric.technology != scenario::Technology::infiniband)
            why = "algorithm sharp needs an InfiniBand fabric (SHARP is computed by InfiniBand switches), and "
                  "cluster.fabric.technology is roce; use technology: infiniband with a SHARP switch (quantum, "
                  "quantum-2), or another algorithm (ring, tree, auto)";
        else if (!spec.cluster.fabric.switch_spec.sharp)
            why = "algorithm sharp needs switches with sharp: true, and cluster.fabric.switch has sharp: false; use "
                  "a SHARP switch (quantum, quantum-2) or another algorithm (ring, tree, auto)";
        if (why.empty()) continue;
        ConfigIssue issue;
        issue.location = spec.workload[i].location;
        if (issue.location.file.empty()) issue.location.file = loaded.file;
        issue.key_path = fmt::format("workload[{}].algorithm", i);
        issue.message = why + (loaded.variants.size() > 1 ? fmt::format(" (variant \"{}\")", variant.name) : "");
        issues.push_back(std::move(issue));
    }
    if (!issues.empty()) throw ConfigError(std::move(issues));
}

// Refuses, before anything is built, a variant whose estimated memory exceeds --max-memory
// or, without it, the memory the machine has available now. Returns the largest estimate.
Bytes check_variants_memory(const RunArgs& args, const scenario::LoadedScenario& loaded,
                            const std::vector<const scenario::Variant*>& selected) {
    std::optional<Bytes> limit;
    std::string source = "--max-memory";
    if (!args.max_memory.empty()) {
        const auto parsed = scenario::parse_bytes(args.max_memory);
        if (!parsed.ok() || parsed.value() <= Bytes::zero()) {
            ConfigIssue issue;
            issue.location.file = "--max-memory";
            issue.message =
                parsed.ok() ? "expected a size greater than 0, found \"" + args.max_memory + "\"" : parsed.error();
            throw ConfigError(std::move(issue));
        }
        limit = parsed.value();
    } else {
        limit = available_memory();
        source = "the memory available now, /proc/meminfo MemAvailable";
    }
    Bytes largest = Bytes::zero();
    for (const scenario::Variant* variant : selected) {
        const MemoryEstimate estimate = estimate_memory(variant->spec);
        largest = std::max(largest, estimate.total());
        if (limit)
            check_memory(estimate, *limit, source, loaded.file,
                         loaded.variants.size() > 1 ? variant->name : std::string());
    }
    return largest;
}

void print_warnings(const scenario::LoadedScenario& loaded) {
    for (const ConfigIssue& warning : loaded.warnings) fmt::print(stderr, "fabricsim: warning: {}\n", warning.str());
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
    if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr)
        return {kExitBadInput, "fabricsim: out of memory: the scenario needs more memory than this machine could give; "
                               "make it smaller (fewer ranks, sizes, iterations or flows). The estimate that "
                               "`run --max-memory` checks was too low for it (please report it)\n"};
    if (dynamic_cast<const InternalError*>(&error) != nullptr)
        return {kExitInternal, fmt::format("fabricsim: internal error (a bug, please report it): {}\n", error.what())};
    return {kExitInternal, fmt::format("fabricsim: error: {}\n", error.what())};
}

scenario::LoadedScenario load_scenario_quietly(const ScenarioArgs& args) {
    scenario::LoadOptions options;
    for (const auto& dir : config_dirs()) options.config_dirs.emplace_back(dir);
    options.sets = args.sets;
    options.seed = args.seed;
    options.model = args.model;
    return scenario::load_scenario(args.file, options);
}

scenario::LoadedScenario load_scenario_args(const ScenarioArgs& args) {
    scenario::LoadedScenario loaded = load_scenario_quietly(args);
    print_warnings(loaded);
    return loaded;
}

fabric::Topology build_variant_topology(const scenario::LoadedScenario& loaded, const scenario::Variant& variant) {
    try {
        fabric::Topology topology = fabric::build_topology(variant.spec.cluster);
        const scenario::ClusterSpec& cluster = variant.spec.cluster;
        // The packet model carves each switch buffer into PFC headroom and reserved space.
        if (variant.spec.simulation.model == scenario::NetworkModel::packet &&
            cluster.fabric.technology == scenario::Technology::roce) {
            fabric::check_pfc_buffers(topology, cluster.roce, cluster.fabric.mtu);
            fabric::check_dcqcn_line_rates(topology, cluster.roce);  // what each QP's DCQCN checks when made
        }
        // The faults' links and nodes are names in this topology (docs/models/faults.md).
        if (variant.spec.simulation.model == scenario::NetworkModel::packet) {
            fabric::resolve_fault_targets(topology, variant.spec.faults);
            fabric::resolve_queue_ports(topology, variant.spec.outputs.queues);  // outputs.queues.ports
        }
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

void check_variant_runs(const scenario::LoadedScenario& loaded, const scenario::Variant& variant) {
    build_variant_topology(loaded, variant);  // whichever model runs it
    check_in_network_algorithms(loaded, variant);
    // A trace's files are read once here, so that their errors stop run and validate before
    // any simulating (the run reads them again as it replays them).
    const fabric::IdealNetwork ideal(variant.spec.cluster, variant.spec.simulation.ideal);
    for (std::size_t i = 0; i < variant.spec.workload.size(); ++i)
        if (const auto* t = std::get_if<scenario::TraceSpec>(&variant.spec.workload[i].kind))
            workloads::index_trace(*t, fmt::format("workload[{}].trace", i), variant.spec.cluster, ideal);
}

int run_command(const RunArgs& args) {
    // From here a signal stops the run cleanly (no variant starts after it).
    install_interrupt_handlers();
    // Nothing is printed before the run may start itself again (for malloc's huge pages).
    const scenario::LoadedScenario loaded = load_scenario_quietly(args.scenario);
    const std::vector<const scenario::Variant*> selected = select_variants(loaded, args.variants);
    const scenario::ScenarioSpec& first = loaded.variants.front().spec;
    const Bytes largest = check_variants_memory(args, loaded, selected);  // before anything large is built
    if (want_malloc_huge_pages(huge_page_facts(), largest)) restart_with_malloc_huge_pages(interrupt_flag());
    print_warnings(loaded);
    for (const scenario::Variant* variant : selected) check_variant_runs(loaded, *variant);
    // Before any simulating: a folder that cannot be written fails now, not after hours.
    const ResultFolder folder(output_dir(args, first), first.outputs.formats,
                              args.out_dir.empty() ? loaded.file : std::string("--out"), !args.no_html);

    report::RunResult result;
    result.fabricsim_version = FABRICSIM_VERSION;
    result.git_commit = FABRICSIM_GIT_COMMIT;
    result.scenario_file = loaded.file;
    result.scenario = loaded.variants.front().resolved;
    result.variants_asked = selected.size();

    RunPlan plan;
    plan.jobs = args.jobs;
    plan.check = args.check;
    plan.baseline = args.baseline;
    plan.show_progress = !args.quiet && stderr_is_terminal();
    plan.interrupt = &interrupt_flag();
    // Each variant's results are written as soon as it is done, beside those done before, in
    // the order of `selected` whatever order they finish in.
    std::vector<std::size_t> done;  // indices into `selected` of result.variants
    run_variants(selected, plan, [&](std::size_t i, report::VariantResult r) {
        const auto at = std::upper_bound(done.begin(), done.end(), i);
        result.variants.insert(result.variants.begin() + (at - done.begin()), std::move(r));
        done.insert(at, i);
        folder.write(result);
    });
    if (done.empty()) folder.write(result);  // no variant finished (a signal before the first)

    // What is wrong comes first, and is said even with --quiet.
    const std::string status = report::status_lines(result);
    fmt::print(stderr, "{}{}", status, report::warning_lines(result));
    if (!args.quiet && !result.variants.empty()) {
        // nccl-tests' columns: for sweeps, and for a trace's collectives per process group.
        std::string curves = report::busbw_curves(result);
        const std::string traces = report::trace_tables(result);
        if (!traces.empty()) curves += (curves.empty() ? "" : "\n") + traces;
        const std::string faults = report::faults_summary(result);
        fmt::print("{}{} — {} variant{}\n\n{}\n{}{}{}{}results in {}\n", status.empty() ? "" : "\n", first.name,
                   result.variants.size(), result.variants.size() == 1 ? "" : "s", report::summary_table(result),
                   curves, curves.empty() ? "" : "\n", faults, faults.empty() ? "" : "\n", folder.dir().string());
    }
    if (const int signal = interrupt_flag().load(); signal != 0) return kExitSignalBase + signal;
    return result.complete() ? kExitOk : kExitModel;
}

int validate_command(const ScenarioArgs& args, bool print) {
    const scenario::LoadedScenario loaded = load_scenario_args(args);
    if (print) {
        for (const auto& variant : loaded.variants)
            fmt::print("--- # variant: {}\n{}", variant.name, scenario::to_yaml(variant.resolved));
        return kExitOk;
    }
    // What run would refuse before simulating, validate refuses too.
    for (const auto& variant : loaded.variants) check_variant_runs(loaded, variant);
    std::string names;
    for (const auto& variant : loaded.variants) names += (names.empty() ? "" : ", ") + variant.name;
    fmt::print("{}: ok ({} variant{}: {})\n", loaded.file, loaded.variants.size(),
               loaded.variants.size() == 1 ? "" : "s", names);
    return kExitOk;
}

}  // namespace fabricsim::cli
