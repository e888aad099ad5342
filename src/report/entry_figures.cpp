#include "report/entry_figures.hpp"

#include "workloads/collective.hpp"
#include "workloads/collective_program.hpp"
#include "workloads/traffic_program.hpp"
#include "workloads/training_program.hpp"

#include <string>
#include <variant>

namespace fabricsim::report {

std::vector<TransferResult> transfer_results(const scenario::ScenarioSpec& spec, const workloads::Executor& executor,
                                             const Network& network) {
    std::vector<bool> flow_entries;
    for (const auto& e : spec.workload)
        flow_entries.push_back(std::holds_alternative<scenario::TransferSpec>(e.kind) ||
                               std::holds_alternative<scenario::TrafficSpec>(e.kind));
    std::vector<TransferResult> out;
    const auto row = [&](std::uint32_t entry, RankId src, RankId dst, Bytes size, const workloads::OpTiming& t) {
        Message m;
        m.src = src;
        m.dst = dst;
        m.size = size;
        out.push_back({executor.graph().entries()[entry].name, src.value(), dst.value(), size, t.start, t.finish,
                       network.unloaded_time(m)});
    };
    // Entry by entry, each in its ops' order (unfinished ones too); a traffic entry's flows are
    // its program's.
    const auto& ops = executor.graph().ops();
    std::vector<std::vector<std::uint32_t>> sends(flow_entries.size());
    for (std::uint32_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == workloads::OpKind::send && flow_entries[ops[i].entry]) sends[ops[i].entry].push_back(i);
    for (std::uint32_t e = 0; e < flow_entries.size(); ++e) {
        for (std::uint32_t i : sends[e]) row(e, ops[i].src, ops[i].dst, ops[i].size, executor.op_timings()[i]);
        if (const auto* traffic = dynamic_cast<const workloads::TrafficProgram*>(executor.program(e)))
            for (std::uint64_t f = 0; f < traffic->flows().count(); ++f) {
                const workloads::TrafficFlow flow = traffic->flows()[f];
                row(e, flow.src, flow.dst, flow.size, traffic->timing(f));
            }
    }
    return out;
}

std::vector<CollectiveResult> collective_results(const std::vector<workloads::PlannedCollective>& planned,
                                                 const workloads::Executor& executor) {
    std::vector<CollectiveResult> out;
    for (const auto& c : planned) {
        const workloads::CollectivePlan& plan = c.program->plan();
        for (const auto& m : workloads::measure(plan, c.program->spans()))
            out.push_back({executor.graph().entries()[c.entry].name, std::string(workloads::to_string(plan.op)),
                           std::string(workloads::to_string(m.algorithm)), m.choice, plan.ranks, m.channels, m.size,
                           m.time, m.algbw_GBps, m.busbw_GBps});
    }
    return out;
}

std::vector<TrainingResult> training_results(const std::vector<workloads::PlannedTraining>& jobs,
                                             const workloads::Executor& executor) {
    std::vector<TrainingResult> out;
    for (const auto& job : jobs) {
        const workloads::TrainingPlan& p = job.program->plan();
        const auto m = job.program->measurement();
        TrainingResult r;
        r.name = executor.graph().entries()[p.entry].name;
        r.ranks = static_cast<int>(p.ranks.size());
        r.ops = static_cast<std::int64_t>(m.ops);
        r.iterations = static_cast<int>(m.iterations.size());
        for (const auto& it : m.iterations) {
            r.iteration_time += it.time;
            r.compute += it.compute;
            r.bubble += it.bubble;
            for (std::size_t k = 0; k < 4; ++k) r.exposed[k] += it.exposed[k];
        }
        if (r.iterations > 0) {  // means, in whole ps
            r.iteration_time = r.iteration_time / r.iterations;
            r.compute = r.compute / r.iterations;
            r.bubble = r.bubble / r.iterations;
            for (auto& e : r.exposed) e = e / r.iterations;
        }
        r.comm_bytes = m.link_bytes;
        r.rank_bytes = m.critical_rank_bytes;
        r.flops_per_rank = p.flops_per_rank;
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace fabricsim::report
