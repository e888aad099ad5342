// TraceProgram: a job replayed from its Chakra execution traces as an OpProgram (op_program.hpp;
// docs/models/traces.md). Each rank's file is read as the run reaches it: a rank holds at most
// kWindow nodes that are read and not done, so a trace of thousands of ranks is never all in
// memory — what is held is the window of every rank plus the collectives and messages in flight.
//
// A node starts when every node it depends on (ctrl_deps and data_deps, earlier in its file) is
// done. Compute nodes are compute ops of their duration; a send is a network message, done when
// delivered; a receive is done when its deps are and the matching send (same source,
// destination and tag, in order) has arrived. A collective node waits until every member of its
// process group has reached its collective of the same number on that group; the collective then
// runs as this project runs it (collective.hpp, the algorithm NCCL would choose) and every
// member's node is done when its last message is delivered.
//
// As ops finish the program adds up, per rank, its compute and the waits before each compute,
// charged to what released the compute (a collective of a group, a point-to-point message, or
// nothing: idle); the rank whose last node ends last is the critical one (the breakdown of
// docs/models/traces.md).
#pragma once

#include "core/network.hpp"
#include "workloads/op_program.hpp"
#include "workloads/rank_layout.hpp"
#include "workloads/timeline_event.hpp"
#include "workloads/trace_index.hpp"
#include "workloads/trace_reader.hpp"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace fabricsim::workloads {

// The collectives of one (group, op, size): how many ran and their summed time, each from when
// its last member reached it to its last delivery.
struct TraceCollectiveTimes {
    int group = 0;
    scenario::CollectiveOp op = scenario::CollectiveOp::all_reduce;
    Bytes size;
    int ranks = 0;
    std::uint64_t count = 0;
    Time total;
};

// The trace's run on its critical rank: compute + idle + Σ exposed = time.
struct TraceBreakdown {
    Time time;  // from the first node's start to the last node's end
    Time compute;
    Time idle;                  // waits released by nothing the network carries
    std::vector<Time> exposed;  // by group (TraceIndex::groups), then point-to-point last
    int critical = 0;           // trace rank
};

class TraceProgram final : public OpProgram {
public:
    // A rank's nodes read and not done, at most.
    static constexpr std::size_t kWindow = 1024;

    TraceProgram(TraceIndex index, const scenario::ClusterSpec& cluster, const Network& network, bool timeline);
    ~TraceProgram() override;

    void begin(ReadyOps& ready) override;
    Op op(std::uint64_t local) const override;
    const GroupOp* group(std::uint64_t local) const override;
    void finished(std::uint64_t local, Time start, Time finish, ReadyOps& ready) override;
    bool done() const override { return nodes_done_ == index_.nodes; }
    std::uint64_t ops_total() const override { return index_.ops; }

    const TraceIndex& index() const { return index_; }
    std::vector<TraceCollectiveTimes> collectives() const;
    TraceBreakdown breakdown() const;
    const std::vector<TimelineEvent>& timeline() const { return timeline_; }
    std::size_t peak_nodes() const { return peak_nodes_; }

private:
    static constexpr int kNoClass = -1;  // released by nothing measured (idle)
    struct Slot {
        TraceNode node;
        std::uint32_t rank = 0;  // index into index_.ranks
        std::uint32_t waiting = 0;
        std::vector<std::uint32_t> successors;
        Time ready;
        Time by_time;           // when the last of its deps ended
        int by = kNoClass;      // the class of that dep: 0 compute, 1 + group, 1 + groups: point-to-point
        int group = -1;         // collective: its group
        std::uint64_t seq = 0;  // collective: its number on that group, on its rank
    };
    struct Rank {
        std::unique_ptr<TraceReader> reader;
        bool eof = false;
        std::unordered_map<std::uint64_t, std::uint32_t> live;  // node id -> slot
        std::vector<std::uint64_t> seq;                         // per group: collectives read
        Time from = Time::max();                                // end of its compute so far
        Time compute;
        Time idle;
        std::vector<Time> exposed;
        Time last = Time::zero();
        int last_class = kNoClass;
    };
    struct Pending {  // a collective some members have reached
        std::uint32_t arrived = 0;
        std::vector<std::uint32_t> slots;  // by member
    };
    struct Instance {  // a collective running
        OpGraph graph;
        std::vector<std::uint32_t> waiting;
        std::uint64_t left = 0;
        std::vector<std::uint32_t> members;
        Time start;
        int group = 0;
    };
    struct Channel {  // (src, dst, tag): sends arrived and receives waiting, in order
        std::deque<Time> arrived;
        std::deque<std::uint32_t> waiting;
    };

    void fill(std::uint32_t rank, Time now, ReadyOps& ready);
    void make_ready(std::uint32_t s, Time now, ReadyOps& ready);
    void arrive(std::uint32_t s, Time now, ReadyOps& ready);
    void complete(std::uint32_t s, Time now, ReadyOps& ready);
    void drain(ReadyOps& ready);
    int class_of(const Slot& x) const;
    Channel& channel(std::uint32_t src, std::uint32_t dst, std::int64_t tag);
    void note(const Slot& x, const char* category, Time start, Time finish);
    std::uint32_t cluster_rank(std::uint32_t rank) const { return static_cast<std::uint32_t>(index_.ranks[rank]); }

    TraceIndex index_;
    RankLayout layout_;
    const Network& network_;
    bool record_timeline_;
    std::vector<Slot> slots_;
    std::vector<std::uint32_t> free_slots_;
    std::size_t live_slots_ = 0, peak_nodes_ = 0;
    std::vector<Rank> ranks_;
    std::vector<std::vector<int>> member_pos_;  // [group][rank]: its place in the group, or -1
    std::vector<std::map<std::uint64_t, Pending>> pending_;
    std::vector<std::unique_ptr<Instance>> instances_;
    std::vector<std::uint32_t> free_instances_;
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::int64_t>, Channel> channels_;
    std::deque<std::pair<std::uint32_t, Time>> completing_;  // internal completions, in order
    std::map<std::tuple<int, int, std::int64_t>, TraceCollectiveTimes> collective_times_;
    std::vector<TimelineEvent> timeline_;
    std::uint64_t nodes_done_ = 0;
    Time first_ = Time::max();
};

}  // namespace fabricsim::workloads
