// Faults in the packet model (docs/models/faults.md): links that go down and come back, degraded
// links, receivers that stop draining. The FaultInjector decides when; this file is what a
// fault does to ports, queues and packets.
//
//   link down       both ports stop sending; what waits in their queues is lost at once, and a
//                   packet on the wire (sent before the failure, arriving after it) is lost on
//                   arrival. A packet routed into a dead port is lost there (a switch drops
//                   what it cannot send); a NIC holds its own data until its link is back.
//   bit errors      a packet of b bits on the wire survives with probability (1 - BER)^b, on
//                   any class (the receiver's CRC check drops it; PFC cannot help).
//   stuck receiver  the switch port into it holds its packets (its peer pauses it for good);
//                   with the PFC watchdog (roce.pfc.watchdog) the port is taken out of PFC after
//                   the watchdog time and drops what it holds and what comes for it (Guo et al.,
//                   "RDMA over Commodity Ethernet at Scale", SIGCOMM 2016, §4.3).
// RC (rc_transport.cpp) recovers every such loss: go-back-N on the receiver's NAK, or the
// retransmission timeout for a lost tail.
#include "fabric/packet/packet_network.hpp"

#include "core/simulator.hpp"

#include <cmath>

namespace fabricsim::fabric {

void PacketNetwork::init_faults() {
    if (faults_) return;
    faults_ = true;
    down_at_.assign(ports_.size(), Time::ps(-1));
    ber_.assign(ports_.size(), 0.0);
    fault_losses_.assign(topology_.links().size(), 0);
}

void PacketNetwork::set_link_up(Simulator& sim, LinkId link, bool up) {
    init_faults();
    for (bool reverse : {false, true}) {
        const std::uint32_t port = DirectedLink{link, reverse}.index();
        Port& p = ports_[port];
        if (!up) {
            if (p.fault == kPortDown) continue;
            p.fault = kPortDown;
            down_at_[port] = sim.now();
            drop_port(sim, port);
        } else if (p.fault == kPortDown) {
            p.fault = kPortUp;
            p.free_at = std::max(p.free_at, sim.now());
            pump(sim, port);
        }
    }
}

void PacketNetwork::degrade_link(LinkId link, Bandwidth line_rate, double ber) {
    init_faults();
    const Link& l = topology_.link(link);
    for (bool reverse : {false, true}) {
        const std::uint32_t port = DirectedLink{link, reverse}.index();
        ports_[port].rate =
            Bandwidth::bps(static_cast<std::int64_t>(static_cast<double>(line_rate.bits_per_second()) * l.efficiency));
        if (ports_[port].paced) ports_[port].wire = line_rate;
        ber_[port] = ber;
    }
}

void PacketNetwork::set_stuck(Simulator& sim, DirectedLink into, bool stuck) {
    init_faults();
    const std::uint32_t port = into.index();
    Port& p = ports_[port];
    if (stuck) {
        if (p.fault != kPortUp) return;
        p.fault = kPortStuck;
        ++stuck_ports_;
        if (spec_.technology == scenario::Technology::roce && spec_.roce.pfc.watchdog)
            sim.post(sim.now() + *spec_.roce.pfc.watchdog, *this, event(port, kStuckWatchdog));
        return;
    }
    if (p.fault != kPortStuck && p.fault != kPortStuckDropping) return;
    --stuck_ports_;
    p.fault = kPortUp;
    p.free_at = std::max(p.free_at, sim.now());
    pump(sim, port);
}

void PacketNetwork::on_stuck_watchdog(Simulator& sim, std::uint32_t port) {
    if (ports_[port].fault != kPortStuck) return;  // drains again
    ports_[port].fault = kPortStuckDropping;
    ++stuck_triggers_;
    drop_port(sim, port);
}

// Everything waiting in the port's queues is lost (a NIC's per-QP queues keep theirs).
void PacketNetwork::drop_port(Simulator& sim, std::uint32_t port) {
    for (std::uint32_t q = ports_[port].first; q < ports_[port].first + ports_[port].classes; ++q)
        while (!queues_[q].fifo.empty()) {
            const std::uint32_t k = dequeue(port, q);
            left_queue(q, port, packets_[k], sim.now());
            if (packets_[k].link != port) drained(sim, packets_[k].link, packets_[k]);
            lose_at_port(sim, k, port);
        }
}

void PacketNetwork::lose_at_port(Simulator& sim, std::uint32_t packet, std::uint32_t port) {
    if (ports_[port].fault == kPortStuckDropping)
        ++watchdog_drops_;
    else
        ++fault_drops_;
    ++fault_losses_[DirectedLink::from_index(port).link.value()];
    lose(sim, packet);
}

bool PacketNetwork::lost_on_wire(Simulator& sim, std::uint32_t packet, std::uint32_t from) {
    const Port& p = ports_[from];
    const Packet& pk = packets_[packet];
    const Time sent = sim.now() - p.delay - transmit_time(Bytes{pk.bytes}, p.rate);
    bool lost = p.fault == kPortDown || down_at_[from] > sent;
    if (!lost && ber_[from] > 0.0) {
        if (fault_rng_ == nullptr) fault_rng_ = &sim.rng("packet/faults");
        const double bits = 8.0 * pk.bytes;
        lost = fault_rng_->uniform01() >= std::exp(bits * std::log1p(-ber_[from]));
    }
    if (!lost) return false;
    // Credits the packet held at the receiver go back: nothing will drain it there.
    if (LinkFlowControl* fc = fc_of(p); fc != nullptr && fc != pfc_.get())
        fc->on_drained(sim, queue_of(from, pk.prio), Bytes{pk.bytes});
    ++fault_drops_;
    ++fault_losses_[DirectedLink::from_index(from).link.value()];
    lose(sim, packet);
    return true;
}

}  // namespace fabricsim::fabric
