// Executor: runs a workload on a Network: the ops of an OpGraph, and the ops of the entries
// that stream (OpProgram: made as the run reaches them). Sends become Messages; a compute op
// finishes its duration after it starts. Records when every graph op started and finished,
// from which entries' times, FCTs and collective bandwidths follow; a program records what it
// needs itself, as its ops finish, and its ops are forgotten once done.
#pragma once

#include "core/event_queue.hpp"
#include "core/network.hpp"
#include "workloads/op_graph.hpp"
#include "workloads/op_program.hpp"
#include "workloads/straggler.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace fabricsim::workloads {

struct OpTiming {
    Time start = Time::max();   // issued to the network / began computing
    Time finish = Time::max();  // delivered / done
    bool done() const { return finish != Time::max(); }
};

struct EntryTiming {
    Time start = Time::max();
    Time finish = Time::max();
    Bytes bytes;  // sum of its sends
};

class Executor final : private EventTarget, private DeliveryListener {
public:
    Executor(OpGraph graph, Network& network);

    // Entry `entry` (of the graph, without ops in it) runs `program`; before start().
    void set_program(std::uint32_t entry, std::unique_ptr<OpProgram> program);
    const OpProgram* program(std::uint32_t entry) const;

    // GPUs that compute slower for a while (straggler.hpp); before start().
    void set_stragglers(std::vector<Straggler> stragglers) { stragglers_ = std::move(stragglers); }

    // Schedules every op that can start; call once, then run the simulator.
    void start(Simulator& sim);

    const OpGraph& graph() const { return graph_; }
    const std::vector<OpTiming>& op_timings() const { return timings_; }  // the graph's ops
    std::vector<EntryTiming> entry_timings() const;                       // the graph's entries
    std::size_t ops_done() const { return done_; }
    std::size_t ops_total() const { return total_; }  // graph ops and every program's
    // When the last op finished (zero before any did).
    Time last_finish() const { return last_finish_; }
    // The most program ops that were ever between release and finish at once.
    std::size_t peak_live() const { return live_.size(); }

private:
    // An op of a program from its release to its finish; its slot is its MessageId.
    struct Live {
        std::uint32_t entry = 0;
        std::uint32_t stream = kNoStream;  // the graph's stream it belongs to, or its entry's program
        std::uint64_t local = 0;
        Time start = Time::max();
    };
    static constexpr std::uint32_t kNoStream = UINT32_MAX;
    OpProgram& program_of(const Live& live) const;
    void open_stream(Simulator& sim, OpId id);  // an open op was released
    void stream_done(Simulator& sim, std::uint32_t stream);

    void on_event(Simulator& sim, std::uint64_t arg) override;
    void on_delivered(Simulator& sim, MessageId id) override;
    void release(Simulator& sim, OpId id);  // all its waits are over: start now or at not_before
    void issue(Simulator& sim, OpId id);
    void finish(Simulator& sim, OpId id);
    void open_gates(Simulator& sim, std::uint32_t entry);  // `entry` finished
    void begin_program(Simulator& sim, std::uint32_t entry);
    void release_ready(Simulator& sim, std::uint32_t entry, ReadyOps& ready, std::uint32_t stream = kNoStream);
    void release_local(Simulator& sim, std::uint32_t entry, std::uint64_t local, std::uint32_t stream);
    void issue_local(Simulator& sim, std::uint32_t slot, const Op& op);
    void finish_local(Simulator& sim, std::uint32_t slot);
    void start_op(Simulator& sim, const Op& op, std::uint8_t priority, MessageId id, std::uint64_t compute_arg,
                  const GroupOp* group);
    ReadyOps& ready_buffer();

    OpGraph graph_;
    Network& network_;
    std::vector<OpTiming> timings_;
    std::vector<std::uint32_t> waiting_;             // per op: predecessors and entry gate not yet done
    std::vector<std::uint32_t> entry_left_;          // per entry: ops not yet finished
    std::vector<std::vector<std::uint32_t>> gated_;  // per entry: entries waiting for it
    std::vector<Time> entry_open_;                   // per entry: when its `after` entry finished (0 if none)
    std::vector<std::vector<OpId>> entry_ops_;
    std::vector<std::unique_ptr<OpProgram>> programs_;  // per entry; null: its ops are in the graph
    std::vector<bool> issue_hooks_;                     // per entry: its program wants issued()
    bool streams_ = false;
    std::vector<Live> live_;  // slots, reused through free_
    std::vector<std::uint32_t> free_;
    std::deque<ReadyOps> ready_;  // one buffer per nesting level of finish()
    std::size_t depth_ = 0;
    std::size_t done_ = 0;
    std::size_t total_ = 0;
    Time last_finish_ = Time::zero();
    std::vector<Straggler> stragglers_;
};

}  // namespace fabricsim::workloads
