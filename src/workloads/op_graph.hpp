// OpGraph: a workload as operations and dependencies, independent of any network (docs/ARCHITECTURE.md).
//
// Ops are grouped by the workload entry that made them (a transfer, later a collective or a
// training job). An op may start when (a) every op it depends on has finished, (b) the entry
// named in its entry's `after:` has finished, and (c) the clock has reached its not_before,
// counted from when that `after:` entry finished (from 0 for an entry without one).
#pragma once

#include "core/ids.hpp"
#include "core/network.hpp"
#include "core/units.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fabricsim::workloads {

class OpProgram;

// open: a member of a stream (OpGraph::add_stream) joins it; takes no time and is no op of the
// run's count.
enum class OpKind { send, compute, group, open };

struct Op {
    OpKind kind = OpKind::send;
    std::uint32_t entry = 0;  // index into OpGraph::entries()
    RankId src;               // send: source; compute: the rank that computes; group: first rank
    RankId dst;               // send only
    Bytes size;               // send only
    Time duration;            // compute only
    Time not_before = Time::zero();
    std::uint32_t flow_hint = 0;
    std::int16_t rail = -1;    // send and group: see Message::rail
    std::uint32_t group = 0;   // group only: index into OpGraph::groups(); open: into streams()
    std::uint32_t member = 0;  // open only: the member that joins (OpProgram::kAllMembers: all)
};

// A program run inside the graph (a training job's ring collective, ring_stream.hpp): each of
// its members starts when its open op is released; `join` waits for its last op.
struct Stream {
    std::shared_ptr<OpProgram> program;
    std::uint32_t entry = 0;
    std::vector<OpId> opens;  // by member (one when every member opens at once)
    OpId join;
};

// An in-network collective (NVLS, SHARP) over a group of ranks: see core GroupOperation.
struct GroupOp {
    Offload offload = Offload::switch_aggregation;
    std::vector<RankId> ranks;
    Bytes egress;             // per rank
    Bytes ingress;            // per rank
    std::uint32_t steps = 0;  // ring_channel: messages per rank (GroupOperation::steps)
};

struct Entry {
    std::string name;
    std::uint32_t after = kNoEntry;               // entry that must finish first
    std::uint8_t priority = Message::kDataClass;  // its messages' traffic class
    static constexpr std::uint32_t kNoEntry = UINT32_MAX;
};

class OpGraph {
public:
    std::uint32_t add_entry(std::string name);
    void set_after(std::uint32_t entry, std::uint32_t must_finish_first);
    void set_priority(std::uint32_t entry, std::uint8_t priority) { entries_[entry].priority = priority; }

    OpId add_send(std::uint32_t entry, RankId src, RankId dst, Bytes size, Time not_before = Time::zero());
    OpId add_compute(std::uint32_t entry, RankId rank, Time duration, Time not_before = Time::zero());
    // A group operation of `size` (the collective's S) through the network's offload.
    OpId add_group(std::uint32_t entry, GroupOp group, Bytes size, std::int16_t rail = -1);
    // A program inside `entry`; its open ops and join follow (add_open, set_join).
    std::uint32_t add_stream(std::uint32_t entry, std::shared_ptr<OpProgram> program);
    OpId add_open(std::uint32_t stream, std::uint32_t member);
    // `join` is released when the stream's last op has finished (besides its own dependencies).
    void set_join(std::uint32_t stream, OpId join) { streams_[stream].join = join; }
    // `later` may start only after `earlier` has finished.
    void add_dependency(OpId earlier, OpId later);

    const std::vector<Op>& ops() const { return ops_; }
    Op& op(OpId id) { return ops_[id.value()]; }
    const std::vector<Entry>& entries() const { return entries_; }
    const std::vector<GroupOp>& groups() const { return groups_; }
    const std::vector<Stream>& streams() const { return streams_; }
    // The ops a run counts: the graph's, less its open ops, plus its streams'.
    std::uint64_t ops_run() const { return ops_.size() - opens_ + streamed_; }
    const std::vector<OpId>& successors(OpId id) const { return successors_[id.value()]; }
    std::uint32_t predecessor_count(OpId id) const { return predecessors_[id.value()]; }

private:
    OpId add(Op op);
    std::vector<Op> ops_;
    std::vector<Entry> entries_;
    std::vector<GroupOp> groups_;
    std::vector<Stream> streams_;
    std::uint64_t opens_ = 0;
    std::uint64_t streamed_ = 0;
    std::vector<std::vector<OpId>> successors_;
    std::vector<std::uint32_t> predecessors_;
};

}  // namespace fabricsim::workloads
