// Deadlock detection (docs/models/packet.md). A cyclic buffer dependency — every queue of a
// cycle held by its link's flow control (PFC paused, out of credits) waiting on the next
// node, whose queue towards the next link holds packets that came in through the first —
// stops traffic for good while pause frames keep being refreshed
// (Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM'16; Hu et al., "Deadlocks in
// Datacenter Networks", HotNets'16). A watchdog looks every window: when no packet has arrived
// anywhere for that long while packets wait, it looks for the cycle of held ports and stops
// the run with a ModelError (exit code 3) naming each switch, port and priority of it; with no
// cycle it is no deadlock but a stall, and the error says what waits where.
//
// The window is simulation.packet.deadlock_timeout, raised to kWatchMargin times the slowest
// hop a healthy network can take between two arrivals: the largest packet's serialisation on
// the slowest link (or at a paced NIC's lowest congestion-control rate) plus the largest
// propagation delay and forwarding latency. A 20 ms switch, a cable thousands of km long or a
// 100 bps NIC is slow, not deadlocked.
#include "fabric/packet/packet_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/time_limits.hpp"
#include "core/units_format.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

void PacketNetwork::setup_watchdog() {
    if (spec_.deadlock_timeout <= Time::zero()) return;
    const Bytes largest = std::max(spec_.mtu, spec_.segment);
    Time slowest = Time::zero(), delay = Time::zero();
    for (std::uint32_t i = 0; i < ports_.size(); ++i) {
        const Port& p = ports_[i];
        const Link& link = topology_.link(DirectedLink::from_index(i).link);
        const bool fabric = link.type == LinkType::fabric || link.type == LinkType::storage_fabric;
        Bandwidth rate = p.rate;
        if (p.paced && congestion_controlled()) rate = std::min(rate, cc_floor(p.wire));
        slowest = std::max(slowest, transmit_time(fabric ? spec_.mtu : largest, rate));
        delay = std::max(delay, p.delay);
    }
    const Time hop = saturating_add(slowest, delay);
    watch_window_ =
        hop > Time::max() / kWatchMargin ? Time::max() : std::max(spec_.deadlock_timeout, hop * kWatchMargin);
}

void PacketNetwork::arm_watchdog(Simulator& sim) {
    if (watchdog_armed_ || (pfc_ == nullptr && ib_credits_ == nullptr) || lossy_ || watch_window_ == Time::max())
        return;
    const Time at = saturating_add(sim.now(), watch_window_);
    if (at == Time::max()) return;  // past the end of time: it could never report
    watchdog_armed_ = true;
    watchdog_ = sim.at(at, *this, event(0, kWatchdog));
}

void PacketNetwork::on_watchdog(Simulator& sim) {
    watchdog_armed_ = false;
    if (in_flight_ == 0) return;  // idle: the next send re-arms it
    if (stuck_ports_ > 0) {       // a stuck receiver (packet_faults.cpp) holds packets for its set time: not a deadlock
        arm_watchdog(sim);
        return;
    }
    if (sim.now() - last_move_ >= watch_window_) {
        const std::string cycle = blocked_cycle();
        if (!cycle.empty())
            throw ModelError(fmt::format("{} deadlock: no packet has moved for {} while {} wait; {}",
                                         ib_ ? "credit" : "PFC", to_string(sim.now() - last_move_), in_flight_, cycle));
        throw ModelError(fmt::format("stall: no packet has moved for {} while {} wait, and no cycle of {} ports holds "
                                     "them (not a deadlock); waiting: {}",
                                     to_string(sim.now() - last_move_), in_flight_, ib_ ? "credit-blocked" : "paused",
                                     waiting()));
    }
    arm_watchdog(sim);
}

// The queues that hold packets (the first few), each with its count and what holds it.
std::string PacketNetwork::waiting() const {
    constexpr int kShown = 8;
    std::string text;
    int listed = 0, more = 0;
    const auto add = [&](std::string entry) {
        if (listed == kShown) {
            ++more;
            return;
        }
        text += (listed++ == 0 ? "" : "; ") + entry;
    };
    const auto name = [&](std::uint32_t port) {
        const DirectedLink d = DirectedLink::from_index(port);
        return fmt::format("{} -> {}", topology_.node(topology_.source(d)).name,
                           topology_.node(topology_.target(d)).name);
    };
    for (std::uint32_t q = 0; q < queues_.size(); ++q) {
        if (queues_[q].fifo.empty()) continue;
        std::int64_t n = 0;
        for (std::uint32_t k = queues_[q].fifo.head; k != kNone; k = packets_[k].next) ++n;
        const std::uint32_t port = layout_.port[q];
        const LinkFlowControl* fc = fc_of(ports_[port]);
        const char* why = fc == nullptr || !fc->blocked(q) ? "not held" : fc == pfc_.get() ? "paused" : "no credits";
        const int priority = ports_[port].classes == 1 ? data_prio_ : layout_.class_of[q];
        add(fmt::format("{} {} {}: {} packets, {}", name(port), ib_ ? "VL" : "priority", priority, n, why));
    }
    for (std::uint32_t q = 0; q < nic_.qps(); ++q)
        if (nic_.queued(q) > 0)
            add(fmt::format("{} qp {} ({} -> {}): {} packets paced at {}", name(nic_.port(q)), nic_.number(q),
                            topology_.node(nic_.src(q)).name, topology_.node(nic_.dst(q)).name, nic_.queued(q),
                            nic_.controlled(q) ? fmt::format("{}", nic_.cc(q)->rate()) : std::string("line rate")));
    if (listed == 0) return "nothing queued at a port (all on the wire)";
    if (more > 0) text += fmt::format("; and {} more", more);
    return text;
}

// A held queue Q (of the port u -> v) waits for v's queues that hold packets that came in
// through Q's link; when those queues are held in turn, Q depends on them. A cycle of such
// dependencies is a deadlock.
std::string PacketNetwork::blocked_cycle() const {
    const auto n = static_cast<std::uint32_t>(queues_.size());
    const auto held = [&](std::uint32_t q) {
        const LinkFlowControl* fc = fc_of(ports_[layout_.port[q]]);
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
    text += fmt::format(" {}",
                        topology_.node(topology_.source(DirectedLink::from_index(layout_.port[cycle.front()]))).name);
    return text;
}

}  // namespace fabricsim::fabric
