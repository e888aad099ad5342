#include "cli/training_results.hpp"

namespace fabricsim::cli {

std::vector<report::TrainingResult> training_results(const scenario::ScenarioSpec& /*spec*/,
                                                     const std::vector<workloads::PlannedTraining>& jobs,
                                                     const workloads::Executor& executor, const Network& /*network*/) {
    std::vector<report::TrainingResult> out;
    for (const auto& job : jobs) {
        const workloads::TrainingPlan& p = job.program->plan();
        const auto m = job.program->measurement();
        report::TrainingResult r;
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

}  // namespace fabricsim::cli
