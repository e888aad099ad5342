#include "workloads/workload_graph.hpp"

#include "core/errors.hpp"
#include "workloads/transfer.hpp"

#include <fmt/format.h>

#include <type_traits>

namespace fabricsim::workloads {

Workload build_workload(const scenario::ScenarioSpec& spec, const Network& network, const BuildProgressFn& /*built*/) {
    Workload workload;
    OpGraph& graph = workload.graph;
    const RankLayout layout(spec.cluster);
    for (const auto& entry : spec.workload) graph.add_entry(entry.name);
    for (std::uint32_t i = 0; i < spec.workload.size(); ++i) {
        const auto& entry = spec.workload[i];
        if (!entry.after.empty()) {
            std::uint32_t j = 0;
            while (j < spec.workload.size() && spec.workload[j].name != entry.after) ++j;
            if (j == spec.workload.size())  // the loader checks this; reaching here is a bug
                throw InternalError(
                    fmt::format("workload entry {} is after unknown entry {}", entry.name, entry.after));
            graph.set_after(i, j);
        }
        if (entry.priority) graph.set_priority(i, static_cast<std::uint8_t>(*entry.priority));
        std::visit(
            [&](const auto& kind) {
                using Kind = std::decay_t<decltype(kind)>;
                if constexpr (std::is_same_v<Kind, scenario::TransferSpec>) add_transfer(graph, i, kind);
                if constexpr (std::is_same_v<Kind, scenario::CollectiveSpec>) {
                    auto program = std::make_unique<CollectiveProgram>(kind, layout, &network);
                    const CollectiveProgram* view = program.get();
                    workload.collectives.push_back({i, std::move(program), view});
                }
                if constexpr (std::is_same_v<Kind, scenario::TrafficSpec>) {
                    auto program = std::make_unique<TrafficProgram>(kind, spec.cluster, spec.seed, entry.name, i);
                    workload.traffic.push_back(program->plan());
                    workload.traffic_programs.push_back(std::move(program));
                }
                if constexpr (std::is_same_v<Kind, scenario::TrainingSpec>) {
                    workload.training.push_back(
                        plan_training(kind, spec.cluster, i, entry.name, spec.seed, workload.training));
                    auto program =
                        std::make_unique<TrainingProgram>(kind, spec.cluster, network, workload.training.back());
                    const TrainingProgram* view = program.get();
                    workload.training_jobs.push_back({i, std::move(program), view});
                }
                if constexpr (std::is_same_v<Kind, scenario::TraceSpec>) {
                    auto program = std::make_unique<TraceProgram>(
                        index_trace(kind, fmt::format("workload[{}].trace", i), spec.cluster, network), spec.cluster,
                        network, spec.outputs.timeline);
                    const TraceProgram* view = program.get();
                    workload.traces.push_back({i, std::move(program), view});
                }
            },
            entry.kind);
    }
    return workload;
}

void attach_programs(Workload& workload, Executor& executor) {
    for (auto& c : workload.collectives)
        if (c.owned) executor.set_program(c.entry, std::move(c.owned));
    for (auto& t : workload.training_jobs)
        if (t.owned) executor.set_program(t.entry, std::move(t.owned));
    for (auto& t : workload.traffic_programs)
        if (t) {
            const std::uint32_t entry = t->plan().entry;  // read before the move
            executor.set_program(entry, std::move(t));
        }
    for (auto& t : workload.traces)
        if (t.owned) executor.set_program(t.entry, std::move(t.owned));
}

std::uint64_t ops_total(const Workload& workload) {
    std::uint64_t total = workload.graph.ops_run();
    for (const auto& c : workload.collectives) total += c.program->ops_total();
    for (const auto& t : workload.training_jobs) total += t.program->ops_total();
    for (const auto& t : workload.traffic) total += t.program->ops_total();
    for (const auto& t : workload.traces) total += t.program->ops_total();
    return total;
}

}  // namespace fabricsim::workloads
