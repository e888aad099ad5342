// Deadlock detection (docs/models/packet.md). A cyclic buffer dependency — every queue of a
// cycle held by its link's flow control (PFC paused, out of credits) waiting on the next
// node, whose queue towards the next link holds packets that came in through the first —
// stops traffic for good while pause frames keep being refreshed
// (Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM'16; Hu et al., "Deadlocks in
// Datacenter Networks", HotNets'16). A watchdog looks every deadlock_timeout: when no packet
// has arrived anywhere for that long while packets wait, it finds the cycle of paused ports
// and stops the run with a ModelError naming each switch, port and priority (exit code 3).
#include "fabric/packet/packet_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/units_format.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

void PacketNetwork::arm_watchdog(Simulator& sim) {
    if (watchdog_armed_ || (pfc_ == nullptr && ib_credits_ == nullptr) || lossy_ || spec_.deadlock_timeout <= Time::zero())
        return;
    watchdog_armed_ = true;
    watchdog_ = sim.at(sim.now() + spec_.deadlock_timeout, *this, event(0, kWatchdog));
}

void PacketNetwork::on_watchdog(Simulator& sim) {
    watchdog_armed_ = false;
    if (in_flight_ == 0) return;  // idle: the next send re-arms it
    if (stuck_ports_ > 0) {  // a stuck receiver (packet_faults.cpp) holds packets for its set time: not a deadlock
        arm_watchdog(sim);
        return;
    }
    if (sim.now() - last_move_ >= spec_.deadlock_timeout) {
        const std::string cycle = blocked_cycle();
        throw ModelError(fmt::format("{} deadlock: no packet has moved for {} while {} wait; {}",
                                     ib_ ? "credit" : "PFC",
                                     to_string(sim.now() - last_move_), in_flight_,
                                     cycle.empty() ? "no cycle of paused ports found (a pause storm?)" : cycle));
    }
    arm_watchdog(sim);
}

// A held queue Q (of the port u -> v) waits for v's queues that hold packets that came in
// through Q's link; when those queues are held in turn, Q depends on them. A cycle of such
// dependencies is a deadlock.
std::string PacketNetwork::blocked_cycle() const {
    const auto n = static_cast<std::uint32_t>(queues_.size());
    const auto held = [&](std::uint32_t q) {
        const LinkFlowControl* fc = ports_[layout_.port[q]].fc;
        return fc != nullptr && fc->blocked(q) && !queues_[q].fifo.empty();
    };
    std::vector<std::vector<std::uint32_t>> waits_on(n);
    for (std::uint32_t q = 0; q < n; ++q) {
        if (!held(q)) continue;
        const std::uint32_t link = layout_.port[q];
        const NodeId v = topology_.target(DirectedLink::from_index(link));
        const Node& node = topology_.node(v);
        for (std::uint32_t port = 0; port < node.ports.size(); ++port) {
            const std::uint32_t out = egress_of(v, port);
            for (std::uint32_t q2 = layout_.first[out]; q2 < layout_.first[out + 1]; ++q2) {
                if (!held(q2)) continue;
                for (std::uint32_t k = queues_[q2].fifo.head; k != kNone; k = packets_[k].next)
                    if (packets_[k].link == link) {
                        waits_on[q].push_back(q2);
                        break;
                    }
            }
        }
    }
    // Depth-first search for a cycle.
    enum class Mark : std::uint8_t { none, open, done };
    std::vector<Mark> mark(n, Mark::none);
    std::vector<std::uint32_t> stack;
    std::vector<std::uint32_t> cycle;
    const auto dfs = [&](auto&& self, std::uint32_t q) -> bool {
        mark[q] = Mark::open;
        stack.push_back(q);
        for (std::uint32_t r : waits_on[q]) {
            if (mark[r] == Mark::open) {
                cycle.assign(std::find(stack.begin(), stack.end(), r), stack.end());
                return true;
            }
            if (mark[r] == Mark::none && self(self, r)) return true;
        }
        stack.pop_back();
        mark[q] = Mark::done;
        return false;
    };
    for (std::uint32_t q = 0; q < n && cycle.empty(); ++q)
        if (mark[q] == Mark::none && !waits_on[q].empty()) dfs(dfs, q);
    if (cycle.empty()) return {};
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    std::string text = ib_ ? "cycle of ports waiting for credits:" : "cycle of paused ports:";
    for (std::uint32_t q : cycle) {
        const std::uint32_t p = layout_.port[q];
        const DirectedLink d = DirectedLink::from_index(p);
        const NodeId u = topology_.source(d);
        const Node& node = topology_.node(u);
        std::uint32_t port = 0;
        while (port < node.ports.size() && egress_of(u, port) != p) ++port;
        const int priority = ports_[p].classes == 1 ? data_prio_ : layout_.class_of[q];
        text += fmt::format(" {} port {} (to {}, {} {}) ->", node.name, port, topology_.node(topology_.target(d)).name,
                            ib_ ? "VL" : "priority", priority);
    }
    text += fmt::format(" {}", topology_.node(topology_.source(DirectedLink::from_index(layout_.port[cycle.front()]))).name);
    return text;
}

}  // namespace fabricsim::fabric
