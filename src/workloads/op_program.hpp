// OpProgram: a workload entry's operations made as the run reaches them, instead of a whole
// OpGraph built before it (docs/ARCHITECTURE.md, "Streaming").
//
// The Executor holds the ops that are running; a program holds the rest of its entry's state
// (what each op still waits for) and makes an op when the op it waits for finishes, the way an
// execution trace is replayed: begin() names the ops that may start at once, finished() the
// ops a finishing op released. Ops are named by a 64-bit number local to the program; they are
// released in the order a whole graph would have released them (its op ids), which keeps
// event ties — and so every result — as they were.
//
// Collective, training and traffic entries are such programs (collective_program.hpp,
// training_program.hpp, traffic_program.hpp), and so is a replayed execution trace
// (trace_program.hpp). Memory is then what is in flight plus the program's per-rank state, not
// the bytes the entry moves.
#pragma once

#include "core/units.hpp"
#include "workloads/op_graph.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim::workloads {

// Where a program appends the ops it releases, in the order they are to start.
using ReadyOps = std::vector<std::uint64_t>;

class OpProgram {
public:
    virtual ~OpProgram() = default;

    // The entry's ops that wait for nothing, as the entry opens (at the start of the run or
    // when the entry it is `after:` finishes).
    virtual void begin(ReadyOps& ready) = 0;

    // What op `local` is; called once, as it is issued. Op::entry is ignored (the program's
    // entry is the executor's to know); not_before counts from when the entry opened.
    virtual Op op(std::uint64_t local) const = 0;
    // The group operation of a group op (OpKind::group); valid while the op runs.
    virtual const GroupOp* group(std::uint64_t /*local*/) const { return nullptr; }

    // Whether the executor calls issued(): for a program that makes an op when an earlier one
    // starts rather than when it finishes (open-loop arrivals: traffic_program.hpp). Asked once.
    virtual bool wants_issued() const { return false; }
    // Op `local` was issued at `now` (its not_before reached), after it was handed to the
    // network: the ops that released, in order.
    virtual void issued(std::uint64_t /*local*/, Time /*now*/, ReadyOps& /*ready*/) {}

    // Op `local`, issued at `start`, finished at `finish`: the ops it released, in order.
    virtual void finished(std::uint64_t local, Time start, Time finish, ReadyOps& ready) = 0;

    // Every op has finished.
    virtual bool done() const = 0;

    // Ops the entry runs in all, known before it starts (closed form): the denominator of the
    // progress bar and of "N of M ops never finished".
    virtual std::uint64_t ops_total() const = 0;

    // A program inside a graph (OpGraph::add_stream) starts member by member instead of through
    // begin(): member `member` (kAllMembers: every one) may start from `now`, when the graph op
    // it waits for finished; the ops that released, in order.
    static constexpr std::uint32_t kAllMembers = UINT32_MAX;
    virtual void open(std::uint32_t /*member*/, Time /*now*/, ReadyOps& /*ready*/) {}
    // Once done(): the member whose opening the last-finishing op's chain of releases goes back
    // to (the critical path through the program, docs/models/training.md "Breakdown").
    virtual std::uint32_t root() const { return 0; }
};

}  // namespace fabricsim::workloads
