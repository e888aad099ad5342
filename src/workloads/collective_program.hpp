// A `- collective:` entry as an OpProgram (op_program.hpp): its runs one after the other, each
// closed by a zero-time join on the group's first rank, as add_collective plans them.
//
// A ring run (all-reduce, reduce-scatter, all-gather: ring_rounds in ring.cpp) streams: its
// sends are numbered per channel as ring_rounds makes them, (loop·steps + round)·n + rank, and
// their dependencies follow from the numbers alone — the block received in the round before,
// the same round of the loop before, and the kWindow-th previous send on the connection — so a
// send exists only from when its first predecessor finishes until it is delivered. The other
// algorithms' runs are built as graphs once per size (collective.cpp's build_run) and replayed
// from them. Where an algorithm cuts the bytes into messages or pieces (tree, broadcast,
// send-recv, hierarchical, SHARP), a size of more than PeriodicRun::kTemplateUnits of them per
// segment is built for its first ones only and replayed from those (periodic_run.hpp); the
// others' graphs (halving-doubling, pairwise, NVLS) do not grow with the bytes. Either way a
// size holds a number of ops that does not grow with its bytes. A ring run of one loop per
// channel on a network that offers Offload::ring_channel (the flow model) is one group op per
// channel instead (docs/models/flow.md, "Rings as one flow").
#pragma once

#include "core/network.hpp"
#include "scenario/collective_spec.hpp"
#include "workloads/collective.hpp"
#include "workloads/collective_algorithms.hpp"
#include "workloads/counter_window.hpp"
#include "workloads/op_program.hpp"
#include "workloads/periodic_run.hpp"
#include "workloads/rank_layout.hpp"

#include <memory>
#include <vector>

namespace fabricsim::workloads {

class CollectiveProgram final : public OpProgram {
public:
    // Throws ModelError as add_collective does; `message_bytes` as there.
    CollectiveProgram(const scenario::CollectiveSpec& spec, const RankLayout& layout, const Network* network,
                      Bytes message_bytes = kMessageBytes);

    const CollectivePlan& plan() const { return plan_; }
    // Per run of plan().runs: when it started and finished (so far).
    const std::vector<RunSpan>& spans() const { return spans_; }

    void begin(ReadyOps& ready) override;
    Op op(std::uint64_t local) const override;
    const GroupOp* group(std::uint64_t local) const override;
    void finished(std::uint64_t local, Time start, Time finish, ReadyOps& ready) override;
    bool done() const override { return run_ == plan_.runs.size(); }
    std::uint64_t ops_total() const override { return total_; }
    // Ops kept to replay the sizes that do not stream as rings (their graphs, or the heads and
    // tails of their periodic runs): bounded whatever the sizes' bytes.
    std::size_t held_ops() const;
    // The most op counters a periodic run of any size has held (PeriodicRun::peak_counters):
    // bounded whatever the sizes' bytes; 0 when no size is replayed from a head.
    std::uint64_t peak_counters() const;

private:
    // One channel of a ring run.
    struct Ring {
        std::vector<RankId> order;
        Bytes bytes;
        std::int64_t loops = 0;
        std::int64_t n = 0;
        std::int16_t rail = -1;  // across servers; -1 inside one
        CounterWindow waits;
        GroupOp channel;  // coupled: the channel as one group op
    };
    // A size's runs: either rings (ring_rounds with `steps` rounds) or one run's graph.
    struct SizeRuns {
        SizeChoice choice;
        Bytes size;
        bool ring = false;
        bool coupled = false;  // ring: each channel one group op (Offload::ring_channel)
        int steps = 0;
        std::unique_ptr<OpGraph> graph;  // !ring and !periodic
        std::unique_ptr<PeriodicRun> periodic;
        std::uint64_t ops = 0;  // one run's, without its join
    };

    // A size's graph, or its periodic run (periodic_run.hpp) where it is cut into more units
    // than the head holds and repeats.
    void build_graph(SizeRuns& s, const scenario::CollectiveSpec& spec, const RankLayout& layout,
                     const Network* network) const;
    void start_run(ReadyOps& ready);  // from run_ on, skipping runs without ops
    void ring_finished(std::uint64_t local, ReadyOps& ready);
    void ring_release(std::size_t channel, std::uint64_t index, ReadyOps& ready);
    std::uint8_t ring_predecessors(std::uint64_t index, std::int64_t n) const;

    RankLayout layout_;
    std::vector<RankId> group_;
    Bytes message_bytes_;   // the largest message a ring or tree block is sent in
    bool coupled_ = false;  // the network offers Offload::ring_channel for the group
    CollectivePlan plan_;
    std::vector<RunSpan> spans_;
    std::vector<SizeRuns> sizes_;
    std::vector<std::size_t> size_of_run_;  // index into sizes_
    std::uint64_t total_ = 0;

    // The run in progress.
    std::size_t run_ = 0;
    std::uint64_t run_left_ = 0;        // its ops not yet finished
    Time run_last_ = Time::zero();      // its last delivery so far
    std::vector<Ring> rings_;           // ring run: per channel
    std::vector<std::uint32_t> waits_;  // graph run: per op, predecessors not yet finished
    std::int64_t steps_ = 0;            // ring run: rounds per loop
};

}  // namespace fabricsim::workloads
