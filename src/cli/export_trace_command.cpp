#include "cli/export_trace_command.hpp"

#include "core/errors.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "scenario/loader.hpp"
#include "workloads/trace_export.hpp"
#include "workloads/training.hpp"

#include <filesystem>

#include <fmt/format.h>

namespace fabricsim::cli {

int export_trace_command(const ExportTraceArgs& args) {
    const scenario::LoadedScenario loaded = load_scenario_args(args.scenario);
    const scenario::ScenarioSpec& spec = loaded.variants.front().spec;
    std::filesystem::create_directories(args.out);
    // The network only says which in-network operations exist; the ideal one offers none a
    // trace could not hold.
    const fabric::IdealNetwork network(spec.cluster, spec.simulation.ideal);
    workloads::OpGraph graph;
    std::vector<workloads::TrainingPlan> plans;
    int exported = 0;
    for (const auto& entry : spec.workload) graph.add_entry(entry.name);
    for (std::uint32_t i = 0; i < spec.workload.size(); ++i) {
        const auto* t = std::get_if<scenario::TrainingSpec>(&spec.workload[i].kind);
        if (t == nullptr) continue;
        plans.push_back(workloads::add_training(graph, i, *t, spec.cluster, network, spec.seed, plans));
        const std::string path = (std::filesystem::path(args.out) / (spec.workload[i].name + ".%d.et")).string();
        const auto out = workloads::export_trace(graph, i, path, spec.cluster.ranks());
        fmt::print("{}: {} ranks, {} nodes\n", path, out.ranks, out.nodes);
        ++exported;
    }
    if (exported == 0)
        throw_config_error("workload", fmt::format("{} has no training entry to export as a trace", loaded.file));
    return kExitOk;
}

}  // namespace fabricsim::cli
