// A training job's steps (training_steps.hpp; the model: training.hpp, docs/models/training.md).
#include "workloads/training_steps.hpp"

#include "core/errors.hpp"
#include "workloads/all_to_all_stream.hpp"
#include "workloads/collective.hpp"
#include "workloads/collective_algorithms.hpp"
#include "workloads/ring_stream.hpp"
#include "workloads/send_chain.hpp"

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
    double active;  // per token: dense + top_k experts
    double dense;   // reduced over all dp replicas
    double expert;  // sharded over ep, reduced over dp / ep
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

}  // namespace

TrainingShape training_shape(const scenario::TrainingSpec& spec) {
    TrainingShape s;
    s.tp = spec.tp;
    s.pp = spec.pp;
    s.dp = spec.dp;
    s.m = spec.micro_batches();
    s.ep = spec.model.experts > 0 ? spec.ep : 1;
    const ModelShares params = shares(spec);
    const auto& md = spec.model;
    const std::int64_t layers_per_stage = md.layers / s.pp;
    const std::int64_t bsh2 = std::int64_t{spec.micro_batch} * md.sequence * md.hidden * 2;
    const bool recompute = spec.recompute == scenario::Recompute::full;
    s.tp_forward = Bytes{2 * layers_per_stage * bsh2};
    s.tp_backward = Bytes{(recompute ? 4 : 2) * layers_per_stage * bsh2};
    s.pp_bytes = Bytes{bsh2 / s.tp};
    s.ep_forward = Bytes{md.experts > 0 ? 2 * layers_per_stage * bsh2 * md.top_k / s.tp : 0};
    s.ep_backward = Bytes{(recompute ? 2 : 1) * s.ep_forward.count()};
    const double dense_per_rank = params.dense / (s.pp * s.tp);
    const double expert_per_rank = params.expert / (double(s.pp) * s.tp * s.ep);
    s.dense_grads = Bytes{static_cast<std::int64_t>(std::llround(2 * dense_per_rank))};
    s.expert_grads = Bytes{static_cast<std::int64_t>(std::llround(2 * expert_per_rank))};
    s.expert_dp = s.dp / s.ep;

    // Compute: forward 2·P_active FLOPs per token for the weights plus 4·s·h per layer for the
    // attention scores (QKᵀ and their product with V, counted whole as SC'21 eq. 3 does),
    // backward twice that (three times with recomputation), per GPU its 1/(tp·pp) share of the
    // micro-batch's b·s tokens.
    const long double tokens = static_cast<long double>(spec.micro_batch) * md.sequence;
    const long double rate = static_cast<long double>(spec.peak_flops) * spec.mfu;  // FLOP/s
    const long double attention = 4.0L * md.layers * md.sequence * md.hidden;       // per token, forward
    s.flops_fwd = (2.0L * params.active + attention) * tokens / (s.tp * s.pp);
    s.passes = recompute ? 4 : 3;  // forward-equivalents per micro-batch: backward is two
    s.fwd_ps = s.flops_fwd / rate * 1e12L;
    s.bwd_ps = s.fwd_ps * (s.passes - 1);
    s.reduce = s.dp > 1 || s.expert_dp > 1;
    s.buckets = spec.overlap && s.dp > 1
                    ? std::clamp(static_cast<int>(std::ceil(dense_per_rank / std::max(kBucketParameters, 1e6 * s.dp))),
                                 1, kMaxBuckets)
                    : 1;
    return s;
}

std::vector<std::vector<TrainingStep>> one_f_one_b(int pp, int m) {
    std::vector<std::vector<TrainingStep>> order(static_cast<std::size_t>(pp));
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
    return order;
}

Time first_rank_compute(const TrainingShape& shape, int iterations) {
    // Rank 0 is in stage 0: its steps in order, the last backward in `buckets` parts.
    const auto order = one_f_one_b(shape.pp, shape.m);
    long double exact = 0;
    std::int64_t given = 0;
    for (int it = 0; it < iterations; ++it)
        for (const TrainingStep& s : order.front()) {
            const int chunks = !s.forward && s.micro == shape.m - 1 && shape.reduce ? shape.buckets : 1;
            const long double total = s.forward ? shape.fwd_ps : shape.bwd_ps;
            for (int c = 0; c < chunks; ++c) {
                exact += total / chunks;
                given = static_cast<std::int64_t>(std::llround(exact));
            }
        }
    return Time::ps(given / iterations);
}

TrainingSteps::TrainingSteps(const scenario::TrainingSpec& spec, std::vector<RankId> ranks, const RankLayout& layout,
                             const Network& network, TrainingSink& sink)
    : spec_(spec),
      shape_(training_shape(spec)),
      ranks_(std::move(ranks)),
      layout_(layout),
      network_(network),
      sink_(sink),
      order_(one_f_one_b(shape_.pp, shape_.m)),
      position_(static_cast<std::size_t>(shape_.pp) * static_cast<std::size_t>(shape_.m) * 2, 0),
      exact_(ranks_.size(), 0),
      given_(ranks_.size(), 0),
      last_(ranks_.size(), TrainingSink::kNone) {
    for (std::size_t p = 0; p < order_.size(); ++p)
        for (std::size_t k = 0; k < order_[p].size(); ++k) {
            const TrainingStep s = order_[p][k];
            position_[(p * static_cast<std::size_t>(shape_.m) + static_cast<std::size_t>(s.micro)) * 2 +
                      (s.forward ? 0 : 1)] = k;
        }
    fwd_in_.assign(static_cast<std::size_t>(shape_.pp),
                   std::vector<std::vector<Ref>>(static_cast<std::size_t>(shape_.m)));
    bwd_in_ = fwd_in_;
}

TrainingSink::Ref TrainingSteps::start() {
    const Ref s = sink_.sync(ranks_.front(), {});
    std::fill(last_.begin(), last_.end(), s);
    return s;
}

Time TrainingSteps::next_duration(std::size_t j, long double ps) {
    exact_[j] += ps;
    const auto total = static_cast<std::int64_t>(std::llround(exact_[j]));
    const std::int64_t d = total - given_[j];
    given_[j] = total;
    return Time::ps(d);
}

std::pair<int, std::size_t> TrainingSteps::input_of(int p, std::size_t k) const {
    const TrainingStep s = order_[static_cast<std::size_t>(p)][k];
    const int from = s.forward ? p - 1 : p + 1;
    if (from < 0 || from >= shape_.pp) return {p, k};
    const auto at =
        (static_cast<std::size_t>(from) * static_cast<std::size_t>(shape_.m) + static_cast<std::size_t>(s.micro)) * 2 +
        (s.forward ? 0 : 1);
    return {from, position_[at]};
}

bool TrainingSteps::ready(int p, std::size_t k) const {
    const auto pu = static_cast<std::size_t>(p);
    const TrainingStep s = order_[pu][k];
    const auto ju = static_cast<std::size_t>(s.micro);
    return s.forward ? (p == 0 || !fwd_in_[pu][ju].empty()) : (p == shape_.pp - 1 || !bwd_in_[pu][ju].empty());
}

TrainingSink::Ref TrainingSteps::collective(CollectiveOp op, const std::vector<RankId>& group,
                                            const std::vector<Ref>& gates, Bytes size, TrainingOpKind kind) {
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
    const Bytes message = std::max(size, Bytes{1});
    // A ring collective runs as a stream (ring_stream.hpp) where its gates are one per member
    // or one for all (each gate's successors then keep their order).
    if (RingStream::streams(spec.op) && group.size() <= RingStream::kMaxMembers) {
        const std::vector<RankId> members = collective_group(spec, layout_);
        if (members == group) {
            check_collective(spec, members, layout_, &network_);
            const SizeChoice choice = choose_for_size(spec, members, size, layout_, &network_, message);
            const bool one_gate = std::all_of(gates.begin(), gates.end(), [&](Ref g) { return g == gates.front(); });
            std::vector<Ref> sorted = gates;
            std::sort(sorted.begin(), sorted.end());
            const bool distinct = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
            if (choice.algorithm == CollectiveAlgorithm::ring && (one_gate || distinct)) {
                auto ring = std::make_shared<RingStream>(spec.op, members, choice.channels, size, message, layout_,
                                                         network_.offers(Offload::ring_channel, members));
                if (ring->ops_total() > 0)
                    return sink_.stream(std::move(ring), one_gate ? std::vector<Ref>{gates.front()} : gates,
                                        group.front(), kind);
            }
        }
    }
    // A pairwise all-to-all (the experts' dispatch and combine) likewise (all_to_all_stream.hpp).
    if (op == CollectiveOp::all_to_all && group.size() >= 2) {
        const std::vector<RankId> members = collective_group(spec, layout_);
        const bool one_gate = std::all_of(gates.begin(), gates.end(), [&](Ref g) { return g == gates.front(); });
        std::vector<Ref> sorted = gates;
        std::sort(sorted.begin(), sorted.end());
        const bool distinct = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
        if (members == group && (one_gate || distinct)) {
            check_collective(spec, members, layout_, &network_);
            const SizeChoice choice = choose_for_size(spec, members, size, layout_, &network_, message);
            if (choice.algorithm == CollectiveAlgorithm::pairwise) {
                auto a2a = std::make_shared<AllToAllStream>(members, choice.channels, size, layout_);
                if (a2a->ops_total() > 0)
                    return sink_.stream(std::move(a2a), one_gate ? std::vector<Ref>{gates.front()} : gates,
                                        group.front(), kind);
            }
        }
    }
    return sink_.whole(spec, message, group, gates, kind);
}

void TrainingSteps::build(int p, std::size_t k) {
    const int tp = shape_.tp, dp = shape_.dp, m = shape_.m, pp = shape_.pp;
    const auto pu = static_cast<std::size_t>(p);
    const TrainingStep s = order_[pu][k];
    const auto ju = static_cast<std::size_t>(s.micro);
    const bool last_backward = !s.forward && s.micro == m - 1;
    const int chunks = last_backward && shape_.reduce ? shape_.buckets : 1;
    const auto grid = static_cast<std::size_t>(dp) * static_cast<std::size_t>(tp);
    // chunk_done[k][d·tp+t]: the k-th part of the last backward, for bucket k.
    std::vector<std::vector<Ref>> chunk_done(static_cast<std::size_t>(chunks), std::vector<Ref>(grid));
    const auto& in = s.forward ? fwd_in_[pu][ju] : bwd_in_[pu][ju];
    for (int d = 0; d < dp; ++d)
        for (int t = 0; t < tp; ++t) {
            const std::size_t j = idx(t, d, p);
            const auto g = static_cast<std::size_t>(d) * static_cast<std::size_t>(tp) + static_cast<std::size_t>(t);
            const Ref input = in.empty() ? TrainingSink::kNone : in[g];
            const long double total = s.forward ? shape_.fwd_ps : shape_.bwd_ps;
            Ref prev = last_[j];
            for (int c = 0; c < chunks; ++c) {
                const Time dur = next_duration(j, total / chunks);
                if (j == 0) compute_one_rank_ += dur;
                const Ref after[2] = {prev, c == 0 ? input : TrainingSink::kNone};
                prev = sink_.compute(ranks_[j], dur, TrainingOpKind::compute, after, 2);
                chunk_done[static_cast<std::size_t>(c)][g] = prev;
            }
            last_[j] = prev;
        }
    // TP all-reduce of the stage's layers, per replica.
    if (tp > 1)
        for (int d = 0; d < dp; ++d) {
            std::vector<RankId> group;
            std::vector<Ref> gates;
            for (int t = 0; t < tp; ++t) {
                group.push_back(ranks_[idx(t, d, p)]);
                gates.push_back(last_[idx(t, d, p)]);
            }
            const Ref join = collective(CollectiveOp::all_reduce, group, gates,
                                        s.forward ? shape_.tp_forward : shape_.tp_backward, TrainingOpKind::tp);
            for (int t = 0; t < tp; ++t) last_[idx(t, d, p)] = join;
        }
    // EP all-to-all (dispatch + combine of every MoE layer), per EP group and TP rank.
    if (shape_.ep > 1)
        for (int e = 0; e < dp / shape_.ep; ++e)
            for (int t = 0; t < tp; ++t) {
                std::vector<RankId> group;
                std::vector<Ref> gates;
                for (int d = e * shape_.ep; d < (e + 1) * shape_.ep; ++d) {
                    group.push_back(ranks_[idx(t, d, p)]);
                    gates.push_back(last_[idx(t, d, p)]);
                }
                const Ref join = collective(CollectiveOp::all_to_all, group, gates,
                                            s.forward ? shape_.ep_forward : shape_.ep_backward, TrainingOpKind::ep);
                for (int d = e * shape_.ep; d < (e + 1) * shape_.ep; ++d) last_[idx(t, d, p)] = join;
            }
    // PP: activations to the next stage, gradients to the previous one (non-blocking for the
    // sender, as Megatron's batched isend/irecv).
    const int to = s.forward ? p + 1 : p - 1;
    if (to >= 0 && to < pp) {
        auto& arrivals =
            s.forward ? fwd_in_[static_cast<std::size_t>(to)][ju] : bwd_in_[static_cast<std::size_t>(to)][ju];
        arrivals.assign(grid, TrainingSink::kNone);
        for (int d = 0; d < dp; ++d)
            for (int t = 0; t < tp; ++t)
                arrivals[static_cast<std::size_t>(d) * static_cast<std::size_t>(tp) + static_cast<std::size_t>(t)] =
                    sink_.send(ranks_[idx(t, d, p)], ranks_[idx(t, d, to)], shape_.pp_bytes, last_[idx(t, d, p)]);
    }
    // The arrival this step used is no longer needed.
    (s.forward ? fwd_in_[pu][ju] : bwd_in_[pu][ju]) = std::vector<Ref>{};
    if (last_backward && shape_.reduce) reduce_gradients(p, chunk_done, chunks);
}

void TrainingSteps::reduce_gradients(int p, const std::vector<std::vector<Ref>>& chunk_done, int chunks) {
    // DP: the stage's gradients, bucket k after chunk k of the last backward (overlap), or all
    // at once after the stage's last op (no overlap).
    const int tp = shape_.tp, dp = shape_.dp, ep = shape_.ep, buckets = shape_.buckets;
    for (int t = 0; t < tp; ++t) {
        const auto gates_of = [&](int k, int d) {
            return spec_.overlap ? chunk_done[static_cast<std::size_t>(k)]
                                             [static_cast<std::size_t>(d) * static_cast<std::size_t>(tp) +
                                              static_cast<std::size_t>(t)]
                                 : last_[idx(t, d, p)];
        };
        if (dp > 1) {
            std::vector<RankId> group;
            for (int d = 0; d < dp; ++d) group.push_back(ranks_[idx(t, d, p)]);
            std::vector<Ref> joins;
            for (int k = 0; k < buckets; ++k) {
                std::vector<Ref> gates;
                for (int d = 0; d < dp; ++d) gates.push_back(gates_of(k, d));
                const Bytes bucket = workloads::share(shape_.dense_grads, buckets, k);
                joins.push_back(collective(
                    spec_.dp_mode == scenario::DpMode::zero ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce,
                    group, gates, bucket, TrainingOpKind::dp));
            }
            if (spec_.dp_mode == scenario::DpMode::zero) {
                // After the optimizer step on its shard (not timed), every rank gathers the
                // updated parameters.
                const Ref reduced = sink_.sync(group.front(), joins);
                joins = {collective(CollectiveOp::all_gather, group, std::vector<Ref>(group.size(), reduced),
                                    shape_.dense_grads, TrainingOpKind::dp)};
            }
            reductions_.insert(reductions_.end(), joins.begin(), joins.end());
        }
        if (shape_.expert_dp > 1)
            for (int e = 0; e < ep; ++e) {
                std::vector<RankId> group;
                std::vector<Ref> gates;
                for (int d = e; d < dp; d += ep) {
                    group.push_back(ranks_[idx(t, d, p)]);
                    gates.push_back(gates_of(chunks - 1, d));
                }
                reductions_.push_back(
                    collective(CollectiveOp::all_reduce, group, gates, shape_.expert_grads, TrainingOpKind::dp));
            }
    }
}

TrainingSink::Ref TrainingSteps::end_iteration() {
    // The iteration ends when every rank is done and every gradient is reduced (the optimizer
    // step and its gradient-norm all-reduce are not timed).
    std::vector<Ref> all = last_;
    all.insert(all.end(), reductions_.begin(), reductions_.end());
    const Ref end = sink_.sync(ranks_.front(), all);
    std::fill(last_.begin(), last_.end(), end);
    reductions_.clear();
    for (auto& stage : fwd_in_)
        for (auto& a : stage) a.clear();
    for (auto& stage : bwd_in_)
        for (auto& a : stage) a.clear();
    return end;
}

}  // namespace fabricsim::workloads
