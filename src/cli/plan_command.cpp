#include "cli/plan_command.hpp"

#include "cli/run_variant.hpp"
#include "cli/variant_runner.hpp"
#include "core/errors.hpp"
#include "fabric/topology_summary.hpp"
#include "report/capacity_plan.hpp"
#include "report/price_table.hpp"

#include <charconv>
#include <filesystem>

#include <fmt/format.h>

namespace fabricsim::cli {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void bad_option(const std::string& option, std::string message) {
    ConfigIssue issue;
    issue.location.file = option;
    issue.message = std::move(message);
    throw ConfigError(std::move(issue));
}

std::vector<int> parse_gpus(const std::string& text) {
    std::vector<int> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        int v = 0;
        const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || v <= 0)
            bad_option("--gpus",
                       fmt::format("expected GPU counts separated by commas (1024,2048), found \"{}\"", item));
        out.push_back(v);
        start = comma + 1;
    }
    return out;
}

fs::path prices_path(const PlanArgs& args) {
    if (!args.prices.empty()) return args.prices;
    for (const auto& dir : config_dirs())
        if (fs::path p = fs::path(dir) / "prices" / "default.yaml"; fs::is_regular_file(p)) return p;
    bad_option("--prices", "no prices/default.yaml in the preset folders; name a price table with --prices");
}

std::optional<scenario::NetworkModel> model_of(const std::string& name) {
    if (name == "flow") return scenario::NetworkModel::flow;
    if (name == "ideal") return scenario::NetworkModel::ideal;
    if (name == "packet") return scenario::NetworkModel::packet;
    if (name == "none") return std::nullopt;
    bad_option("--model", fmt::format("expected flow, ideal, packet or none, found \"{}\"", name));
}

report::PlanPerformance perform(const scenario::LoadedScenario& loaded, const scenario::Variant& variant,
                                std::optional<scenario::NetworkModel> model, int gpus, const PlanArgs& args) {
    report::PlanPerformance p;
    if (!model) {
        p.note = "not run (--model none)";
        return p;
    }
    if (gpus > args.run_up_to) {
        p.note = fmt::format("not run: {} GPUs is above --run-up-to {} (a run this large takes long; raise it to run)",
                             gpus, args.run_up_to);
        return p;
    }
    scenario::Variant run = variant;
    run.spec.simulation.model = *model;
    try {
        check_variant_runs(loaded, run);
        if (!args.quiet)
            fmt::print(stderr, "fabricsim plan: running {} at {} GPUs on the {} model\n", variant.name, gpus,
                       args.model);
        p = report::performance_of(run_variant(run));
    } catch (const ConfigError& e) {
        p.note = fmt::format("not run: {}", e.issues().empty() ? std::string(e.what()) : e.issues().front().str());
    } catch (const ModelError& e) {
        p.note = fmt::format("not run: model error: {}", e.what());
    }
    return p;
}

}  // namespace

std::string plan_output(const PlanArgs& args) {
    const auto model = model_of(args.model);
    const report::PriceTable prices = report::load_price_table(prices_path(args));
    // The keys the plan's model does not read are warned of once, at the scenario's own size.
    ScenarioArgs scenario_args = args.scenario;
    scenario_args.model = model;
    const scenario::LoadedScenario base = load_scenario_args(scenario_args);
    const std::vector<const scenario::Variant*> selected = select_variants(base, args.variants);

    std::vector<int> sizes;  // 0: the scenario's own size
    if (!args.gpus.empty())
        sizes = parse_gpus(args.gpus);
    else
        sizes.push_back(0);

    report::CapacityPlan plan;
    plan.scenario = base.variants.front().spec.name;
    plan.prices_file = prices.file;
    for (int gpus : sizes) {
        scenario::LoadedScenario loaded;
        if (gpus == 0) {
            loaded = base;
        } else {
            const int per_server = base.variants.front().spec.cluster.server.ranks();
            if (gpus % per_server != 0)
                bad_option("--gpus", fmt::format("{} GPUs is not a whole number of {}-GPU servers", gpus, per_server));
            ScenarioArgs scaled = scenario_args;
            scaled.sets.push_back(fmt::format("cluster.servers={}", gpus / per_server));
            loaded = load_scenario_quietly(scaled);
        }
        for (const scenario::Variant* chosen : selected) {
            const scenario::Variant* v = nullptr;
            for (const auto& candidate : loaded.variants)
                if (candidate.name == chosen->name) v = &candidate;
            if (v == nullptr) continue;
            // The fabric as built, whatever model the scenario names (a buffer that does not
            // fit is a warning of the plan, not a refusal).
            scenario::Variant as_built = *v;
            as_built.spec.simulation.model = scenario::NetworkModel::ideal;
            const fabric::Topology topology = build_variant_topology(loaded, as_built);
            report::PlanDesign d;
            d.variant = v->name;
            d.summary = fabric::summarize(topology, v->spec.cluster);
            d.gpus = d.summary.gpus;
            d.bom = report::bill_of_materials(topology, v->spec.cluster);
            d.checks = report::check_fabric(topology, v->spec.cluster, d.summary);
            d.cost = report::plan_cost(d.bom, prices);
            d.performance = perform(loaded, *v, model, d.gpus, args);
            plan.designs.push_back(std::move(d));
        }
    }
    return args.json ? report::plan_json(plan) : report::plan_text(plan);
}

int plan_command(const PlanArgs& args) {
    fmt::print("{}", plan_output(args));
    return kExitOk;
}

}  // namespace fabricsim::cli
