#include "cli/sweep_command.hpp"

#include "cli/interrupt.hpp"
#include "cli/progress_bar.hpp"
#include "cli/result_files.hpp"
#include "cli/variant_runner.hpp"
#include "core/errors.hpp"
#include "report/result_csv.hpp"
#include "report/sweep_grid.hpp"
#include "report/sweep_table.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fabricsim::cli {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string& where, std::string message) {
    ConfigIssue issue;
    issue.location.file = where;
    issue.message = std::move(message);
    throw ConfigError(std::move(issue));
}

std::string read_text(const fs::path& path, const std::string& where) {
    std::error_code ec;
    std::ifstream in;
    if (fs::is_regular_file(path, ec)) in.open(path, std::ios::binary);
    if (!in.is_open()) fail(where, fmt::format("cannot read \"{}\"", path.string()));
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_text(const fs::path& path, const std::string& text, const std::string& where) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    const fs::path tmp = path.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        if (!out) fail(where, fmt::format("cannot write \"{}\"", path.string()));
    }
    fs::rename(tmp, path, ec);
    if (ec) fail(where, fmt::format("cannot write \"{}\": {}", path.string(), ec.message()));
}

bool done(const fs::path& dir, const std::string& hash) {
    std::error_code ec;
    return fs::is_regular_file(dir / "results" / hash / "summary.csv", ec);
}

// The grid's points, each loaded, with one row per point and variant (and its resolved text).
struct Expanded {
    std::vector<scenario::LoadedScenario> points;  // kept: rows point into them
    report::SweepTable table;
    std::vector<const scenario::Variant*> variants;  // per row
    std::vector<std::string> resolved;               // per row
};

Expanded expand(const SweepArgs& args) {
    const std::string text = read_text(args.scenario.file, args.scenario.file);
    const report::SweepGrid grid = report::parse_sweep(text, args.scenario.file);
    if (grid.axes.empty())
        fail(args.scenario.file, "no sweep: section; add one, e.g. sweep: { cluster.fabric.oversubscription: [\"1:1\", "
                                 "\"2:1\"] } (docs/REPORTS.md)");
    Expanded e;
    for (const auto& a : grid.axes) e.table.axes.push_back(a.key);
    e.points.reserve(grid.points());
    for (std::size_t p = 0; p < grid.points(); ++p) {
        const std::vector<std::string> values = grid.point(p);
        scenario::LoadOptions options;
        for (const auto& dir : config_dirs()) options.config_dirs.emplace_back(dir);
        options.sets = args.scenario.sets;
        for (std::size_t k = 0; k < values.size(); ++k)
            options.sets.push_back(fmt::format("{}={}", grid.axes[k].key, values[k]));
        options.seed = args.scenario.seed;
        e.points.push_back(scenario::load_scenario_text(grid.scenario_text, args.scenario.file, options));
        const scenario::LoadedScenario& loaded = e.points.back();
        if (p == 0) e.table.title = loaded.variants.front().spec.name;
        for (const auto& v : loaded.variants) {
            check_variant_runs(loaded, v);
            std::string yaml = scenario::to_yaml(v.resolved);
            e.table.rows.push_back({p, values, v.name, report::content_hash(yaml), false, {}});
            e.variants.push_back(&v);
            e.resolved.push_back(std::move(yaml));
        }
    }
    return e;
}

void write_manifest(const fs::path& dir, const report::SweepTable& t) {
    Json j;
    j["schema_version"] = 1;
    j["sweep"] = t.title;
    j["axes"] = t.axes;
    j["rows"] = Json::array();
    for (const auto& r : t.rows)
        j["rows"].push_back({{"point", r.point}, {"values", r.values}, {"variant", r.variant}, {"hash", r.hash}});
    write_text(dir / "manifest.json", j.dump(2) + "\n", "--out");
}

report::SweepTable read_manifest(const fs::path& dir) {
    const std::string where = "--collect";
    Json j;
    try {
        j = Json::parse(read_text(dir / "manifest.json", where));
        report::SweepTable t;
        t.title = j.at("sweep").get<std::string>();
        t.axes = j.at("axes").get<std::vector<std::string>>();
        for (const Json& r : j.at("rows"))
            t.rows.push_back({r.at("point").get<std::size_t>(),
                              r.at("values").get<std::vector<std::string>>(),
                              r.at("variant").get<std::string>(),
                              r.at("hash").get<std::string>(),
                              false,
                              {}});
        return t;
    } catch (const Json::exception& e) {
        fail(where, fmt::format("\"{}\" is not a sweep manifest: {}", (dir / "manifest.json").string(), e.what()));
    }
}

// Reads every finished point's summary and writes the table files; returns the rows not done.
std::size_t finish_table(const fs::path& dir, report::SweepTable& t, const std::string& where) {
    std::size_t missing = 0;
    for (auto& r : t.rows) {
        r.done = done(dir, r.hash);
        if (r.done)
            r.metrics = report::parse_summary_csv(read_text(dir / "results" / r.hash / "summary.csv", where));
        else
            ++missing;
    }
    write_text(dir / "sweep.csv", report::sweep_csv(t), where);
    write_text(dir / "sweep.json", report::sweep_json(t), where);
    write_text(dir / "sweep.html", report::sweep_html(t), where);
    return missing;
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

int emit_slurm(const SweepArgs& args, const Expanded& e) {
    const fs::path dir = fs::absolute(args.emit_slurm);
    std::string jobs;
    std::error_code ec;
    for (std::size_t i = 0; i < e.table.rows.size(); ++i) {
        write_text(dir / "jobs" / (e.table.rows[i].hash + ".yaml"), e.resolved[i], "--emit-slurm");
        jobs += e.table.rows[i].hash + "\n";
    }
    write_text(dir / "jobs.txt", jobs, "--emit-slurm");
    write_manifest(dir, e.table);
    fs::create_directories(dir / "logs", ec);
    const fs::path self = fs::canonical("/proc/self/exe", ec);
    const std::string script = fmt::format(
        R"(#!/bin/bash
# fabricsim sweep of {name}: {rows} runs ({points} points, every variant at each). Submit with
#   sbatch {script}
# or run one task by hand: SLURM_ARRAY_TASK_ID=0 bash {script}
# Gather the results with: fabricsim sweep --collect {dir}
#SBATCH --job-name=fabricsim-sweep
#SBATCH --array=0-{last}
#SBATCH --cpus-per-task=1
#SBATCH --output={dir_raw}/logs/%A_%a.out
set -uo pipefail
DIR={dir}
FABRICSIM=${{FABRICSIM:-{self}}}
hash=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" "$DIR/jobs.txt")
[ -n "$hash" ] || {{ echo "no job $SLURM_ARRAY_TASK_ID" >&2; exit 2; }}
out="$DIR/results/$hash"
if [ -s "$out/summary.csv" ]; then echo "done before: $hash"; exit 0; fi
rm -rf "$out.partial"
"$FABRICSIM" run "$DIR/jobs/$hash.yaml" --out "$out.partial" --quiet -j 1 --no-html
status=$?
# A finished run (0) or one that finished with problems (3) is a result; anything else is retried.
if [ $status -eq 0 ] || [ $status -eq 3 ]; then rm -rf "$out"; mv "$out.partial" "$out"; fi
exit $status
)",
        fmt::arg("name", e.table.title), fmt::arg("rows", e.table.rows.size()), fmt::arg("points", e.points.size()),
        fmt::arg("script", shell_quote((dir / "sweep.sbatch").string())), fmt::arg("dir", shell_quote(dir.string())),
        fmt::arg("dir_raw", dir.string()), fmt::arg("last", e.table.rows.size() - 1),
        fmt::arg("self", shell_quote(self.string())));
    write_text(dir / "sweep.sbatch", script, "--emit-slurm");
    fs::permissions(dir / "sweep.sbatch", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, ec);
    std::size_t finished = 0;
    for (const auto& r : e.table.rows) finished += done(dir, r.hash) ? 1 : 0;
    if (!args.quiet)
        fmt::print("{}: {} runs ({} points); {} done before. Submit: sbatch {}\nthen: fabricsim sweep --collect {}\n",
                   e.table.title, e.table.rows.size(), e.points.size(), finished, (dir / "sweep.sbatch").string(),
                   dir.string());
    return kExitOk;
}

}  // namespace

int sweep_command(const SweepArgs& args) {
    if (!args.collect.empty()) {
        const fs::path dir = args.collect;
        report::SweepTable t = read_manifest(dir);
        const std::size_t missing = finish_table(dir, t, "--collect");
        if (!args.quiet)
            fmt::print("{}: {} of {} runs have results{}; table in {}\n", t.title, t.rows.size() - missing,
                       t.rows.size(), missing == 0 ? "" : " (the others: not run yet, or failed)",
                       (dir / "sweep.csv").string());
        return missing == 0 ? kExitOk : kExitModel;
    }
    if (args.scenario.file.empty()) fail("sweep", "name a scenario file, or --collect DIR");
    install_interrupt_handlers();
    Expanded e = expand(args);
    if (!args.emit_slurm.empty()) return emit_slurm(args, e);

    const fs::path dir =
        !args.out.empty() ? fs::path(args.out) : fs::path(default_results_dir(e.table.title).string() + "-sweep");
    write_manifest(dir, e.table);
    std::vector<const scenario::Variant*> todo;
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < e.table.rows.size(); ++i)
        if (!done(dir, e.table.rows[i].hash)) {
            todo.push_back(e.variants[i]);
            rows.push_back(i);
        }
    const std::size_t cached = e.table.rows.size() - todo.size();
    RunPlan plan;
    plan.jobs = args.jobs;
    plan.show_progress = !args.quiet && stderr_is_terminal();
    plan.interrupt = &interrupt_flag();
    bool complete = true;
    run_variants(todo, plan, [&](std::size_t k, report::VariantResult r) {
        const std::size_t i = rows[k];
        complete = complete && r.complete();
        report::RunResult one;
        one.fabricsim_version = FABRICSIM_VERSION;
        one.variants_asked = 1;
        one.variants.push_back(std::move(r));
        write_text(dir / "jobs" / (e.table.rows[i].hash + ".yaml"), e.resolved[i], "--out");
        write_text(dir / "results" / e.table.rows[i].hash / "summary.csv", report::summary_csv(one), "--out");
    });
    const std::size_t missing = finish_table(dir, e.table, "--out");
    if (!args.quiet)
        fmt::print("{}: {} runs ({} points, every variant at each), {} done before, {} run now; table in {} (and "
                   "sweep.json, sweep.html)\n",
                   e.table.title, e.table.rows.size(), e.points.size(), cached, todo.size(),
                   (dir / "sweep.csv").string());
    if (const int signal = interrupt_flag().load(); signal != 0) return kExitSignalBase + signal;
    return complete && missing == 0 ? kExitOk : kExitModel;
}

}  // namespace fabricsim::cli
