// PFC deadlock detection (docs/models/packet.md). A cyclic buffer dependency — every port of
// a cycle paused by the next switch, whose queue towards the next port holds packets that
// came in through the first — stops traffic for good while pause frames keep being refreshed
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
    if (watchdog_armed_ || ingress_.empty() || spec_.deadlock_timeout <= Time::zero()) return;
    watchdog_armed_ = true;
    watchdog_ = sim.at(sim.now() + spec_.deadlock_timeout, *this, event(0, kWatchdog));
}

void PacketNetwork::on_watchdog(Simulator& sim) {
    watchdog_armed_ = false;
    if (in_flight_ == 0) return;  // idle: the next send re-arms it
    if (sim.now() - last_move_ >= spec_.deadlock_timeout) {
        const std::string cycle = paused_cycle();
        throw ModelError(fmt::format("PFC deadlock: no packet has moved for {} while {} wait; {}",
                                     to_string(sim.now() - last_move_), in_flight_,
                                     cycle.empty() ? "no cycle of paused ports found (a pause storm?)" : cycle));
    }
    arm_watchdog(sim);
}

// A paused port P (u -> v) waits for v's queues that hold P's packets; when those queues'
// ports are paused in turn, P depends on them. A cycle of such dependencies is a deadlock.
std::string PacketNetwork::paused_cycle() const {
    const auto n = static_cast<std::uint32_t>(ports_.size());
    std::vector<std::vector<std::uint32_t>> waits_on(n);
    for (std::uint32_t p = 0; p < n; ++p) {
        if (!ports_[p].paused) continue;
        const NodeId v = topology_.target(DirectedLink::from_index(p));
        const Node& node = topology_.node(v);
        for (std::uint32_t q = 0; q < node.ports.size(); ++q) {
            const std::uint32_t out = egress_of(v, q);
            if (!ports_[out].paused) continue;
            for (std::uint32_t k = ports_[out].queue.head; k != kNone; k = packets_[k].next)
                if (packets_[k].link == p) {
                    waits_on[p].push_back(out);
                    break;
                }
        }
    }
    // Depth-first search for a cycle.
    enum class Mark : std::uint8_t { none, open, done };
    std::vector<Mark> mark(n, Mark::none);
    std::vector<std::uint32_t> stack;
    std::vector<std::uint32_t> cycle;
    const auto dfs = [&](auto&& self, std::uint32_t p) -> bool {
        mark[p] = Mark::open;
        stack.push_back(p);
        for (std::uint32_t q : waits_on[p]) {
            if (mark[q] == Mark::open) {
                cycle.assign(std::find(stack.begin(), stack.end(), q), stack.end());
                return true;
            }
            if (mark[q] == Mark::none && self(self, q)) return true;
        }
        stack.pop_back();
        mark[p] = Mark::done;
        return false;
    };
    for (std::uint32_t p = 0; p < n && cycle.empty(); ++p)
        if (mark[p] == Mark::none && !waits_on[p].empty()) dfs(dfs, p);
    if (cycle.empty()) return {};
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    std::string text = "cycle of paused ports:";
    for (std::uint32_t p : cycle) {
        const DirectedLink d = DirectedLink::from_index(p);
        const NodeId u = topology_.source(d);
        const Node& node = topology_.node(u);
        std::uint32_t port = 0;
        while (port < node.ports.size() && egress_of(u, port) != p) ++port;
        text += fmt::format(" {} port {} (to {}, priority {}) ->", node.name, port, topology_.node(topology_.target(d)).name,
                            spec_.roce.pfc.priority);
    }
    text += fmt::format(" {}", topology_.node(topology_.source(DirectedLink::from_index(cycle.front()))).name);
    return text;
}

}  // namespace fabricsim::fabric
