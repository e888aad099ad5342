#include "fabric/packet/packet_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

PacketNetwork::PacketNetwork(const Topology& topology, const Routing& routing, PacketModelSpec spec)
    : topology_(topology),
      owned_router_(std::make_unique<RoutingRouter>(routing)),
      routing_(*owned_router_),
      spec_(spec),
      ports_(topology.directed_link_count()) {
    init();
}

PacketNetwork::PacketNetwork(const Topology& topology, const Router& router, PacketModelSpec spec)
    : topology_(topology), routing_(router), spec_(spec), ports_(topology.directed_link_count()) {
    init();
}

void PacketNetwork::init() {
    const Topology& topology = topology_;
    if (spec_.mtu <= Bytes::zero() || spec_.segment <= Bytes::zero() || spec_.mtu.count() > UINT32_MAX ||
        spec_.segment.count() > UINT32_MAX)
        throw ModelError(fmt::format("packet model: MTU ({} B) and segment ({} B) must be positive and below 4 GiB",
                                     spec_.mtu.count(), spec_.segment.count()));
    for (std::uint32_t l = 0; l < topology.links().size(); ++l) {
        const Link& link = topology.links()[l];
        for (bool reverse : {false, true}) {
            const DirectedLink d{LinkId{l}, reverse};
            Port& p = ports_[d.index()];
            p.rate = link.payload_bandwidth();
            if (p.rate <= Bandwidth::zero())
                throw ModelError(fmt::format("packet model: link {} -> {} has no bandwidth",
                                             topology.node(topology.source(d)).name,
                                             topology.node(topology.target(d)).name));
            p.delay = link.propagation + topology.node(topology.target(d)).forwarding_latency;
            p.switch_egress = is_fabric_switch(topology.node(topology.source(d)).kind);
        }
    }
    port_base_.reserve(topology.nodes().size() + 1);
    for (const Node& n : topology.nodes()) {
        port_base_.push_back(static_cast<std::uint32_t>(egress_.size()));
        for (std::uint32_t p = 0; p < n.ports.size(); ++p)
            egress_.push_back(topology.egress(NodeId{static_cast<std::uint32_t>(port_base_.size() - 1)}, p).index());
    }
    setup_pfc();
    setup_roce();
    setup_credits();
}

NodeId PacketNetwork::endpoint(RankId r) const {
    return topology_.endpoint_node(r);  // ranks, then storage nodes, then client hosts
}

std::uint32_t PacketNetwork::new_packet() {
    ++in_flight_;
    if (!free_packets_.empty()) {
        const std::uint32_t i = free_packets_.back();
        free_packets_.pop_back();
        return i;
    }
    packets_.emplace_back();
    return static_cast<std::uint32_t>(packets_.size() - 1);
}

std::uint32_t PacketNetwork::new_message() {
    if (!free_messages_.empty()) {
        const std::uint32_t i = free_messages_.back();
        free_messages_.pop_back();
        return i;
    }
    messages_.emplace_back();
    return static_cast<std::uint32_t>(messages_.size() - 1);
}

void PacketNetwork::send(Simulator& sim, const Message& message, DeliveryListener& listener) {
    const NodeId src = endpoint(message.src);
    const NodeId dst = endpoint(message.dst);
    if (src == dst) throw InternalError(fmt::format("packet model: message {} from a node to itself", message.id.value()));
    start_message(sim, message, listener, src, dst, false);
}

void PacketNetwork::start_message(Simulator& sim, const Message& message, DeliveryListener& listener, NodeId src,
                                  NodeId dst, bool direct) {
    const std::uint32_t slot = new_message();
    MessageState& m = messages_[slot];
    const std::uint32_t generation = m.generation + 1;
    m = MessageState{};
    m.generation = generation;
    m.id = message.id;
    m.listener = &listener;
    m.flow = FlowKey{src, dst, message.flow_hint};
    m.size = message.size;
    const ServerId a = topology_.node(src).server, b = topology_.node(dst).server;
    const bool inside = direct || (a.valid() && a == b);
    m.unit = static_cast<std::uint32_t>((inside ? spec_.segment : spec_.mtu).count());
    m.packets = static_cast<std::uint32_t>(std::max<std::int64_t>(1, (m.size.count() + m.unit - 1) / m.unit));
    m.start = sim.now();
    if (!inside && spec_.qps_per_connection > 1) m.qps = static_cast<std::uint32_t>(spec_.qps_per_connection);
    // At the source a message may leave by any of its equal-cost ports (a GPU stripes over its
    // NVLink links): each port pulls the next packet when it falls free.
    // `direct`: one hop, over every link from src to its neighbour dst (NVLS to and from an
    // NVSwitch, where the routing tables have no entry).
    direct_ports_.clear();
    if (direct) {
        const Node& node = topology_.node(src);
        for (std::uint32_t port = 0; port < node.ports.size(); ++port)
            if (node.ports[port].peer == dst) direct_ports_.push_back(port);
    }
    const auto candidates = direct ? std::span<const std::uint32_t>(direct_ports_) : routing_.candidates(src, m.flow);
    if (candidates.empty())
        throw ModelError(fmt::format("packet model: no route from {} to {}", topology_.node(src).name,
                                     topology_.node(dst).name));
    for (std::uint32_t port : candidates) {
        const std::uint32_t idx = egress_of(src, port);
        ports_[idx].injectors.push_back({slot, generation});
        pump(sim, idx);
    }
    arm_watchdog(sim);
}

std::uint32_t PacketNetwork::next_injected(std::uint32_t port, Time& ready) {
    Port& p = ports_[port];
    while (!p.injectors.empty()) {
        if (p.next_injector >= p.injectors.size()) p.next_injector = 0;
        const Injector inj = p.injectors[p.next_injector];
        MessageState& m = messages_[inj.message];
        if (m.generation != inj.generation || m.injected == m.packets) {
            // Done (or a finished message's slot reused): drop it from this port's list.
            p.injectors.erase(p.injectors.begin() + p.next_injector);
            continue;
        }
        ++p.next_injector;  // round robin among the messages leaving here
        const std::uint32_t k = new_packet();
        const std::uint32_t seq = m.injected++;
        const std::int64_t left = m.size.count() - static_cast<std::int64_t>(seq) * m.unit;
        injected_ += Bytes{std::clamp<std::int64_t>(left, 0, m.unit)};
        packets_[k] = Packet{inj.message, seq, static_cast<std::uint32_t>(std::clamp<std::int64_t>(left, 0, m.unit)),
                             port, m.start, kNone, false};
        ready = m.start;
        return k;
    }
    return kNone;
}

void PacketNetwork::push(Fifo& fifo, std::uint32_t packet) {
    packets_[packet].next = kNone;
    if (fifo.tail == kNone)
        fifo.head = packet;
    else
        packets_[fifo.tail].next = packet;
    fifo.tail = packet;
}

std::uint32_t PacketNetwork::pop(Fifo& fifo) {
    const std::uint32_t k = fifo.head;
    fifo.head = packets_[k].next;
    if (fifo.head == kNone) fifo.tail = kNone;
    return k;
}

void PacketNetwork::enqueue(std::uint32_t port, std::uint32_t packet) {
    Port& p = ports_[port];
    push(p.queue, packet);
    p.queued += Bytes{packets_[packet].bytes};
    p.max_queued = std::max(p.max_queued, p.queued);
}

void PacketNetwork::pump(Simulator& sim, std::uint32_t port) {
    if (ports_[port].paced) {
        pump_paced(sim, port);
        return;
    }
    const Time now = sim.now();
    while (ports_[port].free_at <= now) {
        Port& p = ports_[port];
        std::uint32_t k = p.queue.head;
        Time ready;
        // Gate: a PFC pause holds every packet that would start after it arrived.
        if (p.paused && std::max(p.free_at, k != kNone ? packets_[k].ready : now) >= p.paused_since) return;
        // Gate: credits. An injected packet is made first and waits in the FIFO if it must.
        if (p.credited && k != kNone && !has_credit(port, Bytes{packets_[k].bytes}, now)) return;
        if (k != kNone) {
            pop(p.queue);
            p.queued -= Bytes{packets_[k].bytes};
            ready = packets_[k].ready;
        } else {
            k = next_injected(port, ready);
            if (k == kNone) return;
            if (p.credited && !has_credit(port, Bytes{packets_[k].bytes}, now)) {
                packets_[k].ready = ready;
                enqueue(port, k);
                return;
            }
        }
        // Gate: credits and congestion-control pacing will hold the head here.
        commit(sim, port, k, std::max(ports_[port].free_at, ready));
    }
}

void PacketNetwork::commit(Simulator& sim, std::uint32_t port, std::uint32_t packet, Time start) {
    Port& p = ports_[port];
    Packet& k = packets_[packet];
    if (p.switch_egress) {  // the packet leaves a fabric switch: PFC accounting, ECN marking
        if (!ingress_.empty()) release(sim, k.link, topology_.source(DirectedLink::from_index(port)), Bytes{k.bytes});
        if (!markers_.empty()) mark_ecn(sim, port, k);
    }
    if (p.credited) p.credits -= Bytes{k.bytes};
    if (k.link != port && ports_[k.link].credited) return_credit(sim, k.link, Bytes{k.bytes});  // it left this node
    const Time tx = transmit_time(Bytes{k.bytes}, p.rate);
    p.free_at = start + tx;
    p.busy_time += tx;
    p.bytes_sent += Bytes{k.bytes};
    k.link = port;
    ++hops_;
    sim.at(start + tx + p.delay, *this, event(packet, kArrival));
}

void PacketNetwork::on_event(Simulator& sim, std::uint64_t arg) {
    const auto index = static_cast<std::uint32_t>(arg >> 4);
    switch (static_cast<EventKind>(arg & 15)) {
        case kArrival: arrive(sim, index); return;
        case kPause: on_pause(sim, index, true); return;
        case kResume: on_pause(sim, index, false); return;
        case kRefresh:
            if (ingress_[index].pausing && ingress_[index].refresh_at == sim.now()) send_pause(sim, index, true);
            return;
        case kExpiry: on_expiry(sim, index); return;
        case kWake:
            if (ports_[index].wake_at == sim.now()) {
                ports_[index].wake_at = Time::max();
                pump_paced(sim, index);
            }
            return;
        case kCcTimer:
            if (qps_[index].timer_at == sim.now()) {
                qps_[index].timer_at = Time::max();
                cc_call(sim, index, kCcTimer);
            }
            return;
        case kCnp: cc_call(sim, index, kCnp); return;
        case kWatchdog: on_watchdog(sim); return;
        case kPfcWatchdog: on_pfc_watchdog(sim, index); return;
        case kCredit: on_credit(sim, static_cast<std::uint32_t>((arg >> 4) & 0x0FFF'FFFF), Bytes{static_cast<std::int64_t>(arg >> 32)}); return;
    }
    throw InternalError("packet model: unknown event");
}

void PacketNetwork::arrive(Simulator& sim, std::uint32_t packet) {
    last_move_ = sim.now();
    const std::uint32_t from = packets_[packet].link;
    pump(sim, from);  // the port it left has been free since it finished sending it
    const NodeId at = topology_.target(DirectedLink::from_index(from));
    const std::uint32_t slot = packets_[packet].message;
    MessageState& m = messages_[slot];
    // The receiving NIC: a packet that crossed the fabric marked turns into a CNP.
    if (packets_[packet].marked && topology_.node(at).kind == NodeKind::nic) {
        packets_[packet].marked = false;
        on_marked_arrival(sim, m, packets_[packet].seq);
    }
    if (ports_[from].credited && (at == m.flow.dst)) return_credit(sim, from, Bytes{packets_[packet].bytes});
    if (at == m.flow.dst) {
        delivered_ += Bytes{packets_[packet].bytes};
        free_packets_.push_back(packet);
        if (--in_flight_ == 0 && watchdog_armed_) {  // idle: the watchdog must not keep the clock going
            sim.cancel(watchdog_);
            watchdog_armed_ = false;
        }
        if (++m.arrived < m.packets) return;
        const MessageId id = m.id;
        DeliveryListener* listener = m.listener;
        free_messages_.push_back(slot);
        listener->on_delivered(sim, id);  // may send: slots are free to reuse
        return;
    }
    if (!ingress_.empty() && buffers_[at.value()].pfc && !admit(sim, from, at, Bytes{packets_[packet].bytes})) {
        dropped_ += Bytes{packets_[packet].bytes};
        free_packets_.push_back(packet);  // a lossless drop: the message will not complete
        --in_flight_;
        return;
    }
    const std::uint32_t idx = egress_port(sim, at, flow_of(m, packets_[packet].seq), packets_[packet].seq);
    packets_[packet].ready = sim.now();
    if (ports_[idx].paced) {
        // A NIC reads a QP's data from host or GPU memory when it schedules the QP, so its QP
        // queues hold no PCIe credits: a rate-limited QP does not block the others' data.
        if (ports_[from].credited) return_credit(sim, from, Bytes{packets_[packet].bytes});
        packets_[packet].link = idx;
        enqueue_qp(sim, qp_of(slot, idx, packets_[packet].seq), packet);
        return;
    }
    enqueue(idx, packet);
    if (ports_[idx].watchdog_dropping) {
        drop_queued(sim, idx);
        return;
    }
    pump(sim, idx);
}

std::uint32_t PacketNetwork::egress_port(const Simulator& sim, NodeId at, const FlowKey& flow, std::uint32_t seq) const {
    if (is_fabric_switch(topology_.node(at).kind))
        return egress_of(at, routing_.next_port(at, flow, seq));
    // Inside a server a segment takes the equal-cost link that can start it first, as
    // credit-based NVLink and PCIe never queue on a busy link while a parallel one is free;
    // ties rotate with the sequence number.
    const auto candidates = routing_.candidates(at, flow);
    const std::size_t k = candidates.size();
    if (k == 0)
        throw ModelError(fmt::format("packet model: no route from {} to {}", topology_.node(at).name,
                                     topology_.node(flow.dst).name));
    std::uint32_t best = 0;
    Time best_start = Time::max();
    for (std::size_t i = 0; i < k; ++i) {
        const std::uint32_t idx = egress_of(at, candidates[(seq + i) % k]);
        const Port& p = ports_[idx];
        const Time start = std::max(p.free_at, sim.now()) + transmit_time(p.queued, p.rate);
        if (start < best_start) {
            best_start = start;
            best = idx;
        }
    }
    return best;
}

Time PacketNetwork::unloaded_time(const Message& message) const {
    const NodeId src = endpoint(message.src), dst = endpoint(message.dst);
    const FlowKey flow{src, dst, message.flow_hint};
    const ServerId a = topology_.node(src).server, b = topology_.node(dst).server;
    const std::int64_t unit = (a.valid() && a == b ? spec_.segment : spec_.mtu).count();
    const std::int64_t packets = std::max<std::int64_t>(1, (message.size.count() + unit - 1) / unit);
    // Striped over k source ports, the message is k parallel trains of packets.
    const auto k = static_cast<std::int64_t>(std::max<std::size_t>(1, routing_.candidates(src, flow).size()));
    const std::int64_t train = (packets + k - 1) / k;
    const Bytes last{std::max<std::int64_t>(0, message.size.count() - (packets - 1) * unit)};
    // Store and forward of `train` packets: packet i leaves hop h at A_h + i·max_{j≤h} t_j
    // for equal packets (A_h: the first packet's departure); the last, smaller, packet then
    // follows hop by hop.
    Time a_h = Time::zero(), slowest = Time::zero(), last_done = Time::zero(), delay = Time::zero();
    bool first = true;
    for (const DirectedLink d : routing_.path(flow)) {
        const Port& p = ports_[d.index()];
        const Time t = transmit_time(Bytes{unit}, p.rate);
        const Time t_last = transmit_time(last, p.rate);
        a_h = (first ? Time::zero() : a_h + delay) + t;
        slowest = std::max(slowest, t);
        const Time before_last = a_h + slowest * (train - 2);  // departure of the train's second-to-last
        last_done = train == 1 ? (first ? Time::zero() : last_done + delay) + t_last
                               : std::max(first ? Time::zero() : last_done + delay, before_last) + t_last;
        delay = p.delay;
        first = false;
    }
    return last_done + delay;
}

void PacketNetwork::check_invariants(Time now) const {
    if (lossless_drops_ > 0)
        throw ModelError(fmt::format("invariant broken: {} packets ({} B) dropped on the lossless class (PFC headroom "
                                     "or switch buffer too small)",
                                     lossless_drops_, dropped_.count()));
    for (std::uint32_t i = 0; i < ports_.size(); ++i)
        if (ports_[i].busy_time > std::max(now, ports_[i].free_at)) {
            const DirectedLink d = DirectedLink::from_index(i);
            throw ModelError(fmt::format("invariant broken: link {} -> {} was busy {} in {} of simulated time",
                                         topology_.node(topology_.source(d)).name, topology_.node(topology_.target(d)).name,
                                         ports_[i].busy_time.picoseconds(), now.picoseconds()));
        }
    Bytes queued = Bytes::zero();
    for (std::uint32_t i = 0; i < packets_.size(); ++i) queued += Bytes{packets_[i].bytes};
    for (std::uint32_t i : free_packets_) queued -= Bytes{packets_[i].bytes};
    if (injected_ != delivered_ + dropped_ + queued)
        throw ModelError(fmt::format("invariant broken: {} B sent but {} B delivered, {} B dropped and {} B in flight",
                                     injected_.count(), delivered_.count(), dropped_.count(), queued.count()));
}

std::vector<PortReport> PacketNetwork::port_reports() const {
    std::vector<PortReport> out;
    for (std::uint32_t i = 0; i < ports_.size(); ++i) {
        const Port& p = ports_[i];
        if (p.bytes_sent == Bytes::zero() && p.pause_frames == 0) continue;
        const DirectedLink d = DirectedLink::from_index(i);
        out.push_back(PortReport{topology_.node(topology_.source(d)).name, topology_.node(topology_.target(d)).name,
                                 spec_.roce.pfc.priority, p.bytes_sent, p.busy_time, p.max_queued, p.pause_frames,
                                 p.paused_total, p.marks});
    }
    return out;
}

std::vector<QpRateSeries> PacketNetwork::qp_rates() const {
    std::vector<QpRateSeries> out;
    for (const Qp& q : qps_) {
        if (q.rates.empty()) continue;
        out.push_back(QpRateSeries{fmt::format("{} -> {} qp {}", topology_.node(q.src).name, topology_.node(q.dst).name,
                                               q.number),
                                   q.rates});
    }
    return out;
}

FabricCounters PacketNetwork::counters() const {
    FabricCounters c;
    for (const Port& p : ports_) c.max_queue = std::max(c.max_queue, p.max_queued);
    c.packet_hops = hops_;
    c.pfc_pauses_sent = pauses_sent_;
    c.ecn_marks = ecn_marks_;
    c.cnps = cnps_;
    c.lossless_drops = lossless_drops_;
    c.pfc_watchdog_triggers = watchdog_triggers_;
    c.drops = lossless_drops_;
    for (const Port& p : ports_) c.paused_time += p.paused_total;
    for (const Port& p : ports_) c.credit_stall_time += p.credit_stall;
    return c;
}

}  // namespace fabricsim::fabric
