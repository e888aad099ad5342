// Executor: runs an OpGraph on a Network. Sends become Messages (MessageId = OpId); a compute
// op finishes its duration after it starts. Records when every op started and
// finished, from which entries' times, FCTs and (later) collective bandwidths follow.
#pragma once

#include "core/event_queue.hpp"
#include "core/network.hpp"
#include "workloads/op_graph.hpp"
#include "workloads/straggler.hpp"

#include <cstdint>
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
    Bytes bytes;                // sum of its sends
};

class Executor final : private EventTarget, private DeliveryListener {
public:
    Executor(OpGraph graph, Network& network);

    // GPUs that compute slower for a while (straggler.hpp); before start().
    void set_stragglers(std::vector<Straggler> stragglers) { stragglers_ = std::move(stragglers); }

    // Schedules every op that can start; call once, then run the simulator.
    void start(Simulator& sim);

    const OpGraph& graph() const { return graph_; }
    const std::vector<OpTiming>& op_timings() const { return timings_; }
    std::vector<EntryTiming> entry_timings() const;
    std::size_t ops_done() const { return done_; }
    std::size_t ops_total() const { return graph_.ops().size(); }

private:
    void on_event(Simulator& sim, std::uint64_t arg) override;
    void on_delivered(Simulator& sim, MessageId id) override;
    void release(Simulator& sim, OpId id);   // all its waits are over: start now or at not_before
    void issue(Simulator& sim, OpId id);
    void finish(Simulator& sim, OpId id);

    OpGraph graph_;
    Network& network_;
    std::vector<OpTiming> timings_;
    std::vector<std::uint32_t> waiting_;     // per op: predecessors and entry gate not yet done
    std::vector<std::uint32_t> entry_left_;  // per entry: ops not yet finished
    std::vector<std::vector<std::uint32_t>> gated_;  // per entry: entries waiting for it
    std::vector<Time> entry_open_;           // per entry: when its `after` entry finished (0 if none)
    std::vector<std::vector<OpId>> entry_ops_;
    std::size_t done_ = 0;
    std::vector<Straggler> stragglers_;
};

}  // namespace fabricsim::workloads
