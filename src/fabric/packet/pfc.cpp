#include "fabric/packet/pfc.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/time_limits.hpp"
#include "fabric/packet/pfc_headroom.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

Pfc::Pfc(const Topology& topology, const QueueLayout& layout, const scenario::RoceSpec& roce, Bytes mtu,
         FlowControlHost& host)
    : topology_(topology),
      layout_(layout),
      roce_(roce),
      host_(host),
      pfc_(roce.lossless && roce.pfc.enabled),
      lossless_(0),
      pause_(layout.port.size()),
      ingress_(layout.port.size()),
      buffers_(topology.nodes().size()) {
    if (pfc_)
        for (int p : roce.pfc.priorities) lossless_ |= static_cast<std::uint8_t>(1u << p);
    for (std::uint32_t n = 0; n < topology.nodes().size(); ++n) {
        const Node& node = topology.nodes()[n];
        if (!is_fabric_switch(node.kind)) continue;
        Buffer& b = buffers_[n];
        b.total = node.buffer;
        Bytes reserved = Bytes::zero();
        for (std::uint32_t p = 0; p < node.ports.size(); ++p) {
            const Link& link = topology.link(node.ports[p].link);
            // The directed link into this switch through port p, and its queues.
            const DirectedLink in{node.ports[p].link, link.a == NodeId{n}};
            const Bytes headroom = roce.pfc.headroom ? *roce.pfc.headroom
                                                     : pfc_headroom(roce_headroom_inputs(link.bandwidth, link.length, mtu)).total();
            // Reserved space for the priority groups a RoCE switch is set up with: the lossless
            // data priority and the control priority (the others share the buffer only).
            for (std::uint32_t q = layout.first[in.index()]; q < layout.first[in.index() + 1]; ++q) {
                ingress_[q].at = NodeId{n};
                ingress_[q].alpha = scenario::mmu_alpha(roce.mmu, link.bandwidth);  // by port speed class
                const int prio = layout.class_of[q];
                if (layout.queues(in.index()) == 1 || ((lossless_ >> prio) & 1u) != 0 || prio == roce.control_priority)
                    reserved += roce.mmu.reserved_per_queue;
                if (!lossless(q)) continue;
                ingress_[q].headroom = headroom;
                reserved += headroom;
            }
        }
        if (reserved >= node.buffer)
            throw ModelError(fmt::format("switch {}: its PFC headroom and reserved space ({} B over {} ports) exceed "
                                         "its {} B buffer",
                                         node.name, reserved.count(), node.ports.size(), node.buffer.count()));
        b.shared = node.buffer - reserved;
    }
    // A NIC's receive buffer (docs/models/pfc.md, "The NIC's receive buffer"): the port's one
    // lossless buffer, with the link's headroom at its top, as the mlx5 driver carves it.
    for (std::uint32_t n = 0; n < topology.nodes().size(); ++n) {
        const Node& node = topology.nodes()[n];
        if (!receives_from_fabric(node)) continue;
        buffers_[n].nic = true;
        buffers_[n].total = node.buffer;
        for (const Port& port : node.ports) {
            const Link& link = topology.link(port.link);
            if (link.type != LinkType::fabric && link.type != LinkType::storage_fabric) continue;
            const DirectedLink in{port.link, link.a == NodeId{n}};
            const Bytes headroom = roce.pfc.headroom ? *roce.pfc.headroom
                                                     : pfc_headroom(roce_headroom_inputs(link.bandwidth, link.length, mtu)).total();
            for (std::uint32_t q = layout.first[in.index()]; q < layout.first[in.index() + 1]; ++q) {
                ingress_[q].at = NodeId{n};
                if (lossless(q)) ingress_[q].headroom = headroom;
            }
            if (pfc_ && headroom + nic_xon_delta(mtu) >= node.buffer)
                throw ModelError(fmt::format("NIC {}: its receive buffer ({} B) holds no more than the PFC headroom of its "
                                             "link ({} B) and an MTU frame",
                                             node.name, node.buffer.count(), headroom.count()));
        }
    }
    nic_xon_delta_ = nic_xon_delta(mtu);
    quanta_.resize(layout.first.size() - 1);
    // Beyond the end of simulated time (a link of a few bit/s) a pause simply never expires.
    for (std::uint32_t i = 0; i < quanta_.size(); ++i) {
        const Bandwidth rate = topology.link(DirectedLink::from_index(i).link).bandwidth;
        const Bytes pause{0xFFFF * 512 / 8};
        quanta_[i] = transmit_time(Bytes{1}, rate) > Time::max() / pause.count() ? Time::max() : transmit_time(pause, rate);
    }
}

bool Pfc::receives_from_fabric(const Node& node) {
    return (node.kind == NodeKind::nic || node.kind == NodeKind::storage_nic) && node.buffer > Bytes::zero();
}

bool Pfc::applies_to(DirectedLink link) const {
    const Node& to = topology_.node(topology_.target(link));
    return is_fabric_switch(to.kind) ||
           (receives_from_fabric(to) && is_fabric_switch(topology_.node(topology_.source(link)).kind));
}

Bytes Pfc::nic_xon_delta(Bytes mtu) { return roce_frame_on_wire(mtu); }

// XOFF of queue q's ingress: the switch's reserved space plus its dynamic (or static) XOFF;
// a NIC's buffer less the link's headroom (mlx5 port_buffer.c: xoff = size - headroom).
Bytes Pfc::threshold(std::uint32_t q) const {
    const Ingress& ing = ingress_[q];
    const Buffer& b = buffers_[ing.at.value()];
    if (b.nic) return b.total > ing.headroom ? b.total - ing.headroom : Bytes::zero();
    return roce_.mmu.reserved_per_queue + xoff(ing.at, ing.alpha);
}

// XON: a switch resumes xon_delta below XOFF; a NIC one MTU frame below (mlx5: xon = xoff - mtu).
Bytes Pfc::xon(std::uint32_t q, Bytes threshold) const {
    return xon_threshold(threshold, buffers_[ingress_[q].at.value()].nic ? nic_xon_delta_ : roce_.pfc.xon_delta);
}

Bytes Pfc::xoff(NodeId at, double alpha) const {
    if (roce_.pfc.xoff) return *roce_.pfc.xoff;
    const Buffer& b = buffers_[at.value()];
    const Bytes free = b.shared > b.used ? b.shared - b.used : Bytes::zero();
    return xoff_threshold(free, alpha);
}

bool Pfc::on_ingress(Simulator& sim, std::uint32_t q, Bytes size) {
    Ingress& ing = ingress_[q];
    const NodeId at = ing.at;
    Buffer& b = buffers_[at.value()];
    const Bytes threshold = this->threshold(q);
    if (!lossless(q)) {
        // Lossy: tail drop at the same dynamic threshold, or when the buffer is full.
        if (b.used + size > b.total || ing.bytes + size > threshold) {
            ++drops_;
            return false;
        }
    } else if (b.used + size > b.total || (ing.pausing && ing.bytes + size > ing.limit)) {
        ++lossless_drops_;
        return false;
    }
    ing.bytes += size;
    b.used += size;
    ing.max_bytes = std::max(ing.max_bytes, ing.bytes);
    if (lossless(q) && !ing.pausing && ing.bytes > threshold) {
        ing.pausing = true;
        ing.limit = threshold + ing.headroom;
        send_pause(sim, q, true);
    }
    return true;
}

void Pfc::on_drained(Simulator& sim, std::uint32_t q, Bytes size) {
    Ingress& ing = ingress_[q];
    Buffer& b = buffers_[ing.at.value()];
    ing.bytes -= size;
    b.used -= size;
    if (!ing.pausing) return;
    if (ing.bytes <= xon(q, threshold(q))) {
        ing.pausing = false;
        send_pause(sim, q, false);
    }
}

// The frame goes back along q's link (from the switch to the port that feeds it).
void Pfc::send_pause(Simulator& sim, std::uint32_t q, bool pause) {
    const Link& l = topology_.link(DirectedLink::from_index(layout_.port[q]).link);
    const Time arrival = checked_add(sim.now(), saturating_add(transmit_time(kPauseFrameOnWire, l.bandwidth), l.propagation),
                                     "PFC: a pause frame's arrival");
    sim.at(arrival, *this, (std::uint64_t{q} << 3) | (pause ? kPause : kResume));
    ++pauses_sent_;
    if (pause) {
        ingress_[q].refresh_at = saturating_add(sim.now(), quanta_[layout_.port[q]] / 2);
        if (ingress_[q].refresh_at != Time::max())  // else the pause outlasts the run
            sim.at(ingress_[q].refresh_at, *this, (std::uint64_t{q} << 3) | kRefresh);
    }
}

void Pfc::on_event(Simulator& sim, std::uint64_t arg) {
    const auto q = static_cast<std::uint32_t>(arg >> 3);
    switch (static_cast<Kind>(arg & 7)) {
        case kPause: on_pause(sim, q, true); return;
        case kResume: on_pause(sim, q, false); return;
        case kRefresh:
            if (ingress_[q].pausing && ingress_[q].refresh_at == sim.now()) send_pause(sim, q, true);
            return;
        case kExpiry:
            if (pause_[q].paused && pause_[q].until == sim.now()) resume(sim, q);  // else refreshed or resumed since
            return;
        case kWatchdog: {
            Pause& p = pause_[q];
            if (!p.paused || sim.now() - p.since < *roce_.pfc.watchdog) return;  // resumed since
            ++watchdog_triggers_;
            p.paused = false;
            p.resumed = sim.now();
            p.total += sim.now() - p.since;
            p.watchdog_dropping = true;
            host_.drop_queue(sim, q);
            // The port no longer honours pauses: it sends from now on. Without this wake a NIC
            // uplink's QP queues (DCQCN pacing keeps them out of the port's queue, so the drop
            // leaves them) waited for some later event, which then back-dated their sends to
            // before itself: "event scheduled in the past".
            host_.wake(sim, q);
            return;
        }
    }
    throw InternalError("PFC: unknown event");
}

void Pfc::on_pause(Simulator& sim, std::uint32_t q, bool pause) {
    host_.catch_up(sim, q);  // what the port started before the frame arrived goes on
    Pause& p = pause_[q];
    const Time now = sim.now();
    if (pause) {
        ++p.frames;
        if (p.watchdog_dropping) return;  // the watchdog has taken it out of PFC
        if (!p.paused) {
            p.paused = true;
            p.since = now;
            if (roce_.pfc.watchdog && saturating_add(now, *roce_.pfc.watchdog) != Time::max())
                sim.at(now + *roce_.pfc.watchdog, *this, (std::uint64_t{q} << 3) | kWatchdog);
        }
        p.until = saturating_add(now, quanta_[layout_.port[q]]);
        if (p.until != Time::max()) sim.at(p.until, *this, (std::uint64_t{q} << 3) | kExpiry);
        return;
    }
    if (p.watchdog_dropping) {  // the peer has drained: back to lossless
        p.watchdog_dropping = false;
        return;
    }
    if (p.paused) resume(sim, q);
}

void Pfc::resume(Simulator& sim, std::uint32_t q) {
    Pause& p = pause_[q];
    p.paused = false;
    p.resumed = sim.now();
    p.total += sim.now() - p.since;
    host_.wake(sim, q);
}

void Pfc::add_counters(FabricCounters& c) const {
    c.pfc_pauses_sent += pauses_sent_;
    c.lossless_drops += lossless_drops_;
    c.drops += lossless_drops_ + drops_;
    c.pfc_watchdog_triggers += watchdog_triggers_;
    for (const Pause& p : pause_) c.paused_time += p.total;
}

}  // namespace fabricsim::fabric
