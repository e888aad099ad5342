// A training job's iterations as ops (model and sources: training.hpp, docs/models/training.md).
#include "workloads/training.hpp"

#include "core/errors.hpp"
#include "workloads/collective.hpp"
#include "workloads/collective_algorithms.hpp"
#include "workloads/training_steps.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fabricsim::workloads {

namespace {

// The whole graph: a Ref is an OpId.
class GraphSink final : public TrainingSink {
public:
    GraphSink(OpGraph& g, std::uint32_t entry, const RankLayout& layout, const Network& network, TrainingPlan& plan)
        : g_(g), entry_(entry), layout_(layout), network_(network), plan_(plan) {}

    void set_iteration(int iteration) { iteration_ = iteration; }

    Ref compute(RankId rank, Time duration, TrainingOpKind kind, const Ref* after, std::size_t n) override {
        const OpId id = g_.add_compute(entry_, rank, duration);
        for (std::size_t i = 0; i < n; ++i)
            if (after[i] != kNone) g_.add_dependency(of(after[i]), id);
        tag_new(kind);
        return id.value();
    }

    Ref send(RankId src, RankId dst, Bytes size, Ref after) override {
        const OpId id = g_.add_send(entry_, src, dst, size);
        if (after != kNone) g_.add_dependency(of(after), id);
        tag_new(TrainingOpKind::pp);
        return id.value();
    }

    Ref stream(std::shared_ptr<MemberStream> ring, const std::vector<Ref>& gates, RankId front,
               TrainingOpKind kind) override {
        const std::uint32_t s = g_.add_stream(entry_, std::move(ring));
        std::vector<Ref> all;
        if (gates.size() == 1) {
            all.push_back(g_.add_open(s, OpProgram::kAllMembers).value());
            g_.add_dependency(of(gates.front()), of(all.back()));
        } else {
            for (std::size_t m = 0; m < gates.size(); ++m) {
                all.push_back(g_.add_open(s, static_cast<std::uint32_t>(m)).value());
                g_.add_dependency(of(gates[m]), of(all.back()));
            }
        }
        const OpId join = g_.add_compute(entry_, front, Time::zero());
        all.push_back(join.value());
        g_.set_join(s, join);
        tag_new(kind);
        plan_.streams.push_back({s, kind, iteration_});
        return sync(front, all);
    }

    Ref whole(const scenario::CollectiveSpec& spec, Bytes message, const std::vector<RankId>& group,
              const std::vector<Ref>& gates, TrainingOpKind kind) override {
        const auto first = static_cast<std::uint32_t>(g_.ops().size());
        add_collective(g_, entry_, spec, layout_, &network_, message);
        const auto end = static_cast<std::uint32_t>(g_.ops().size());
        std::vector<Ref> all;
        all.reserve(end - first);
        for (std::uint32_t i = first; i < end; ++i) {
            const Op& o = g_.op(OpId{i});
            all.push_back(i);
            if (o.kind != OpKind::send) continue;
            const auto it = std::find(group.begin(), group.end(), o.src);
            g_.add_dependency(of(gates[static_cast<std::size_t>(it - group.begin())]), OpId{i});
        }
        tag_new(kind);
        return sync(group.front(), all);
    }

private:
    static OpId of(Ref r) { return OpId{static_cast<std::uint32_t>(r)}; }
    void tag_new(TrainingOpKind kind) { plan_.kinds.resize(g_.ops().size() - plan_.first_op, kind); }

    OpGraph& g_;
    std::uint32_t entry_;
    const RankLayout& layout_;
    const Network& network_;
    TrainingPlan& plan_;
    int iteration_ = 0;
};

}  // namespace

TrainingPlan plan_training(const scenario::TrainingSpec& spec, const scenario::ClusterSpec& cluster,
                           std::uint32_t entry, const std::string& name, std::uint64_t seed,
                           const std::vector<TrainingPlan>& earlier) {
    const RankLayout layout(cluster);
    const std::string key = fmt::format("workload[{}].training.ranks", entry);
    std::vector<bool> taken(static_cast<std::size_t>(layout.ranks()), false);
    for (const auto& e : earlier)
        for (RankId r : e.ranks) taken[r.value()] = true;
    TrainingPlan plan;
    plan.entry = entry;
    plan.ranks = place_training(spec, layout, taken, seed, name, key);
    plan.tp = spec.tp;
    plan.pp = spec.pp;
    plan.dp = spec.dp;
    plan.ep = spec.ep;
    plan.micro_batches = spec.micro_batches();
    const TrainingShape shape = training_shape(spec);
    plan.flops_per_rank = static_cast<double>(shape.flops_fwd * shape.passes * plan.micro_batches);
    plan.compute_per_rank = first_rank_compute(shape, spec.iterations);
    return plan;
}

TrainingPlan add_training(OpGraph& graph, std::uint32_t entry, const scenario::TrainingSpec& spec,
                          const scenario::ClusterSpec& cluster, const Network& network, std::uint64_t seed,
                          const std::vector<TrainingPlan>& earlier, const BuildProgressFn& built) {
    TrainingPlan plan = plan_training(spec, cluster, entry, graph.entries()[entry].name, seed, earlier);
    plan.first_op = static_cast<std::uint32_t>(graph.ops().size());
    const RankLayout layout(cluster);
    GraphSink sink(graph, entry, layout, network, plan);
    TrainingSteps steps(spec, plan.ranks, layout, network, sink);
    plan.start = OpId{static_cast<std::uint32_t>(steps.start())};
    const int pp = spec.pp;
    for (int it = 0; it < spec.iterations; ++it) {
        sink.set_iteration(it);
        // Build in an order where every step's input exists: sweep the stages until all done.
        std::vector<std::size_t> next(static_cast<std::size_t>(pp), 0);
        bool progress = true;
        while (progress) {
            progress = false;
            for (int p = 0; p < pp; ++p) {
                const auto pu = static_cast<std::size_t>(p);
                while (next[pu] < steps.order()[pu].size() && steps.ready(p, next[pu])) {
                    steps.build(p, next[pu]);
                    if (built) built(graph.ops_run());
                    ++next[pu];
                    progress = true;
                }
            }
        }
        for (int p = 0; p < pp; ++p)
            if (next[static_cast<std::size_t>(p)] != steps.order()[static_cast<std::size_t>(p)].size())
                throw InternalError("training: the 1F1B schedule did not complete");
        plan.iteration_end.push_back(OpId{static_cast<std::uint32_t>(steps.end_iteration())});
    }
    if (Time::ps(steps.compute_first_rank().picoseconds() / spec.iterations) != plan.compute_per_rank)
        throw InternalError("training: the first rank's compute differs from its closed form");
    plan.end_op = static_cast<std::uint32_t>(graph.ops().size());
    return plan;
}

}  // namespace fabricsim::workloads
