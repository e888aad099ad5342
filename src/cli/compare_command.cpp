#include "cli/compare_command.hpp"

#include "cli/interrupt.hpp"
#include "cli/progress_bar.hpp"
#include "cli/variant_runner.hpp"
#include "core/errors.hpp"
#include "report/comparison.hpp"
#include "report/html_report.hpp"
#include "report/run_status.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace fabricsim::cli {

namespace {

namespace fs = std::filesystem;

void write_text(const std::string& option, const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) {
        ConfigIssue issue;
        issue.location.file = option;
        issue.message = fmt::format("cannot write \"{}\"", path);
        throw ConfigError(std::move(issue));
    }
}

}  // namespace

int compare_command(const CompareArgs& args) {
    install_interrupt_handlers();
    struct Input {
        scenario::LoadedScenario loaded;
        std::vector<const scenario::Variant*> variants;
    };
    std::vector<Input> inputs;
    for (const std::string& file : args.files) {
        ScenarioArgs s{file, args.sets, args.seed, std::nullopt};
        Input in{load_scenario_args(s), {}};
        for (const auto& v : in.loaded.variants) check_variant_runs(in.loaded, v);
        inputs.push_back(std::move(in));
    }
    for (Input& in : inputs) in.variants = select_variants(in.loaded, {});

    report::RunResult all;  // every variant of every file, in order, for the status lines
    all.fabricsim_version = FABRICSIM_VERSION;
    std::vector<std::string> names;
    for (const Input& in : inputs) {
        const std::size_t first = all.variants.size();
        all.variants.resize(first + in.variants.size());
        all.variants_asked += in.variants.size();
        RunPlan plan;
        plan.jobs = args.jobs;
        plan.show_progress = !args.quiet && stderr_is_terminal();
        plan.interrupt = &interrupt_flag();
        run_variants(in.variants, plan,
                     [&](std::size_t i, report::VariantResult r) { all.variants[first + i] = std::move(r); });
        const std::string stem = fs::path(in.loaded.file).stem().string();
        for (const scenario::Variant* v : in.variants)
            names.push_back(inputs.size() == 1               ? v->name
                            : in.loaded.variants.size() == 1 ? stem
                                                             : fmt::format("{}: {}", stem, v->name));
        if (interrupt_flag().load() != 0) break;
    }
    all.variants.resize(names.size());

    std::vector<const report::VariantResult*> results;
    for (const auto& v : all.variants) results.push_back(&v);
    const report::Comparison table = report::compare(results, names);
    if (!args.markdown.empty()) write_text("--markdown", args.markdown, report::comparison_markdown(table));
    if (!args.html.empty()) {
        std::string title;
        for (const Input& in : inputs) title += (title.empty() ? "" : " vs ") + in.loaded.variants.front().spec.name;
        write_text("--html", args.html, report::html_report(title, table, results, names));
    }
    const std::string status = report::status_lines(all);
    fmt::print(stderr, "{}{}", status, report::warning_lines(all));
    if (!args.quiet) fmt::print("{}", report::comparison_text(table));
    if (const int signal = interrupt_flag().load(); signal != 0) return kExitSignalBase + signal;
    return all.complete() ? kExitOk : kExitModel;
}

}  // namespace fabricsim::cli
