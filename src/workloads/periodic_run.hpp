// PeriodicRun: one run of a collective whose algorithm cuts its bytes into units — a tree's or
// a broadcast's messages, a hierarchical all-reduce's pieces — replayed from the graph of its
// first units instead of the whole run's graph, so that what it holds does not grow with the
// bytes it moves (docs/ARCHITECTURE.md, "Streaming").
//
// Such an algorithm makes its ops segment by segment (a channel, or a channel's tree), unit by
// unit inside a segment, and every unit the same ops: the same kinds, endpoints and order, the
// sizes of the unit's bytes (all units but the last `bytes mod units` have one byte less), and
// dependencies on ops of the same unit or of the units a fixed number before it (the window of
// kWindow messages per connection, a piece's wait for the piece kWindow before). Unit u of a
// segment of J ops per unit is then numbered u·J + j as the whole graph numbers it, and from
// the unit `reach` units on (the farthest back any op waits), op j of every unit waits for the
// ops that op j of the template's last unit waits for, shifted by the same number of units.
// The run keeps the graph of its first kTemplateUnits units (built by the algorithm itself,
// with the real sizes: the "head") and of each segment's last unit (its "tail": the sizes of
// the smaller units); a unit beyond the head takes its ops from the head's first unit or the
// tail, its predecessors' count from the head's last unit and its successors from the head's
// unit `reach` before the last, shifted. Successors are released in the head's order, which is
// the whole graph's (successor lists keep the order in which ops were made), so event ties and
// every result are those of the whole graph. make() checks all of this on the head op by op
// and gives nothing when a run does not repeat so; the caller then builds it whole.
//
// Memory: the head (kTemplateUnits units), the tail (one unit) and, per segment, a counter for
// each op between the oldest one not yet released and the newest one touched (counter_window.hpp).
// That distance is bounded by the algorithms' flow control, not by the run's length: every
// dependency reaches at most `reach` units back, and every hop of a tree or a broadcast waits
// for its receiver to have forwarded the message kWindow before (SendChain::forward), so no op
// is touched more than about kWindow units per hop ahead of the oldest op not yet released.
#pragma once

#include "workloads/counter_window.hpp"
#include "workloads/op_graph.hpp"
#include "workloads/op_program.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace fabricsim::workloads {

// One segment of a run as its algorithm made it: where its ops start in the graph, how many
// units the whole run has in it and how many of those are one byte larger.
struct UnitSegment {
    std::uint32_t first = 0;
    std::int64_t units = 0;
    std::int64_t larger = 0;
};

// Which units an algorithm builds (collective_algorithms.hpp): at most `cap` per segment, the
// first ones or (`last`) the last ones; each segment it starts is appended to `segments`.
struct UnitWindow {
    std::int64_t cap = INT64_MAX;
    bool last = false;
    std::vector<UnitSegment>* segments = nullptr;
};

// The units of a segment of `units` units, `larger` of them one byte larger, whose ops start at
// `first`, that an algorithm builds under `window` (null: all): `count` of them, the first of
// which has index `offset` in the run (its size is share(bytes, units, offset + k)).
struct UnitRange {
    std::int64_t count = 0;
    std::int64_t offset = 0;
};
UnitRange unit_range(const UnitWindow* window, std::uint32_t first, std::int64_t units, std::int64_t larger);

class PeriodicRun {
public:
    // Enough units for the farthest dependency of the algorithms (kWindow units back) to be
    // seen twice in the head: reach ≤ (kTemplateUnits − 1) / 2.
    static constexpr std::int64_t kTemplateUnits = 17;

    // `head`: the run built under UnitWindow{kTemplateUnits}; `tail`: built under
    // UnitWindow{1, true}. Null when the run does not repeat as described at the top.
    static std::unique_ptr<PeriodicRun> make(OpGraph head, const std::vector<UnitSegment>& head_segments, OpGraph tail,
                                             const std::vector<UnitSegment>& tail_segments);

    std::uint64_t ops() const { return ops_; }  // the whole run's
    // Ops kept to replay the run: the head's and the tail's (independent of the run's bytes
    // once its segments are longer than the head).
    std::size_t held_ops() const { return head_.ops().size() + tail_.ops().size(); }
    // The most counters each segment has held at once (its window's span), summed over the
    // segments, over every time the run was played: independent of the run's bytes.
    std::uint64_t peak_counters() const;

    // The ops that wait for nothing, in id order; the run starts afresh.
    void begin(ReadyOps& ready);
    Op op(std::uint64_t local) const;
    const GroupOp* group(std::uint64_t local) const;
    // Op `local` finished: the ops it released, in the whole graph's order.
    void finished(std::uint64_t local, ReadyOps& ready);

private:
    struct Segment {
        std::uint32_t first = 0;       // in the head
        std::uint32_t tail_first = 0;  // in the tail
        std::int64_t units = 0;
        std::int64_t larger = 0;
        std::int64_t per_unit = 0;  // J
        std::int64_t built = 0;     // units in the head: min(units, kTemplateUnits)
        std::int64_t reach = 0;     // units back the farthest dependency goes
        BasicCounterWindow<std::uint32_t> waits;
    };
    PeriodicRun(OpGraph head, OpGraph tail) : head_(std::move(head)), tail_(std::move(tail)) {}
    // Where op `index` of segment `s` comes from: the graph and the op's id in it.
    std::pair<const OpGraph*, std::uint32_t> source(const Segment& s, std::int64_t index) const;
    void release(std::size_t segment, std::int64_t index, ReadyOps& ready);

    OpGraph head_;
    OpGraph tail_;
    std::vector<Segment> segments_;
    std::uint64_t ops_ = 0;
};

}  // namespace fabricsim::workloads
