// fabricsim: the command line. The only place that prints errors and chooses exit codes.
#include "cli/commands.hpp"
#include "cli/compare_command.hpp"
#include "cli/docs_command.hpp"
#include "cli/export_trace_command.hpp"
#include "cli/plan_command.hpp"
#include "cli/sweep_command.hpp"
#include "cli/topo_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

namespace {

constexpr const char* kExamples = R"(Examples:
  fabricsim run scenarios/quickstart.yaml
  fabricsim run scenarios/quickstart.yaml --set cluster.fabric.cable_length=100m --seed 3 --out /tmp/qs
  fabricsim validate scenarios/quickstart.yaml --print
  fabricsim topo scenarios/topology-h100-leaf-spine.yaml --json --dot /tmp/fabric.dot
  fabricsim plan scenarios/topology-h100-leaf-spine.yaml --gpus 256,1024
  fabricsim compare scenarios/incast-roce-vs-ib.yaml --html /tmp/incast.html
  fabricsim sweep scenarios/sweeps/allreduce-nic-speed.yaml --out /tmp/sweep

Exit codes: 0 ok (every variant complete and sound), 2 bad input (or an --out that cannot be
written), 3 a result that is not complete and sound (work unfinished, lossless drops, a broken
invariant, a deadlock or other model error, a run cut short by simulation.stop_time),
130/143 stopped by SIGINT/SIGTERM (results so far written, "complete": false),
1 internal error.)";

void add_scenario_options(CLI::App& cmd, fabricsim::cli::ScenarioArgs& args) {
    cmd.add_option("scenario", args.file, "Scenario YAML file")->required()->check(CLI::ExistingFile);
    cmd.add_option("--set", args.sets, "Override a key: --set key.path=value (repeatable)")->take_all();
    cmd.add_option("--seed", args.seed, "Random seed (overrides the scenario's seed)");
}

}  // namespace

int main(int argc, char** argv) {
    using namespace fabricsim::cli;
    CLI::App app{"fabricsim — a simulator of GPU-cluster network fabrics (RoCEv2 and InfiniBand)"};
    app.footer(kExamples);
    app.set_version_flag("--version", std::string("fabricsim ") + FABRICSIM_VERSION);
    app.require_subcommand(1);

    RunArgs run;
    auto* run_cmd = app.add_subcommand("run", "Run every variant of a scenario and write its results");
    add_scenario_options(*run_cmd, run.scenario);
    run_cmd->add_option("--out", run.out_dir, "Output folder (default: outputs.dir, else results/<name>)");
    run_cmd->add_flag("--quiet,-q", run.quiet, "Print nothing on success");
    run_cmd->add_flag("--check", run.check,
                      "Also check the network model's invariants during the run, every 16384 events (they are "
                      "always checked at its end: no lossless drop, no link above capacity, bytes conserved); "
                      "always on in debug builds");
    run_cmd->add_option("--variant", run.variants, "Run only this variant (repeatable; default: all)")
        ->allow_extra_args(false);
    run_cmd->add_option("-j,--jobs", run.jobs, "Variants to run at once (default: one per core)")
        ->check(CLI::NonNegativeNumber);
    run_cmd->add_option("--max-memory", run.max_memory,
                        "Refuse (exit 2) a run whose estimated memory is above this size, e.g. 8GiB "
                        "(default: the machine's available memory)");
    run_cmd->add_flag("--baseline", run.baseline,
                      "Also run each variant that has faults without them, and report the slowdown of each "
                      "collective, training iteration and the makespan");
    run_cmd->add_flag("--no-html", run.no_html,
                      "Write no report.html (the page `compare --html` writes) beside the result files");

    ScenarioArgs validate;
    bool print = false;
    auto* validate_cmd = app.add_subcommand("validate", "Check a scenario; --print shows it fully resolved");
    add_scenario_options(*validate_cmd, validate);
    validate_cmd->add_flag("--print", print, "Print every variant with defaults and presets applied, as YAML");

    DocsArgs docs;
    auto* docs_cmd = app.add_subcommand("docs", "Print what is generated from the scenario key declarations: "
                                                "docs/SCENARIO.md's key tables or a JSON Schema");
    auto* docs_keys =
        docs_cmd->add_flag("--keys", docs.keys, "The key reference tables of docs/SCENARIO.md (markdown)");
    auto* docs_schema =
        docs_cmd->add_flag("--json-schema", docs.json_schema,
                           "A JSON Schema of the scenario format, for editors (VS Code's YAML extension)");
    docs_cmd->add_option("--update", docs.update, "With --keys: rewrite the generated tables in this file in place")
        ->needs(docs_keys);
    docs_keys->excludes(docs_schema);
    docs_cmd->require_option(1, 2);

    TopoArgs topo;
    auto* topo_cmd =
        app.add_subcommand("topo", "Build each variant's cluster and print its switches, cables, bisection, "
                                   "diameter and latency");
    add_scenario_options(*topo_cmd, topo.scenario);
    topo_cmd->add_option("--variant", topo.variant, "Only this variant (default: all)");
    topo_cmd->add_flag("--json", topo.json, "Print JSON (the keys README.md lists under \"Using it\") instead of text");
    topo_cmd->add_option("--dot", topo.dot_file, "Write a GraphViz file (one per variant when there are several)");
    topo_cmd->add_flag("--dot-servers", topo.dot_servers,
                       "In the GraphViz file, draw each server's GPUs, switches and NICs");

    ExportTraceArgs export_trace;
    auto* export_cmd = app.add_subcommand(
        "export-trace", "Write the training entries of a scenario as Chakra execution traces (one file per rank)");
    add_scenario_options(*export_cmd, export_trace.scenario);
    export_cmd->add_option("--out", export_trace.out, "Folder of the traces: <folder>/<entry>.<rank>.et")->required();

    PlanArgs plan;
    auto* plan_cmd = app.add_subcommand("plan", "Capacity plan of each variant: bill of materials, power, cost, buffer "
                                                "checks and the workload's performance side by side");
    add_scenario_options(*plan_cmd, plan.scenario);
    plan_cmd->add_option("--variant", plan.variants, "Only this variant (repeatable; default: all)")
        ->allow_extra_args(false);
    plan_cmd->add_option("--gpus", plan.gpus, "Plan at these sizes, e.g. 1024,2048,4096 (scales cluster.servers)");
    plan_cmd->add_option("--model", plan.model,
                         "Run the workload on this model: flow (default; it sees the fabric), ideal, packet or none");
    plan_cmd->add_option("--prices", plan.prices, "Price table (default: configs/prices/default.yaml)");
    plan_cmd
        ->add_option("--run-up-to", plan.run_up_to,
                     "Run the workload only on designs of at most this many GPUs "
                     "(default 4096)")
        ->check(CLI::PositiveNumber);
    plan_cmd->add_flag("--json", plan.json, "Print JSON instead of text");
    plan_cmd->add_flag("--quiet,-q", plan.quiet, "No progress lines on stderr");

    CompareArgs compare;
    auto* compare_cmd = app.add_subcommand("compare", "Run every variant of one or more scenarios and set them side by "
                                                      "side in one table (console, --markdown, --html)");
    compare_cmd->add_option("scenarios", compare.files, "Scenario YAML files")->required()->check(CLI::ExistingFile);
    compare_cmd
        ->add_option("--set", compare.sets, "Override a key in every scenario: --set key.path=value (repeatable)")
        ->take_all();
    compare_cmd->add_option("--seed", compare.seed, "Random seed (overrides the scenarios' seeds)");
    compare_cmd->add_option("-j,--jobs", compare.jobs, "Variants to run at once (default: one per core)")
        ->check(CLI::NonNegativeNumber);
    compare_cmd->add_option("--markdown", compare.markdown, "Also write the table as Markdown to this file");
    compare_cmd->add_option("--html", compare.html, "Also write a self-contained HTML report with plots to this file");
    compare_cmd->add_flag("--quiet,-q", compare.quiet, "Print only problems");

    SweepArgs sweep;
    auto* sweep_cmd = app.add_subcommand("sweep", "Run a scenario's sweep: grid (every point, every variant) into one "
                                                  "CSV/JSON table and an HTML page of plots");
    sweep_cmd->add_option("scenario", sweep.scenario.file, "Scenario YAML file with a sweep: section")
        ->check(CLI::ExistingFile);
    sweep_cmd->add_option("--set", sweep.scenario.sets, "Override a key at every point (repeatable)")->take_all();
    sweep_cmd->add_option("--seed", sweep.scenario.seed, "Random seed (overrides the scenario's seed)");
    sweep_cmd->add_option("-j,--jobs", sweep.jobs, "Runs at once (default: one per core)")
        ->check(CLI::NonNegativeNumber);
    sweep_cmd->add_option("--out", sweep.out, "Sweep folder (default: results/<name>-sweep); finished points are kept");
    sweep_cmd->add_option("--emit-slurm", sweep.emit_slurm,
                          "Write a Slurm job array into this folder instead of running");
    sweep_cmd->add_option("--collect", sweep.collect, "Gather a sweep folder's results into its table");
    sweep_cmd->add_flag("--quiet,-q", sweep.quiet, "Print only problems");

    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return kExitBadInput;
    }

    try {
        if (*run_cmd) return run_command(run);
        if (*validate_cmd) return validate_command(validate, print);
        if (*topo_cmd) return topo_command(topo);
        if (*export_cmd) return export_trace_command(export_trace);
        if (*plan_cmd) return plan_command(plan);
        if (*compare_cmd) return compare_command(compare);
        if (*sweep_cmd) return sweep_command(sweep);
        if (*docs_cmd) return docs_command(docs);
    } catch (const std::exception& e) {
        const Failure failure = describe_failure(e);
        fmt::print(stderr, "{}", failure.text);
        return failure.exit_code;
    }
    return kExitInternal;
}
