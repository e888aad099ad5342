// A training job's schedule as steps (model and sources: training.hpp, docs/models/training.md):
// its sizes and durations (TrainingShape), the 1F1B order of each stage, and TrainingSteps,
// which makes one pipeline step's ops — compute of every rank of the stage, its TP and EP
// collectives, its PP sends and, after the last backward, the DP reduction — into a sink.
//
// Two sinks take them: a whole OpGraph (add_training, built step after step in one sweep) and
// the job's program (training_program.hpp), which makes a step only when the run reaches the
// step before it and forgets its ops once done. Both make a step's ops in the same order, so a
// step's n-th op is the same op in either.
#pragma once

#include "core/network.hpp"
#include "scenario/spec.hpp"
#include "workloads/member_stream.hpp"
#include "workloads/rank_layout.hpp"
#include "workloads/training.hpp"

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

namespace fabricsim::workloads {

// One job's sizes (bf16: 2 bytes per value) and per-micro-batch compute times.
struct TrainingShape {
    int tp = 1, pp = 1, dp = 1, ep = 1, m = 1;
    int expert_dp = 1;
    int buckets = 1;      // DP buckets of the last backward
    bool reduce = false;  // any gradient reduction at all
    Bytes tp_forward, tp_backward, pp_bytes, ep_forward, ep_backward, dense_grads, expert_grads;
    long double fwd_ps = 0, bwd_ps = 0;  // one micro-batch on one GPU
    int passes = 3;                      // forward-equivalents per micro-batch
    long double flops_fwd = 0;           // one micro-batch's forward FLOPs on one GPU
};
TrainingShape training_shape(const scenario::TrainingSpec& spec);

// A step of a stage's 1F1B schedule.
struct TrainingStep {
    bool forward = true;
    int micro = 0;
};
// 1F1B per stage (PipeDream-Flush; Narayanan et al. SC'21 §2.2.1): min(pp−p−1, m) warm-up
// forwards, then one forward one backward, then the remaining backwards.
std::vector<std::vector<TrainingStep>> one_f_one_b(int pp, int m);
// The compute of the job's first rank per iteration over `iterations`, as TrainingSteps gives
// it (the mean of its rounded durations, in whole ps).
Time first_rank_compute(const TrainingShape& shape, int iterations);

// Where a job's ops go. A Ref names an op of the job (kNone: no op).
class TrainingSink {
public:
    using Ref = std::uint64_t;
    static constexpr Ref kNone = UINT64_MAX;
    virtual ~TrainingSink() = default;
    // A compute op (kind compute) or a zero-time barrier (kind sync) on `rank`.
    virtual Ref compute(RankId rank, Time duration, TrainingOpKind kind, const Ref* after, std::size_t n) = 0;
    virtual Ref send(RankId src, RankId dst, Bytes size, Ref after) = 0;
    // A ring collective or an all-to-all as a stream: one open op per gate (gates.size() == 1: one for all
    // members), then its join; returns the barrier after the opens and the join.
    virtual Ref stream(std::shared_ptr<MemberStream> ring, const std::vector<Ref>& gates, RankId front,
                       TrainingOpKind kind) = 0;
    // A collective built whole (add_collective), each send after its member's gate; returns the
    // barrier after all its ops.
    virtual Ref whole(const scenario::CollectiveSpec& spec, Bytes message, const std::vector<RankId>& group,
                      const std::vector<Ref>& gates, TrainingOpKind kind) = 0;
    Ref sync(RankId rank, const std::vector<Ref>& after) {
        return compute(rank, Time::zero(), TrainingOpKind::sync, after.data(), after.size());
    }
};

class TrainingSteps {
public:
    TrainingSteps(const scenario::TrainingSpec& spec, std::vector<RankId> ranks, const RankLayout& layout,
                  const Network& network, TrainingSink& sink);

    const TrainingShape& shape() const { return shape_; }
    const std::vector<std::vector<TrainingStep>>& order() const { return order_; }
    // The op every rank's first op waits for; call once, first.
    TrainingSink::Ref start();
    // Whether stage p's k-th step has its input (its arrival was made).
    bool ready(int p, std::size_t k) const;
    // Makes stage p's k-th step of the iteration (its steps in order, each once ready).
    void build(int p, std::size_t k);
    // The iteration's closing barrier, once every step is made; the next iteration starts after it.
    TrainingSink::Ref end_iteration();
    // The stage and step whose arrival stage p's k-th step waits for (p itself when none).
    std::pair<int, std::size_t> input_of(int p, std::size_t k) const;
    // One iteration's compute on the job's first rank, summed over the iterations made.
    Time compute_first_rank() const { return compute_one_rank_; }

private:
    using Ref = TrainingSink::Ref;
    std::size_t idx(int t, int d, int p) const {
        const auto u = [](int v) { return static_cast<std::size_t>(v); };
        return u(t) + u(shape_.tp) * (u(d) + u(shape_.dp) * u(p));
    }
    Time next_duration(std::size_t j, long double ps);
    Ref collective(scenario::CollectiveOp op, const std::vector<RankId>& group, const std::vector<Ref>& gates,
                   Bytes size, TrainingOpKind kind);
    void reduce_gradients(int p, const std::vector<std::vector<Ref>>& chunk_done, int chunks);

    const scenario::TrainingSpec& spec_;
    TrainingShape shape_;
    std::vector<RankId> ranks_;
    const RankLayout& layout_;
    const Network& network_;
    TrainingSink& sink_;
    std::vector<std::vector<TrainingStep>> order_;
    std::vector<std::size_t> position_;  // per stage and micro-batch: its forward's, its backward's step
    // Exact compute durations: each rank's op durations are differences of its rounded running
    // total, so a rank's compute per iteration is within 1 ps of the exact value.
    std::vector<long double> exact_;
    std::vector<std::int64_t> given_;
    Time compute_one_rank_ = Time::zero();
    std::vector<Ref> last_;  // per job rank: its latest op
    // fwd_in[p][j][d·tp+t]: the send that brings micro-batch j's activations (forward) or
    // gradients (backward) to stage p; empty until made.
    std::vector<std::vector<std::vector<Ref>>> fwd_in_, bwd_in_;
    std::vector<Ref> reductions_;  // DP barriers of the iteration
};

}  // namespace fabricsim::workloads
