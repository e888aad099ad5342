#include "report/trace_figures.hpp"

#include "workloads/collective.hpp"

namespace fabricsim::report {

std::vector<TraceResult> trace_results(const workloads::Workload& workload, const workloads::Executor& executor) {
    std::vector<TraceResult> out;
    for (const auto& t : workload.traces) {
        const workloads::TraceProgram& p = *t.program;
        const workloads::TraceIndex& ix = p.index();
        TraceResult r;
        r.name = executor.graph().entries()[t.entry].name;
        r.ranks = static_cast<int>(ix.ranks.size());
        r.nodes = ix.nodes;
        r.ops = static_cast<std::int64_t>(ix.ops);
        const workloads::TraceBreakdown b = p.breakdown();
        r.time = b.time;
        r.compute = b.compute;
        r.idle = b.idle;
        r.critical_rank = b.critical;
        for (std::size_t g = 0; g < ix.groups.size(); ++g)
            r.exposed.emplace_back("group " + (ix.groups[g].name.empty() ? std::string("(all)") : ix.groups[g].name),
                                   b.exposed[g]);
        r.exposed.emplace_back("p2p", b.exposed.back());
        for (const auto& c : p.collectives()) {
            TraceCollectiveResult x;
            x.group = ix.groups[static_cast<std::size_t>(c.group)].name;
            x.op = std::string(workloads::to_string(c.op));
            x.ranks = c.ranks;
            x.bytes = c.size;
            x.count = c.count;
            x.time = c.count > 0 ? Time::ps(c.total.picoseconds() / static_cast<std::int64_t>(c.count)) : Time::max();
            // nccl-tests: algbw = S / t (GB = 1e9 B), busbw = algbw x factor (docs/REFERENCES.md).
            if (c.count > 0 && x.time > Time::zero()) {
                x.algbw_GBps = static_cast<double>(c.size.count()) / x.time.seconds() / 1e9;
                x.busbw_GBps = x.algbw_GBps * workloads::bus_factor(c.op, c.ranks);
            }
            r.collectives.push_back(std::move(x));
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<workloads::TimelineEvent> timeline_events(const workloads::Workload& workload,
                                                      const workloads::Executor& executor) {
    std::vector<workloads::TimelineEvent> out;
    const auto& graph = executor.graph();
    const auto& timings = executor.op_timings();
    for (std::uint32_t i = 0; i < graph.ops().size(); ++i) {
        const workloads::Op& op = graph.ops()[i];
        if (op.kind == workloads::OpKind::open || !timings[i].done()) continue;
        const bool compute = op.kind == workloads::OpKind::compute;
        out.push_back(workloads::TimelineEvent{op.src.value(), graph.entries()[op.entry].name,
                                               compute ? "compute" : "send", timings[i].start, timings[i].finish});
    }
    for (const auto& t : workload.traces)
        out.insert(out.end(), t.program->timeline().begin(), t.program->timeline().end());
    return out;
}

}  // namespace fabricsim::report
