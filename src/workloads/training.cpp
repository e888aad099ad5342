// A training job's iterations as ops (model and sources: training.hpp, docs/models/training.md).
#include "workloads/training.hpp"

#include "core/errors.hpp"
#include "workloads/collective.hpp"
#include "workloads/collective_algorithms.hpp"
#include "workloads/ring_stream.hpp"
#include "workloads/send_chain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace fabricsim::workloads {

namespace {

using scenario::CollectiveAlgorithm;
using scenario::CollectiveOp;

// Megatron-LM's default gradient bucket: max(40M, 1M · dp) parameters
// (megatron/core/distributed/distributed_data_parallel.py). At most kMaxBuckets per stage
// keep the op count bounded; larger buckets merge.
constexpr double kBucketParameters = 40e6;
constexpr int kMaxBuckets = 8;

// Parameters of the model, split as the compute and the gradient reduction need them.
struct ModelShares {
    double active;      // per token: dense + top_k experts
    double dense;       // reduced over all dp replicas
    double expert;      // sharded over ep, reduced over dp / ep
};

ModelShares shares(const scenario::TrainingSpec& spec) {
    const auto& m = spec.model;
    const double total = static_cast<double>(m.parameters);
    if (m.experts == 0) return {total, total, 0};
    // Every layer: attention 4h² and E experts of equal size (embeddings ignored).
    const double attention = 4.0 * m.hidden * double(m.hidden) * m.layers;
    const double experts = total - attention;
    return {attention + experts * m.top_k / m.experts, attention, experts};
}

class Builder {
public:
    Builder(OpGraph& g, std::uint32_t entry, const RankLayout& layout, const Network& network, TrainingPlan& plan)
        : g_(g), entry_(entry), layout_(layout), network_(network), plan_(plan) {}

    void tag_new(TrainingOpKind kind) {
        plan_.kinds.resize(g_.ops().size() - plan_.first_op, kind);
    }

    OpId compute(RankId r, Time d, std::initializer_list<OpId> after) {
        const OpId id = g_.add_compute(entry_, r, d);
        for (OpId a : after)
            if (a.valid()) g_.add_dependency(a, id);
        tag_new(TrainingOpKind::compute);
        return id;
    }

    OpId sync(RankId r, const std::vector<OpId>& after) {
        const OpId id = g_.add_compute(entry_, r, Time::zero());
        for (OpId a : after)
            if (a.valid()) g_.add_dependency(a, id);
        tag_new(TrainingOpKind::sync);
        return id;
    }

    OpId send(RankId src, RankId dst, Bytes size, OpId after) {
        const OpId id = g_.add_send(entry_, src, dst, size);
        if (after.valid()) g_.add_dependency(after, id);
        tag_new(TrainingOpKind::pp);
        return id;
    }

    // A collective of `size` (nccl-tests' S) over `group`; each member starts after its gate.
    // Returns a zero-time join of all its ops.
    OpId collective(CollectiveOp op, const std::vector<RankId>& group, const std::vector<OpId>& gates, Bytes size,
                    TrainingOpKind kind) {
        bool one_server = true;
        for (RankId r : group) one_server = one_server && layout_.same_server(r, group.front());
        // One ring inside a server (it already fills the GPU's NVLink port); across servers
        // NCCL's two channels per NIC, each leaving through its own rail.
        const std::int64_t channels = one_server ? 1 : std::min(64, 2 * layout_.nics_per_server());
        scenario::CollectiveSpec spec;
        spec.op = op;
        spec.algorithm = op == CollectiveOp::all_to_all ? CollectiveAlgorithm::pairwise : CollectiveAlgorithm::ring;
        spec.ranks = group;
        spec.channels = static_cast<int>(channels);
        // One message per ring step (message_bytes = S): the op graph of a job stays small.
        spec.sizes = {size};
        const OpId streamed = stream(spec, group, gates, size, kind);
        if (streamed.valid()) return streamed;
        const auto first = static_cast<std::uint32_t>(g_.ops().size());
        add_collective(g_, entry_, spec, layout_, &network_, std::max(size, Bytes{1}));
        const auto end = static_cast<std::uint32_t>(g_.ops().size());
        std::vector<OpId> all;
        all.reserve(end - first);
        for (std::uint32_t i = first; i < end; ++i) {
            Op& o = g_.op(OpId{i});
            all.push_back(OpId{i});
            if (o.kind != OpKind::send) continue;
            const auto it = std::find(group.begin(), group.end(), o.src);
            g_.add_dependency(gates[static_cast<std::size_t>(it - group.begin())], OpId{i});
        }
        tag_new(kind);
        return sync(group.front(), all);
    }

    void set_iteration(int iteration) { iteration_ = iteration; }

private:
    // A ring collective as a stream inside the graph (ring_stream.hpp), where its gates are
    // one per member or one for all (each gate's successors then keep their order): one open
    // op per gate, add_collective's closing join (released by the stream's last send) and the
    // join of all. Invalid where it is built whole instead.
    OpId stream(const scenario::CollectiveSpec& spec, const std::vector<RankId>& group, const std::vector<OpId>& gates,
                Bytes size, TrainingOpKind kind) {
        if (!RingStream::streams(spec.op) || group.size() > RingStream::kMaxMembers) return OpId::invalid();
        const std::vector<RankId> members = collective_group(spec, layout_);
        if (members != group) return OpId::invalid();
        check_collective(spec, members, layout_, &network_);
        const Bytes message = std::max(size, Bytes{1});
        const SizeChoice choice = choose_for_size(spec, members, size, layout_, &network_, message);
        if (choice.algorithm != CollectiveAlgorithm::ring) return OpId::invalid();
        const bool one_gate = std::all_of(gates.begin(), gates.end(), [&](OpId g) { return g == gates.front(); });
        std::vector<OpId> sorted = gates;
        std::sort(sorted.begin(), sorted.end(), [](OpId a, OpId b) { return a.value() < b.value(); });
        const bool distinct = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
        if (!one_gate && !distinct) return OpId::invalid();
        auto program = std::make_shared<RingStream>(spec.op, members, choice.channels, size, message, layout_);
        if (program->ops_total() == 0) return OpId::invalid();
        const std::uint32_t s = g_.add_stream(entry_, std::move(program));
        std::vector<OpId> all;
        if (one_gate) {
            all.push_back(g_.add_open(s, OpProgram::kAllMembers));
            g_.add_dependency(gates.front(), all.back());
        } else {
            for (std::size_t m = 0; m < gates.size(); ++m) {
                all.push_back(g_.add_open(s, static_cast<std::uint32_t>(m)));
                g_.add_dependency(gates[m], all.back());
            }
        }
        all.push_back(g_.add_compute(entry_, group.front(), Time::zero()));
        g_.set_join(s, all.back());
        tag_new(kind);
        plan_.streams.push_back({s, kind, iteration_});
        return sync(group.front(), all);
    }

    OpGraph& g_;
    std::uint32_t entry_;
    const RankLayout& layout_;
    const Network& network_;
    TrainingPlan& plan_;
    int iteration_ = 0;
};

// Exact compute durations: each rank's op durations are differences of its rounded running
// total, so a rank's compute per iteration is within 1 ps of the exact value.
class ComputeClock {
public:
    explicit ComputeClock(std::size_t ranks) : exact_(ranks, 0), given_(ranks, 0) {}
    Time next(std::size_t job_rank, long double ps) {
        exact_[job_rank] += ps;
        const auto total = static_cast<std::int64_t>(std::llround(exact_[job_rank]));
        const std::int64_t d = total - given_[job_rank];
        given_[job_rank] = total;
        return Time::ps(d);
    }

private:
    std::vector<long double> exact_;
    std::vector<std::int64_t> given_;
};

}  // namespace

TrainingPlan add_training(OpGraph& graph, std::uint32_t entry, const scenario::TrainingSpec& spec,
                          const scenario::ClusterSpec& cluster, const Network& network, std::uint64_t seed,
                          const std::vector<TrainingPlan>& earlier, const BuildProgressFn& built) {
    const RankLayout layout(cluster);
    const std::string key = fmt::format("workload[{}].training.ranks", entry);
    std::vector<bool> taken(static_cast<std::size_t>(layout.ranks()), false);
    for (const auto& e : earlier)
        for (RankId r : e.ranks) taken[r.value()] = true;

    TrainingPlan plan;
    plan.entry = entry;
    plan.first_op = static_cast<std::uint32_t>(graph.ops().size());
    plan.ranks = place_training(spec, layout, taken, seed, graph.entries()[entry].name, key);
    plan.tp = spec.tp;
    plan.pp = spec.pp;
    plan.dp = spec.dp;
    plan.ep = spec.ep;
    const int m = spec.micro_batches();
    plan.micro_batches = m;
    const int tp = spec.tp, pp = spec.pp, dp = spec.dp;
    const int ep = spec.model.experts > 0 ? spec.ep : 1;
    const auto job_ranks = plan.ranks.size();
    const auto idx = [&](int t, int d, int p) { return static_cast<std::size_t>(t + tp * (d + dp * p)); };

    // Sizes (bf16: 2 bytes per value).
    const ModelShares params = shares(spec);
    const auto& md = spec.model;
    const std::int64_t layers_per_stage = md.layers / pp;
    const std::int64_t bsh2 = std::int64_t{spec.micro_batch} * md.sequence * md.hidden * 2;
    const bool recompute = spec.recompute == scenario::Recompute::full;
    const Bytes tp_forward{2 * layers_per_stage * bsh2};
    const Bytes tp_backward{(recompute ? 4 : 2) * layers_per_stage * bsh2};
    const Bytes pp_bytes{bsh2 / tp};
    const Bytes ep_forward{md.experts > 0 ? 2 * layers_per_stage * bsh2 * md.top_k / tp : 0};
    const Bytes ep_backward{(recompute ? 2 : 1) * ep_forward.count()};
    const double dense_per_rank = params.dense / (pp * tp);
    const double expert_per_rank = params.expert / (double(pp) * tp * ep);
    const Bytes dense_grads{static_cast<std::int64_t>(std::llround(2 * dense_per_rank))};
    const Bytes expert_grads{static_cast<std::int64_t>(std::llround(2 * expert_per_rank))};
    const int expert_dp = dp / ep;

    // Compute: forward 2·P_active FLOPs per token for the weights plus 4·s·h per layer for the
    // attention scores (QKᵀ and their product with V, counted whole as SC'21 eq. 3 does),
    // backward twice that (three times with recomputation), per GPU its 1/(tp·pp) share of the
    // micro-batch's b·s tokens.
    const long double tokens = static_cast<long double>(spec.micro_batch) * md.sequence;
    const long double rate = static_cast<long double>(spec.peak_flops) * spec.mfu;  // FLOP/s
    const long double attention = 4.0L * md.layers * md.sequence * md.hidden;  // per token, forward
    const long double flops_fwd = (2.0L * params.active + attention) * tokens / (tp * pp);
    const int passes = recompute ? 4 : 3;  // forward-equivalents per micro-batch: backward is two
    const long double fwd_ps = flops_fwd / rate * 1e12L;
    const long double bwd_ps = fwd_ps * (passes - 1);
    const bool reduce = dp > 1 || expert_dp > 1;
    const int buckets =
        spec.overlap && dp > 1
            ? std::clamp(static_cast<int>(std::ceil(dense_per_rank / std::max(kBucketParameters, 1e6 * dp))), 1, kMaxBuckets)
            : 1;

    Builder b(graph, entry, layout, network, plan);
    ComputeClock clock(job_ranks);
    std::vector<OpId> last(job_ranks, OpId::invalid());
    plan.start = b.sync(plan.ranks.front(), {});
    std::fill(last.begin(), last.end(), plan.start);

    // 1F1B per stage (PipeDream-Flush; Narayanan et al. SC'21 §2.2.1): min(pp−p−1, m) warm-up
    // forwards, then one forward one backward, then the remaining backwards.
    struct Step {
        bool forward;
        int micro;
    };
    std::vector<std::vector<Step>> order(static_cast<std::size_t>(pp));
    for (int p = 0; p < pp; ++p) {
        auto& o = order[static_cast<std::size_t>(p)];
        const int warm = std::min(pp - p - 1, m);
        for (int j = 0; j < warm; ++j) o.push_back({true, j});
        for (int j = 0; j + warm < m; ++j) {
            o.push_back({true, j + warm});
            o.push_back({false, j});
        }
        for (int j = m - warm; j < m; ++j) o.push_back({false, j});
    }

    Time compute_one_rank = Time::zero();
    for (int it = 0; it < spec.iterations; ++it) {
        b.set_iteration(it);
        // arrivals[p][j][d·tp+t]: the send that brings micro-batch j's activations (forward) or
        // gradients (backward) to stage p; invalid until built.
        const auto grid = static_cast<std::size_t>(dp * tp);
        std::vector<std::vector<std::vector<OpId>>> fwd_in(
            static_cast<std::size_t>(pp), std::vector<std::vector<OpId>>(static_cast<std::size_t>(m)));
        auto bwd_in = fwd_in;
        std::vector<std::size_t> next(static_cast<std::size_t>(pp), 0);
        std::vector<OpId> reductions;  // DP joins of this iteration

        const auto run_step = [&](int p, Step s) {
            const auto pu = static_cast<std::size_t>(p);
            const auto ju = static_cast<std::size_t>(s.micro);
            const bool last_backward = !s.forward && s.micro == m - 1;
            const int chunks = last_backward && reduce ? buckets : 1;
            // chunk_done[k][d·tp+t]: the k-th part of the last backward, for bucket k.
            std::vector<std::vector<OpId>> chunk_done(static_cast<std::size_t>(chunks), std::vector<OpId>(grid));
            for (int d = 0; d < dp; ++d)
                for (int t = 0; t < tp; ++t) {
                    const std::size_t j = idx(t, d, p);
                    const auto g = static_cast<std::size_t>(d * tp + t);
                    const auto& in = s.forward ? fwd_in[pu][ju] : bwd_in[pu][ju];
                    const OpId input = in.empty() ? OpId::invalid() : in[g];
                    const long double total = s.forward ? fwd_ps : bwd_ps;
                    OpId prev = last[j];
                    for (int k = 0; k < chunks; ++k) {
                        const Time dur = clock.next(j, total / chunks);
                        if (j == 0) compute_one_rank += dur;
                        prev = b.compute(plan.ranks[j], dur, {prev, k == 0 ? input : OpId::invalid()});
                        chunk_done[static_cast<std::size_t>(k)][g] = prev;
                    }
                    last[j] = prev;
                }
            // TP all-reduce of the stage's layers, per replica.
            if (tp > 1)
                for (int d = 0; d < dp; ++d) {
                    std::vector<RankId> group;
                    std::vector<OpId> gates;
                    for (int t = 0; t < tp; ++t) {
                        group.push_back(plan.ranks[idx(t, d, p)]);
                        gates.push_back(last[idx(t, d, p)]);
                    }
                    const OpId join = b.collective(CollectiveOp::all_reduce, group, gates,
                                                   s.forward ? tp_forward : tp_backward, TrainingOpKind::tp);
                    for (int t = 0; t < tp; ++t) last[idx(t, d, p)] = join;
                }
            // EP all-to-all (dispatch + combine of every MoE layer), per EP group and TP rank.
            if (ep > 1)
                for (int e = 0; e < dp / ep; ++e)
                    for (int t = 0; t < tp; ++t) {
                        std::vector<RankId> group;
                        std::vector<OpId> gates;
                        for (int d = e * ep; d < (e + 1) * ep; ++d) {
                            group.push_back(plan.ranks[idx(t, d, p)]);
                            gates.push_back(last[idx(t, d, p)]);
                        }
                        const OpId join = b.collective(CollectiveOp::all_to_all, group, gates,
                                                       s.forward ? ep_forward : ep_backward, TrainingOpKind::ep);
                        for (int d = e * ep; d < (e + 1) * ep; ++d) last[idx(t, d, p)] = join;
                    }
            // PP: activations to the next stage, gradients to the previous one (non-blocking
            // for the sender, as Megatron's batched isend/irecv).
            const int to = s.forward ? p + 1 : p - 1;
            if (to >= 0 && to < pp) {
                auto& arrivals = s.forward ? fwd_in[static_cast<std::size_t>(to)][ju] : bwd_in[static_cast<std::size_t>(to)][ju];
                arrivals.assign(grid, OpId::invalid());
                for (int d = 0; d < dp; ++d)
                    for (int t = 0; t < tp; ++t)
                        arrivals[static_cast<std::size_t>(d * tp + t)] =
                            b.send(plan.ranks[idx(t, d, p)], plan.ranks[idx(t, d, to)], pp_bytes, last[idx(t, d, p)]);
            }
            if (!last_backward || !reduce) return;
            // DP: the stage's gradients, bucket k after chunk k of the last backward (overlap),
            // or all at once after the stage's last op (no overlap).
            for (int t = 0; t < tp; ++t) {
                const auto gates_of = [&](int k, int d) {
                    return spec.overlap ? chunk_done[static_cast<std::size_t>(k)][static_cast<std::size_t>(d * tp + t)]
                                        : last[idx(t, d, p)];
                };
                if (dp > 1) {
                    std::vector<RankId> group;
                    for (int d = 0; d < dp; ++d) group.push_back(plan.ranks[idx(t, d, p)]);
                    std::vector<OpId> joins;
                    for (int k = 0; k < buckets; ++k) {
                        std::vector<OpId> gates;
                        for (int d = 0; d < dp; ++d) gates.push_back(gates_of(k, d));
                        const Bytes bucket = workloads::share(dense_grads, buckets, k);
                        joins.push_back(b.collective(spec.dp_mode == scenario::DpMode::zero ? CollectiveOp::reduce_scatter
                                                                                             : CollectiveOp::all_reduce,
                                                     group, gates, bucket, TrainingOpKind::dp));
                    }
                    if (spec.dp_mode == scenario::DpMode::zero) {
                        // After the optimizer step on its shard (not timed), every rank gathers
                        // the updated parameters.
                        const OpId reduced = b.sync(group.front(), joins);
                        joins = {b.collective(CollectiveOp::all_gather, group, std::vector<OpId>(group.size(), reduced),
                                              dense_grads, TrainingOpKind::dp)};
                    }
                    reductions.insert(reductions.end(), joins.begin(), joins.end());
                }
                if (expert_dp > 1)
                    for (int e = 0; e < ep; ++e) {
                        std::vector<RankId> group;
                        std::vector<OpId> gates;
                        for (int d = e; d < dp; d += ep) {
                            group.push_back(plan.ranks[idx(t, d, p)]);
                            gates.push_back(gates_of(chunks - 1, d));
                        }
                        reductions.push_back(
                            b.collective(CollectiveOp::all_reduce, group, gates, expert_grads, TrainingOpKind::dp));
                    }
            }
        };

        // Build in an order where every step's input exists: sweep the stages until all done.
        bool progress = true;
        while (progress) {
            progress = false;
            for (int p = 0; p < pp; ++p) {
                const auto pu = static_cast<std::size_t>(p);
                while (next[pu] < order[pu].size()) {
                    const Step s = order[pu][next[pu]];
                    const auto ju = static_cast<std::size_t>(s.micro);
                    const bool ready = s.forward ? (p == 0 || !fwd_in[pu][ju].empty())
                                                 : (p == pp - 1 || !bwd_in[pu][ju].empty());
                    if (!ready) break;
                    run_step(p, s);
                    if (built) built(graph.ops_run());
                    ++next[pu];
                    progress = true;
                }
            }
        }
        for (int p = 0; p < pp; ++p)
            if (next[static_cast<std::size_t>(p)] != order[static_cast<std::size_t>(p)].size())
                throw InternalError("training: the 1F1B schedule did not complete");

        // The iteration ends when every rank is done and every gradient is reduced (the
        // optimizer step and its gradient-norm all-reduce are not timed).
        std::vector<OpId> all = last;
        all.insert(all.end(), reductions.begin(), reductions.end());
        const OpId end = b.sync(plan.ranks.front(), all);
        plan.iteration_end.push_back(end);
        std::fill(last.begin(), last.end(), end);
    }
    plan.compute_per_rank = Time::ps(compute_one_rank.picoseconds() / spec.iterations);
    plan.flops_per_rank = static_cast<double>(flops_fwd * passes * plan.micro_batches);
    plan.end_op = static_cast<std::uint32_t>(graph.ops().size());
    return plan;
}

}  // namespace fabricsim::workloads
