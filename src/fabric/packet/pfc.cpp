// PFC in the packet model (IEEE 802.1Qbb; docs/models/pfc.md). Each RoCE fabric switch
// accounts the bytes every ingress port holds. When a port's bytes pass its XOFF threshold —
// the reserved space plus mmu.alpha x the free shared buffer (HPCC ns-3 model), or the static
// pfc.xoff — the switch sends the upstream port a pause frame of 0xFFFF quanta (512 bit times
// each), refreshes it every half quanta while the port stays above XON = XOFF − xon_delta, and
// sends a zero-quanta frame (resume) when it drains below. Headroom above XOFF absorbs what is
// still on the way; a packet that finds the port past XOFF + headroom, or the switch buffer
// full, is a lossless drop. A pause frame takes its own serialisation and the cable's delay to
// reach the peer, which stops before its next packet (one in service is finished).
//
// PFC watchdog (pfc.watchdog; Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM'16
// §4.3): a port paused without a break for longer than the watchdog time stops honouring
// pauses and drops what it holds and what reaches it (lossless drops, counted) until the
// peer resumes it; a pause storm or deadlock then cannot stall the fabric for good.
#include "fabric/packet/packet_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/packet/pfc_headroom.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

void PacketNetwork::setup_pfc() {
    const auto& roce = spec_.roce;
    if (spec_.technology != scenario::Technology::roce) return;
    if (!roce.lossless)
        throw ModelError("the packet model has no go-back-N retransmission yet: lossy RoCE (cluster.roce.lossless: "
                         "false) cannot run");
    if (!roce.pfc.enabled) return;
    ingress_.resize(ports_.size());
    buffers_.resize(topology_.nodes().size());
    for (std::uint32_t n = 0; n < topology_.nodes().size(); ++n) {
        const Node& node = topology_.nodes()[n];
        if (!is_fabric_switch(node.kind)) continue;
        SwitchBuffer& b = buffers_[n];
        b.pfc = true;
        b.total = node.buffer;
        Bytes reserved = Bytes::zero();
        for (std::uint32_t p = 0; p < node.ports.size(); ++p) {
            const Link& link = topology_.link(node.ports[p].link);
            // The directed link into this switch through port p.
            const DirectedLink in{node.ports[p].link, link.a == NodeId{n}};
            Ingress& ing = ingress_[in.index()];
            ing.headroom = roce.pfc.headroom ? *roce.pfc.headroom
                                             : pfc_headroom(roce_headroom_inputs(link.bandwidth, link.length, spec_.mtu)).total();
            reserved += ing.headroom + roce.mmu.reserved_per_queue;
        }
        if (reserved >= node.buffer)
            throw ModelError(fmt::format("switch {}: its PFC headroom and reserved space ({} B over {} ports) exceed "
                                         "its {} B buffer",
                                         node.name, reserved.count(), node.ports.size(), node.buffer.count()));
        b.shared = node.buffer - reserved;
    }
    for (std::uint32_t i = 0; i < ports_.size(); ++i) {
        const Link& link = topology_.link(DirectedLink::from_index(i).link);
        ports_[i].pause_quanta = transmit_time(Bytes{0xFFFF * 512 / 8}, link.bandwidth);
    }
}

Bytes PacketNetwork::xoff(NodeId at) const {
    const auto& roce = spec_.roce;
    if (roce.pfc.xoff) return *roce.pfc.xoff;
    const SwitchBuffer& b = buffers_[at.value()];
    const Bytes free = b.shared > b.used ? b.shared - b.used : Bytes::zero();
    return xoff_threshold(free, roce.mmu.alpha);
}

bool PacketNetwork::admit(Simulator& sim, std::uint32_t link, NodeId at, Bytes size) {
    SwitchBuffer& b = buffers_[at.value()];
    Ingress& ing = ingress_[link];
    if (b.used + size > b.total || (ing.pausing && ing.bytes + size > ing.limit)) {
        ++lossless_drops_;
        return false;
    }
    ing.bytes += size;
    b.used += size;
    ing.max_bytes = std::max(ing.max_bytes, ing.bytes);
    const Bytes threshold = spec_.roce.mmu.reserved_per_queue + xoff(at);
    if (!ing.pausing && ing.bytes > threshold) {
        ing.pausing = true;
        ing.limit = threshold + ing.headroom;
        send_pause(sim, link, true);
    }
    return true;
}

void PacketNetwork::release(Simulator& sim, std::uint32_t link, NodeId at, Bytes size) {
    SwitchBuffer& b = buffers_[at.value()];
    Ingress& ing = ingress_[link];
    ing.bytes -= size;
    b.used -= size;
    if (!ing.pausing) return;
    const Bytes threshold = spec_.roce.mmu.reserved_per_queue + xoff(at);
    if (ing.bytes <= xon_threshold(threshold, spec_.roce.pfc.xon_delta)) {
        ing.pausing = false;
        send_pause(sim, link, false);
    }
}

// The frame goes back along `link` (from the switch to the port that feeds it).
void PacketNetwork::send_pause(Simulator& sim, std::uint32_t link, bool pause) {
    const Link& l = topology_.link(DirectedLink::from_index(link).link);
    const Time arrival = sim.now() + transmit_time(kPauseFrameOnWire, l.bandwidth) + l.propagation;
    sim.at(arrival, *this, event(link, pause ? kPause : kResume));
    ++pauses_sent_;
    if (pause) {
        ingress_[link].refresh_at = sim.now() + ports_[link].pause_quanta / 2;
        sim.at(ingress_[link].refresh_at, *this, event(link, kRefresh));
    }
}

void PacketNetwork::on_pause(Simulator& sim, std::uint32_t port, bool pause) {
    pump(sim, port);  // what it started before the frame arrived goes on
    Port& p = ports_[port];
    const Time now = sim.now();
    if (pause) {
        ++p.pause_frames;
        if (p.watchdog_dropping) return;  // the watchdog has taken it out of PFC
        if (!p.paused) {
            p.paused = true;
            p.paused_since = now;
            if (spec_.roce.pfc.watchdog) sim.at(now + *spec_.roce.pfc.watchdog, *this, event(port, kPfcWatchdog));
        }
        p.paused_until = now + p.pause_quanta;
        sim.at(p.paused_until, *this, event(port, kExpiry));
        return;
    }
    if (p.watchdog_dropping) {  // the peer has drained: back to lossless
        p.watchdog_dropping = false;
        return;
    }
    if (!p.paused) return;
    p.paused = false;
    p.paused_total += now - p.paused_since;
    p.free_at = std::max(p.free_at, now);  // nothing started while it was paused
    pump(sim, port);
}

void PacketNetwork::on_pfc_watchdog(Simulator& sim, std::uint32_t port) {
    Port& p = ports_[port];
    const Time now = sim.now();
    if (!p.paused || now - p.paused_since < *spec_.roce.pfc.watchdog) return;  // resumed since
    ++watchdog_triggers_;
    p.paused = false;
    p.paused_total += now - p.paused_since;
    p.watchdog_dropping = true;
    drop_queued(sim, port);
}

// Drops every packet waiting at the port (the watchdog's action).
void PacketNetwork::drop_queued(Simulator& sim, std::uint32_t port) {
    const NodeId at = topology_.source(DirectedLink::from_index(port));
    const bool pfc_switch = !buffers_.empty() && buffers_[at.value()].pfc;
    while (!ports_[port].queue.empty()) {
        const std::uint32_t k = pop(ports_[port].queue);
        const Bytes size{packets_[k].bytes};
        ports_[port].queued -= size;
        if (pfc_switch) release(sim, packets_[k].link, at, size);
        if (ports_[packets_[k].link].credited) return_credit(sim, packets_[k].link, size);
        ++lossless_drops_;
        dropped_ += size;
        free_packets_.push_back(k);
        --in_flight_;
    }
}

void PacketNetwork::on_expiry(Simulator& sim, std::uint32_t port) {
    Port& p = ports_[port];
    if (!p.paused || p.paused_until != sim.now()) return;  // refreshed or resumed since
    p.paused = false;
    p.paused_total += sim.now() - p.paused_since;
    p.free_at = std::max(p.free_at, sim.now());
    pump(sim, port);
}

}  // namespace fabricsim::fabric
