// A training iteration's time, split on its critical rank (docs/models/training.md, "Breakdown").
//
// The critical rank is the rank whose compute the iteration's end waited for last (walking
// back from the iteration's closing barrier along the ops that released each op). On that
// rank, every moment of the iteration is either its own compute or a wait; a wait before one
// of its compute ops (or before the barrier) is tiled by the chain of ops that released it:
// another rank's compute counts as pipeline bubble, a send of kind tp/pp/dp/ep as exposed
// communication of that kind. An op starts the moment its last predecessor finishes, so the
// chain tiles the wait exactly and compute + bubble + Σ exposed = iteration time, in ps.
#include "workloads/training.hpp"

#include "core/errors.hpp"
#include "workloads/member_stream.hpp"

#include <algorithm>

namespace fabricsim::workloads {

LinkClass link_class(RankId src, RankId dst, const scenario::ClusterSpec& cluster, const RankLayout& layout) {
    if (!layout.same_server(src, dst)) return LinkClass::fabric;
    return cluster.server.nvlink.links_per_gpu > 0 ? LinkClass::nvlink : LinkClass::pcie;
}

namespace {

class Walker {
public:
    Walker(const TrainingPlan& plan, const OpGraph& graph, const std::vector<OpTiming>& timings)
        : plan_(plan), graph_(graph), timings_(timings), released_by_(plan.end_op - plan.first_op, OpId::invalid()) {
        // The predecessor that finished last releases an op (ties: the lowest id).
        for (std::uint32_t i = plan.first_op; i < plan.end_op; ++i)
            for (OpId s : graph.successors(OpId{i})) {
                if (s.value() < plan.first_op || s.value() >= plan.end_op) continue;
                OpId& r = released_by_[s.value() - plan.first_op];
                if (!r.valid() || timings[i].finish > timings[r.value()].finish) r = OpId{i};
            }
    }

    OpId released_by(OpId id) const { return released_by_[id.value() - plan_.first_op]; }
    const OpTiming& timing(OpId id) const { return timings_[id.value()]; }
    const Op& op(OpId id) const { return graph_.ops()[id.value()]; }

    // Adds the wait [from, start of x] to `out`, along the chain that released x.
    void attribute(OpId x, Time from, TrainingBreakdown& out) const {
        const Time gap = timing(x).start - from;
        if (gap <= Time::zero()) return;
        Time covered = Time::zero();
        Time upper = timing(x).start;
        for (OpId cur = released_by(x); cur.valid(); cur = released_by(cur)) {
            const OpTiming& t = timing(cur);
            if (t.finish <= from) break;
            const Time seg = std::min(t.finish, upper) - std::max(t.start, from);
            if (seg > Time::zero()) {
                const TrainingOpKind k = plan_.kind(cur.value());
                if (k == TrainingOpKind::compute || k == TrainingOpKind::sync)
                    out.bubble += seg;
                else
                    out.exposed[static_cast<std::size_t>(k) - 1] += seg;
                covered += seg;
            }
            upper = std::min(upper, t.start);
            if (t.start <= from) break;
        }
        out.bubble += gap - covered;  // zero when every op started as its last input finished
    }

    RankId critical(OpId end) const {
        for (OpId cur = end; cur.valid(); cur = released_by(cur))
            if (plan_.kind(cur.value()) == TrainingOpKind::compute) return op(cur).src;
        return plan_.ranks.front();
    }

private:
    const TrainingPlan& plan_;
    const OpGraph& graph_;
    const std::vector<OpTiming>& timings_;
    std::vector<OpId> released_by_;
};

}  // namespace

TrainingMeasurement measure_training(const TrainingPlan& plan, const OpGraph& graph,
                                     const std::vector<OpTiming>& timings, const scenario::ClusterSpec& cluster) {
    TrainingMeasurement out;
    // A stream's sends count as the whole graph's; its open ops do not (the executor's count).
    out.ops = plan.end_op - plan.first_op;
    for (std::uint32_t i = plan.first_op; i < plan.end_op; ++i)
        if (graph.ops()[i].kind == OpKind::open) --out.ops;
    for (const auto& s : plan.streams) out.ops += graph.streams()[s.stream].program->ops_total();
    const RankLayout layout(cluster);
    if (plan.iteration_end.empty()) return out;
    for (OpId e : plan.iteration_end)
        if (!timings[e.value()].done()) return out;  // cut off by stop_time: no whole iteration
    const Walker walk(plan, graph, timings);
    OpId begin = plan.start;
    for (OpId end : plan.iteration_end) {
        TrainingBreakdown b;
        const Time t0 = timings[begin.value()].finish;
        const Time t1 = timings[end.value()].finish;
        b.time = t1 - t0;
        b.critical = walk.critical(end);
        Time from = t0;
        for (std::uint32_t i = begin.value() + 1; i < end.value(); ++i) {
            const Op& o = graph.ops()[i];
            if (plan.kind(i) != TrainingOpKind::compute || o.src != b.critical) continue;
            walk.attribute(OpId{i}, from, b);
            b.compute += o.duration;
            from = timings[i].finish;
        }
        walk.attribute(end, from, b);
        out.iterations.push_back(b);
        begin = end;
    }
    // Bytes by link class (per iteration) and by kind for the last critical rank.
    const std::uint32_t last_begin =
        plan.iteration_end.size() > 1 ? plan.iteration_end[plan.iteration_end.size() - 2].value() : plan.start.value();
    const RankId critical = out.iterations.back().critical;
    for (std::uint32_t i = plan.first_op; i < plan.end_op; ++i) {
        const Op& o = graph.ops()[i];
        if (o.kind != OpKind::send) continue;
        out.link_bytes[static_cast<std::size_t>(link_class(o.src, o.dst, cluster, layout))] += o.size;
        if (i > last_begin && o.src == critical)
            out.critical_rank_bytes[static_cast<std::size_t>(plan.kind(i)) - 1] += o.size;
    }
    // A stream's sends, as it counted them (they all finished: every iteration did).
    const LinkClass inside = cluster.server.nvlink.links_per_gpu > 0 ? LinkClass::nvlink : LinkClass::pcie;
    for (const auto& s : plan.streams) {
        const auto* ring = dynamic_cast<const MemberStream*>(graph.streams()[s.stream].program.get());
        if (ring == nullptr) throw InternalError("measure_training: a training stream that is no member stream");
        out.link_bytes[static_cast<std::size_t>(inside)] += ring->sent_inside_servers();
        out.link_bytes[static_cast<std::size_t>(LinkClass::fabric)] += ring->sent_between_servers();
        if (s.iteration + 1 != static_cast<int>(plan.iteration_end.size())) continue;
        for (std::size_t m = 0; m < ring->members().size(); ++m)
            if (ring->members()[m] == critical)
                out.critical_rank_bytes[static_cast<std::size_t>(s.kind) - 1] += ring->sent_by_member()[m];
    }
    const auto n = static_cast<std::int64_t>(plan.iteration_end.size());
    for (auto& bytes : out.link_bytes) bytes = Bytes{bytes.count() / n};
    return out;
}

}  // namespace fabricsim::workloads
