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
#include <string>
#include <vector>

namespace fabricsim::workloads {

enum class OpKind { send, compute, group };

struct Op {
    OpKind kind = OpKind::send;
    std::uint32_t entry = 0;         // index into OpGraph::entries()
    RankId src;                      // send: source; compute: the rank that computes; group: first rank
    RankId dst;                      // send only
    Bytes size;                      // send only
    Time duration;                   // compute only
    Time not_before = Time::zero();
    std::uint32_t flow_hint = 0;
    std::int16_t rail = -1;          // send and group: see Message::rail
    std::uint32_t group = 0;         // group only: index into OpGraph::groups()
};

// An in-network collective (NVLS, SHARP) over a group of ranks: see core GroupOperation.
struct GroupOp {
    Offload offload = Offload::switch_aggregation;
    std::vector<RankId> ranks;
    Bytes egress;                    // per rank
    Bytes ingress;                   // per rank
};

struct Entry {
    std::string name;
    std::uint32_t after = kNoEntry;  // entry that must finish first
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
    // `later` may start only after `earlier` has finished.
    void add_dependency(OpId earlier, OpId later);

    const std::vector<Op>& ops() const { return ops_; }
    Op& op(OpId id) { return ops_[id.value()]; }
    const std::vector<Entry>& entries() const { return entries_; }
    const std::vector<GroupOp>& groups() const { return groups_; }
    const std::vector<OpId>& successors(OpId id) const { return successors_[id.value()]; }
    std::uint32_t predecessor_count(OpId id) const { return predecessors_[id.value()]; }

private:
    OpId add(Op op);
    std::vector<Op> ops_;
    std::vector<Entry> entries_;
    std::vector<GroupOp> groups_;
    std::vector<std::vector<OpId>> successors_;
    std::vector<std::uint32_t> predecessors_;
};

}  // namespace fabricsim::workloads
