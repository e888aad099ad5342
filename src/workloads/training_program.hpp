// TrainingProgram: a training job as an OpProgram (op_program.hpp; docs/ARCHITECTURE.md,
// "Streaming"): each stage's next pipeline step is made (TrainingSteps) when the run releases
// the first op of the step before it, the way a trace is replayed, and an op is forgotten once
// done. Its ring collectives and expert all-to-alls run as streams inside it
// (member_stream.hpp). What it keeps of a done op is a 40-byte record for the iteration's
// critical path (docs/models/training.md "Breakdown"), dropped when the iteration ends; the
// breakdown is added up as ops are released.
//
// Event ties stay those of the whole graph (add_training): a step's ops are numbered in the
// order the step makes them and the steps in the order add_training's sweep makes them, so an
// op's successors are released, and the op that released another is chosen on equal finish
// times, in the whole graph's id order.
#pragma once

#include "workloads/op_program.hpp"
#include "workloads/rank_layout.hpp"
#include "workloads/training.hpp"
#include "workloads/training_steps.hpp"

#include <deque>
#include <memory>
#include <vector>

namespace fabricsim::workloads {

class TrainingProgram final : public OpProgram, private TrainingSink {
public:
    TrainingProgram(const scenario::TrainingSpec& spec, const scenario::ClusterSpec& cluster, const Network& network,
                    TrainingPlan plan);

    void begin(ReadyOps& ready) override;
    Op op(std::uint64_t local) const override;
    const GroupOp* group(std::uint64_t local) const override;
    void finished(std::uint64_t local, Time start, Time finish, ReadyOps& ready) override;
    bool done() const override { return left_ == 0; }
    std::uint64_t ops_total() const override { return total_; }

    const TrainingPlan& plan() const { return plan_; }
    // What measure_training gives for the whole graph: every iteration's breakdown once all
    // finished, the bytes by link class and of the last critical rank.
    TrainingMeasurement measurement() const;
    // The most ops held at once (made and not done), and records.
    std::size_t peak_ops() const { return peak_ops_; }
    std::size_t peak_records() const { return peak_records_; }

private:
    struct Node {
        Op op;
        std::vector<std::pair<std::uint64_t, Ref>> successors;  // (step, op), in the whole graph's order
        std::vector<Ref> predecessors;
        std::uint32_t waiting = 0;
        std::uint32_t stream = UINT32_MAX;  // open ops: their stream
        std::int32_t group = -1;            // group ops: index into groups_
    };
    // What the critical path needs of an op, from its make to its iteration's end, in 40 bytes.
    struct Record {
        Time start = Time::max();
        Time finish = Time::max();
        std::uint64_t key = 0;         // (step << 32) | its index in the step: the whole graph's id order
        Ref by = kNone;                // the predecessor that released it
        std::uint32_t rank_kind = 0;   // job rank << 3 | TrainingOpKind
        std::uint32_t node = kNoNode;  // its slot in nodes_ until it finishes
        std::uint32_t rank() const { return rank_kind >> 3; }
        TrainingOpKind kind() const { return static_cast<TrainingOpKind>(rank_kind & 7); }
    };
    static constexpr std::uint32_t kNoNode = UINT32_MAX;
    static_assert(sizeof(Record) == 40, "an op's record is 40 bytes");
    struct StreamSlot {
        std::shared_ptr<MemberStream> ring;
        std::vector<Ref> opens;
        Ref join = kNone;
        TrainingOpKind kind = TrainingOpKind::dp;
        int iteration = 0;
    };
    struct RankTally {  // the breakdown of the iteration so far as if the rank were critical
        Time from, compute, bubble;
        std::array<Time, kCommKinds> exposed{};
    };

    // TrainingSink: the ops of the step being made.
    Ref compute(RankId rank, Time duration, TrainingOpKind kind, const Ref* after, std::size_t n) override;
    Ref send(RankId src, RankId dst, Bytes size, Ref after) override;
    Ref stream(std::shared_ptr<MemberStream> ring, const std::vector<Ref>& gates, RankId front,
               TrainingOpKind kind) override;
    Ref whole(const scenario::CollectiveSpec& spec, Bytes message, const std::vector<RankId>& group,
              const std::vector<Ref>& gates, TrainingOpKind kind) override;

    Ref make(const Op& op, TrainingOpKind kind, std::uint32_t rank);
    void depend(Ref earlier, Ref later);
    Record& record(Ref r) { return records_[r - record_base_]; }
    const Record& record(Ref r) const { return records_[r - record_base_]; }
    std::uint32_t job_rank(RankId r) const { return job_rank_[r.value()]; }

    void ensure(int p, std::size_t k);    // stage p's k-th step of the iteration being made
    void start_iteration(int iteration);  // its first steps
    std::uint64_t step_key(int iteration, std::size_t sweep) const;
    void release(Ref r, Time now, ReadyOps& ready);
    void finish(Ref r, Time now, ReadyOps& ready);
    void stream_done(std::uint32_t slot, Time now, ReadyOps& ready);
    void attribute(const Record& x, Time from, RankTally& out) const;
    void end_of_iteration(Ref end, Time now);
    void count_ops(const scenario::TrainingSpec& spec, const RankLayout& layout, const Network& network);

    scenario::TrainingSpec spec_;
    TrainingPlan plan_;
    int iterations_ = 1;
    RankLayout layout_;
    const Network& network_;
    std::unique_ptr<TrainingSteps> steps_;
    std::size_t steps_per_iteration_ = 0;
    std::vector<std::vector<std::size_t>> sweep_;             // [p][k]: the step's place in add_training's sweep
    std::vector<std::pair<int, std::size_t>> step_of_sweep_;  // and back
    std::vector<bool> made_, triggered_;                      // per sweep place, this iteration
    std::size_t made_count_ = 0;
    int making_ = -1;                   // the iteration whose steps are being made
    ReadyOps* making_ready_ = nullptr;  // while a release makes steps: where ops that wait for nothing go
    Time now_;
    std::uint64_t key_step_ = 0;
    std::uint32_t key_index_ = 0;

    // Ops made and not finished, in slots reused through free_nodes_ (their lists keep their
    // capacity, so a slot's reuse allocates nothing).
    std::vector<Node> nodes_;
    std::vector<std::uint32_t> free_nodes_;
    std::size_t live_nodes_ = 0;
    Node& node(Ref r) { return nodes_[record(r).node]; }
    const Node& node(Ref r) const { return nodes_[record(r).node]; }
    std::deque<Record> records_;
    Ref record_base_ = 0;
    Ref next_ = 0;
    std::vector<StreamSlot> streams_;
    std::vector<std::uint32_t> free_streams_;
    std::vector<GroupOp> groups_;
    std::vector<Ref> ends_;  // each iteration's closing barrier, once made
    std::vector<std::uint32_t> job_rank_;

    std::uint64_t total_ = 0;
    std::uint64_t left_ = 0;
    std::size_t peak_ops_ = 0;
    std::size_t peak_records_ = 0;
    ReadyOps scratch_;

    // The breakdown, as it adds up.
    std::vector<RankTally> tally_;
    std::vector<TrainingBreakdown> iterations_done_;
    Time iteration_start_;
    std::array<Bytes, 3> link_bytes_{};
    std::array<std::vector<std::array<Bytes, kCommKinds>>, 2> rank_bytes_;  // by iteration parity
    std::array<Bytes, kCommKinds> critical_bytes_{};                        // of the last iteration ended
    LinkClass inside_ = LinkClass::nvlink;
};

}  // namespace fabricsim::workloads
