#include "fabric/packet/packet_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/time_limits.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

PacketNetwork::PacketNetwork(const Topology& topology, const Routing& routing, PacketModelSpec spec)
    : topology_(topology),
      owned_router_(std::make_unique<RoutingRouter>(routing)),
      routing_(*owned_router_),
      route_cache_(true),
      per_packet_routing_(routing.policy() == scenario::RoutingKind::spray ||
                          routing.policy() == scenario::RoutingKind::adaptive),
      spec_(spec),
      ports_(topology.directed_link_count()),
      nic_(packets_, topology.directed_link_count(), spec.qp_rate_interval) {
    init();
}

PacketNetwork::PacketNetwork(const Topology& topology, const Router& router, PacketModelSpec spec)
    : topology_(topology),
      routing_(router),
      spec_(spec),
      ports_(topology.directed_link_count()),
      nic_(packets_, topology.directed_link_count(), spec.qp_rate_interval) {
    init();
}

void PacketNetwork::init() {
    const Topology& topology = topology_;
    if (topology.directed_link_count() >= (std::size_t{1} << 28))  // an arrival event's 28 link bits
        throw ModelError(
            fmt::format("packet model: {} directed links; at most 2^28 fit an event", topology.directed_link_count()));
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
            p.delay = checked_add(link.propagation, topology.node(topology.target(d)).forwarding_latency,
                                  "packet model: a link's propagation delay plus the next node's forwarding latency");
            p.switch_egress = is_fabric_switch(topology.node(topology.source(d)).kind);
            p.from_fabric = p.switch_egress && !is_fabric_switch(topology.node(topology.target(d)).kind);
            p.to = topology.target(d);
            // Queue depths count the bytes a buffer holds, as switches do: a RoCE packet's frame
            // (header_bytes less the preamble and gap, which are line time only), an InfiniBand
            // packet's headers; inside a server (NVLink, PCIe) a segment's link-layer overhead is
            // per flit or TLP, not per packet of the model, and depths there are payload.
            if (link.type == LinkType::fabric || link.type == LinkType::storage_fabric)
                p.header = static_cast<std::uint32_t>(
                    spec_.technology == scenario::Technology::roce
                        ? roce_frame_in_buffer(Bytes::zero(), Bytes{spec_.roce.header_bytes}).count()
                        : spec_.infiniband.header_bytes);
        }
    }
    // An arrival's packet record and the port it left went cold while it flew: the event loop
    // starts both loads two events early (perf: the first touch of each was most of arrive()'s
    // time). The link rides above the packet index in the event (commit()).
    hint_.kind_mask = 15;
    hint_.kind = kArrival;
    hint_.set_array(0, packets_.data(), 4, UINT32_MAX, 5);
    hint_.set_array(1, ports_.data(), 36, UINT64_MAX, 7);
    static_assert(sizeof(Packet) == 32 && sizeof(Port) == 128, "the prefetch hint's element sizes");
    port_base_.reserve(topology.nodes().size() + 1);
    fabric_switch_.reserve(topology.nodes().size());
    for (const Node& n : topology.nodes()) {
        fabric_switch_.push_back(is_fabric_switch(n.kind));
        port_base_.push_back(static_cast<std::uint32_t>(egress_.size()));
        for (std::uint32_t p = 0; p < n.ports.size(); ++p)
            egress_.push_back(topology.egress(NodeId{static_cast<std::uint32_t>(port_base_.size() - 1)}, p).index());
    }
    ib_ = spec_.technology == scenario::Technology::infiniband;
    setup_queues();
    const auto& roce = spec_.roce;
    if (spec_.technology == scenario::Technology::roce) {
        lossy_ = !roce.lossless;
        if (lossy_ || roce.pfc.enabled) {
            pfc_ = std::make_unique<Pfc>(topology, layout_, roce, spec_.mtu, static_cast<FlowControlHost&>(*this));
            for (std::uint32_t i = 0; i < ports_.size(); ++i)
                if (pfc_->applies_to(DirectedLink::from_index(i))) ports_[i].fc_kind = kFcPfc;
        }
    }
    // MTU packets of fabric messages cross PCIe too: credits of kCreditSegments segments alone
    // would never admit one when a segment is below MTU / kCreditSegments (1 KiB at 4 KiB).
    credits_ = std::make_unique<Credits>(topology, layout_, std::max(spec_.segment, spec_.mtu),
                                         static_cast<FlowControlHost&>(*this));
    for (std::uint32_t i = 0; i < ports_.size(); ++i)
        if (Credits::applies_to(topology.link(DirectedLink::from_index(i).link))) ports_[i].fc_kind = kFcCredits;
    ack_every_ = static_cast<std::uint32_t>(roce.ack_every);
    recover_all_ = spec_.recover_lossless || (spec_.technology == scenario::Technology::roce && roce.pfc.watchdog);
    rc_ = RcTransport(
        RcTransport::Params{ack_every_, roce.retransmit_timeout, spec_.recover_lossless, spec_.ooo_placement});
    setup_roce();
    setup_infiniband();
    setup_iwarp();
    // RED at switch egress reads its thresholds from the port (mark_ecn). iWARP without DCTCP
    // has cleared them (setup_iwarp): its segments are not ECN-capable.
    for (std::uint32_t i = 0; i < markers_.size(); ++i)
        if (ports_[i].switch_egress) {
            ports_[i].ecn_kmin = markers_[i].params().kmin;
            ports_[i].ecn_kmax = markers_[i].params().kmax;
            ports_[i].ecn_pmax = markers_[i].params().pmax;
        }
    markers_ = {};
    // NIC uplinks read each QP's data from memory when they schedule it and arbitrate by
    // class (roce_nic.cpp), with or without congestion control.
    if (spec_.technology == scenario::Technology::roce || ib_) pace_nic_uplinks();
    setup_watchdog();
    if (spec_.queues.interval > Time::zero()) sampler_ = std::make_unique<QueueSampler>(*this, topology_, spec_.queues);
}

// RoCE fabric ports get a queue per 802.1p priority in use; every other port one queue.
void PacketNetwork::setup_queues() {
    const bool roce = spec_.technology == scenario::Technology::roce;
    class_of_prio_.fill(kNoClass);
    std::uint32_t used = 0;
    std::vector<std::uint8_t> prio_of_class;
    if (roce) {
        used = spec_.priorities | (1u << spec_.roce.control_priority);
        for (int p : spec_.roce.pfc.priorities) used |= 1u << p;
        for (std::uint32_t p = 0; p < kMaxClasses; ++p)
            if ((used >> p) & 1u) {
                class_of_prio_[p] = static_cast<std::uint8_t>(prio_of_class.size());
                prio_of_class.push_back(static_cast<std::uint8_t>(p));
            }
        classes_ = static_cast<std::uint8_t>(prio_of_class.size());
    } else if (ib_) {  // a queue per data VL; a service level takes its VL's
        const auto& ib = spec_.infiniband;
        for (int vl = 0; vl < ib.virtual_lanes; ++vl) prio_of_class.push_back(static_cast<std::uint8_t>(vl));
        for (std::size_t sl = 0; sl < class_of_prio_.size(); ++sl)
            class_of_prio_[sl] = static_cast<std::uint8_t>(ib.sl_to_vl[sl]);
        classes_ = static_cast<std::uint8_t>(ib.virtual_lanes);
    }
    layout_.first.reserve(ports_.size() + 1);
    for (std::uint32_t i = 0; i < ports_.size(); ++i) {
        const Link& link = topology_.link(DirectedLink::from_index(i).link);
        const bool ethernet = (roce || ib_) && (link.type == LinkType::fabric || link.type == LinkType::storage_fabric);
        ports_[i].first = static_cast<std::uint32_t>(layout_.port.size());
        ports_[i].classes = ethernet ? classes_ : 1;
        layout_.first.push_back(ports_[i].first);
        for (std::uint32_t c = 0; c < ports_[i].classes; ++c) {
            layout_.port.push_back(i);
            layout_.class_of.push_back(ethernet ? prio_of_class[c] : 0);
        }
    }
    layout_.first.push_back(static_cast<std::uint32_t>(layout_.port.size()));
    queues_.resize(layout_.port.size());
    quantum_.fill(spec_.mtu.count());
    if (roce) {
        for (int p : spec_.roce.queues.strict)
            if (class_of_prio_[p] != kNoClass) strict_ |= static_cast<std::uint8_t>(1u << class_of_prio_[p]);
        for (std::uint32_t c = 0; c < classes_; ++c)
            quantum_[c] = std::int64_t{spec_.roce.queues.weights[prio_of_class[c]]} * spec_.mtu.count();
        data_prio_ = static_cast<std::uint8_t>(spec_.roce.pfc.priorities.front());
        control_prio_ = static_cast<std::uint8_t>(spec_.roce.control_priority);
    }
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
    hint_.base[0] = packets_.data();  // the pool may have moved
    return static_cast<std::uint32_t>(packets_.size() - 1);
}

// A packet leaves the network (delivered, dropped or consumed).
void PacketNetwork::discard(Simulator& sim, std::uint32_t packet) {
    free_packets_.push_back(packet);
    if (--in_flight_ == 0) {  // idle: the watchdog and the sampler must not keep the clock going
        if (watchdog_armed_) {
            sim.cancel(watchdog_);
            watchdog_armed_ = false;
        }
        if (sampler_) sampler_->idle(sim);
        credits_->network_idle(sim);  // the clock runs on to the last credit return (credits.hpp)
    }
}

// A packet dropped in the network.
void PacketNetwork::lose(Simulator& sim, std::uint32_t packet) {
    const Packet& pk = packets_[packet];
    if (pk.type == kData) {
        dropped_ += Bytes{pk.bytes};
    } else if (pk.type != kCnpFrame && pk.generation == generation_bits(messages_[pk.message].generation)) {
        --messages_[pk.message].control_out;
        maybe_release(pk.message);
    }
    discard(sim, packet);
}

std::uint32_t PacketNetwork::new_message() {
    if (!free_messages_.empty()) {
        const std::uint32_t i = free_messages_.back();
        free_messages_.pop_back();
        return i;
    }
    messages_.emplace_back();
    message_hops_.emplace_back();
    return static_cast<std::uint32_t>(messages_.size() - 1);
}

void PacketNetwork::send(Simulator& sim, const Message& message, DeliveryListener& listener) {
    const NodeId src = endpoint(message.src);
    const NodeId dst = endpoint(message.dst);
    if (src == dst)
        throw InternalError(fmt::format("packet model: message {} from a node to itself", message.id.value()));
    start_message(sim, message, listener, src, dst, false);
}

void PacketNetwork::start_message(Simulator& sim, const Message& message, DeliveryListener& listener, NodeId src,
                                  NodeId dst, bool direct) {
    const std::uint32_t slot = new_message();
    MessageState& m = messages_[slot];
    // Reset the slot but keep its route's capacity: nothing here allocates once warm.
    std::vector<RouteHop> route = std::move(m.route);
    const std::uint32_t generation = m.generation + 1;
    m = MessageState{};
    m.route = std::move(route);
    m.generation = generation;
    m.id = message.id;
    m.listener = &listener;
    m.flow = FlowKey{src, dst, message.flow_hint};
    m.size = message.size;
    m.prio = message.priority == Message::kDataClass ? data_prio_
                                                     : static_cast<std::uint8_t>(message.priority & (ib_ ? 15 : 7));
    if (spec_.technology == scenario::Technology::roce && class_of_prio_[m.prio] == kNoClass)
        throw ModelError(fmt::format("packet model: message {} asks for priority {}, which has no queue",
                                     message.id.value(), message.priority));
    const ServerId a = topology_.node(src).server, b = topology_.node(dst).server;
    const bool inside = direct || (a.valid() && a == b);  // no transport: no QPs, no ACKs
    // Segments inside a server; MTU packets on the fabric, a direct hop to or from a fabric
    // switch (SHARP's tree) included: an InfiniBand VL buffer holds a few MTUs, never a segment.
    const bool fabric_hop = direct && (fabric_switch_[src.value()] || fabric_switch_[dst.value()]);
    m.unit = static_cast<std::uint32_t>((inside && !fabric_hop ? spec_.segment : spec_.mtu).count());
    m.packets = packet_count(m.size, m.unit);
    if (m.packets >= (std::uint64_t{1} << kSeqBits))
        throw ModelError(fmt::format("packet model: message {} of {} B is {} packets of {} B; the model numbers "
                                     "packets in {} bits",
                                     message.id.value(), m.size.count(), m.packets, m.unit, kSeqBits));
    m.start = sim.now();
    if (!inside && spec_.qps_per_connection > 1) m.qps = static_cast<std::uint32_t>(spec_.qps_per_connection);
    m.reliable = !inside && ack_every_ > 0;
    // Loss recovery where loss can happen: lossy mode, or a priority PFC does not cover.
    // With faults or the PFC watchdog the lossless class can lose packets too.
    m.recovers = m.reliable && ((pfc_ != nullptr && (lossy_ || !pfc_->lossless_priority(m.prio))) || recover_all_);
    if (tcp_ != nullptr && m.reliable) tcp_open(sim, slot);
    if (m.reliable) setup_transport(slot);
    if (route_cache_ && !inside)
        m.route.assign(std::size_t{m.qps} * 2 * kRouteDepth, RouteHop{});
    else
        m.route.clear();
    message_hops_[slot] =
        MessageHop{m.route.empty() ? nullptr : m.route.data(), m.packets, generation, dst, m.qps, kNone};
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
        throw ModelError(
            fmt::format("packet model: no route from {} to {}", topology_.node(src).name, topology_.node(dst).name));
    for (std::uint32_t port : candidates) {
        const std::uint32_t idx = egress_of(src, port);
        ports_[idx].injectors.push_back({slot, generation});
        ports_[idx].source = true;
        if (ports_[idx].fc_kind == kFcCredits)  // a source may send without a packet queued first
            for (std::uint32_t q = ports_[idx].first; q < ports_[idx].first + ports_[idx].classes; ++q)
                credits_->will_send(sim, q);
        pump(sim, idx);
    }
    if (m.recovers) arm_rto(sim, slot);
    arm_watchdog(sim);
    if (sampler_) sampler_->arm(sim);
}

// Makes the next packet of one of the messages leaving by `port` (round robin among them) and
// queues it there: a packet to send again (go-back-N) first, else a new one.
bool PacketNetwork::inject(std::uint32_t port, Time now) {
    Port& p = ports_[port];
    std::size_t waiting = 0;  // injectors tried and held back by their QP's pull window
    while (p.injectors.size() > waiting) {
        if (p.next_injector >= p.injectors.size()) p.next_injector = 0;
        const Injector inj = p.injectors[p.next_injector];
        MessageState& m = messages_[inj.message];
        if (m.generation != inj.generation || (m.injected == m.packets && m.resend == kNoSeq)) {
            // Done (or a finished message's slot reused): drop it from this port's list.
            p.injectors.erase(p.injectors.begin() + p.next_injector);
            continue;
        }
        ++p.next_injector;
        if (m.tcp && tcp_held(inj.message)) {  // the TCP window is full: an ACK wakes the source
            ++waiting;
            continue;
        }
        if (nic_pull_full(m, m.resend != kNoSeq ? m.resend : m.injected)) {
            ++waiting;
            continue;
        }
        std::uint64_t seq;
        Time ready = m.start;
        if (m.pull_held) {  // it could not go before the NIC asked for it
            m.pull_held = false;
            ready = now;
        }
        if (m.tcp) {
            seq = tcp_take(inj.message, now, ready);
        } else if (m.resend != kNoSeq) {
            seq = m.resend++;
            if (m.resend >= m.resend_end) m.resend = kNoSeq;
            ready = now;
            ++retransmitted_;
        } else {
            seq = m.injected++;
        }
        const std::uint32_t k = new_packet();
        const auto bytes = static_cast<std::uint32_t>(packet_payload(m.size, m.unit, seq));
        injected_ += Bytes{bytes};
        packets_[k] = make_packet(inj.message, seq, bytes, port, ready, m.prio, kData);
        packets_[k].generation = generation_bits(m.generation);
        enqueue(port, k);
        return true;
    }
    return false;
}

void PacketNetwork::push(Fifo& fifo, std::uint32_t packet) { fifo.push(packets_, packet); }

std::uint32_t PacketNetwork::pop(Fifo& fifo) { return fifo.pop(packets_); }

void PacketNetwork::enqueue(std::uint32_t port, std::uint32_t packet) {
    const std::uint32_t qi = queue_of(port, packets_[packet].prio);
    Queue& q = queues_[qi];
    push(q.fifo, packet);
    q.queued += Bytes{packets_[packet].bytes + ports_[port].header};
    q.max_queued = std::max(q.max_queued, q.queued);
    ports_[port].backlog |= static_cast<std::uint8_t>(1u << (qi - ports_[port].first));
}

std::uint32_t PacketNetwork::dequeue(std::uint32_t port, std::uint32_t qi) {
    Queue& q = queues_[qi];
    const std::uint32_t k = pop(q.fifo);
    q.queued -= Bytes{packets_[k].bytes + ports_[port].header};
    if (q.fifo.empty()) {
        Port& p = ports_[port];
        p.backlog &= static_cast<std::uint8_t>(~(1u << (qi - p.first)));
    } else {
        // The next head, which the port starts when this packet has gone (a transmission
        // later): loaded now, it is nearer than memory then (issue 19).
        __builtin_prefetch(&packets_[q.fifo.head]);
    }
    return k;
}

// Flattened (GCC's flatten: every call in it inlined where the callee is in this file or a
// header): commit(), dequeue() and pick()'s one-queue case in one body, so that a hop saves no
// registers for a call into each (issue 19: 3.3 % of perm-128-h100's instructions). Never
// inlined itself: it has a dozen callers, and arrive(), flattened too, would copy it in.
[[gnu::flatten, gnu::noinline]] void PacketNetwork::pump(Simulator& sim, std::uint32_t port) {
    if (ports_[port].fault != kPortUp) return;  // down or stuck (packet_faults.cpp)
    if (ports_[port].paced) {
        pump_paced(sim, port);
        return;
    }
    const Time now = sim.now();
    while (ports_[port].free_at <= now) {
        // An injected packet is made first and waits in its queue if it must.
        if (ports_[port].backlog == 0 && (!ports_[port].source || !inject(port, now))) return;
        Time start;
        const std::uint32_t q = pick(port, start);  // the gates: flow control, the scheduler
        if (q == kNone) return;
        commit(sim, port, dequeue(port, q), start);
    }
}

// Inline: once per packet per hop, in commit().
inline std::uint32_t PacketNetwork::egress_ahead(const Packet& k, const Port& p) const {
    // A CNP is routed by its QP; an ACK or NAK ends at the first NIC it reaches from the fabric.
    if (k.type == kCnpFrame || k.hop >= kRouteDepth || (k.type != kData && p.from_fabric)) return kNone;
    const MessageHop& h = message_hops_[k.message];
    // A copy of a message that is done (its slot may serve another now) is dropped on arrival;
    // at its destination a packet goes no further.
    if (h.route == nullptr || k.generation != generation_bits(h.generation) || (k.type == kData && p.to == h.dst))
        return kNone;
    const NodeId to = p.to;
    const RouteHop& r = route_entry(h, k.seq, k.type != kData, k.hop);
    return r.node == to.value() && r.ports == nullptr ? r.egress : kNone;
}

void PacketNetwork::commit(Simulator& sim, std::uint32_t port, std::uint32_t packet, Time start) {
    Port& p = ports_[port];
    Packet& k = packets_[packet];
    const std::uint32_t q = queue_of(port, k.prio);
    if (p.switch_egress && k.type == kData) {
        if (queues_[q].queued > p.ecn_kmin) mark_ecn(sim, p, q, k);
        if (ib_cc_ != nullptr && ib_cc_->mark(q, queues_[q].queued, Bytes{k.bytes})) {
            k.marked = true;
            ++queues_[q].marks;
        }
    }
    if (p.fc_kind != kFcNone) with_fc(p, [&](auto& fc) { fc.on_sent(sim, q, Bytes{k.bytes}); });  // Pfc's: nothing
    if (k.link != port) drained(sim, k.link, k);  // it left the node it came into
    left_queue(q, port, k, start);
    const Time tx = transmit_time(Bytes{k.bytes}, p.rate);
    p.free_at = checked_add(start, tx, "packet model: the end of a packet's transmission");
    p.busy_time += tx;
    if (k.type == kData) queues_[q].bytes_sent += Bytes{k.bytes};
    k.link = port;
    ++k.hop;  // mod 64
    ++hops_;
    k.next = egress_ahead(k, p);  // in flight, `next` names its way out of the next node
    // The link rides above the packet index (on_event reads 32 bits of index), so that the
    // event loop's prefetch (hint_, init()) can load the port with the packet.
    sim.post(checked_add(p.free_at, p.delay, "packet model: a packet's arrival at the next node"), *this,
             event(packet, kArrival) | (std::uint64_t{port} << 36));
}

// What the port starts now is back-dated no further than its flow control allows (may_send).
void PacketNetwork::wake(Simulator& sim, std::uint32_t q) { pump(sim, layout_.port[q]); }

// Drops every packet waiting at queue q (the PFC watchdog's action): lossless drops.
void PacketNetwork::drop_queue(Simulator& sim, std::uint32_t q) {
    while (!queues_[q].fifo.empty()) {
        const std::uint32_t k = dequeue(layout_.port[q], q);
        left_queue(q, layout_.port[q], packets_[k], sim.now());
        drained(sim, packets_[k].link, packets_[k]);
        ++watchdog_drops_;
        lose(sim, k);
    }
}

void PacketNetwork::on_event(Simulator& sim, std::uint64_t arg) {
    const auto index = static_cast<std::uint32_t>(arg >> 4);
    switch (static_cast<EventKind>(arg & 15)) {
        case kArrival: arrive(sim, index); return;
        case kWake:
            if (ports_[index].wake_at == sim.now()) {
                ports_[index].wake_at = Time::max();
                pump_paced(sim, index);
            }
            return;
        case kWatchdog: on_watchdog(sim); return;
        case kRto: on_rto(sim, arg >> 4); return;
        case kStuckWatchdog: on_stuck_watchdog(sim, index); return;
        case kTcpRto: tcp_on_timer(sim, arg >> 4, true); return;
        case kTcpDelack: tcp_on_timer(sim, arg >> 4, false); return;
    }
    throw InternalError("packet model: unknown event");
}

// Flattened, like pump(): next_port(), forward(), enqueue() and the drains in one body with
// the arrival (issue 19: 3.7 % of perm-128-h100's instructions); pump() stays a call.
[[gnu::flatten]] void PacketNetwork::arrive(Simulator& sim, std::uint32_t packet) {
    last_move_ = sim.now();
    const std::uint32_t from = packets_[packet].link;
    // The loop prefetched the packet and the port it left; the lines they name (the port out
    // of here, its message's hop record, the buffer's records PFC admits it by) load while
    // the port it left is pumped.
    if (const std::uint32_t out = packets_[packet].next; out != kNone) {
        __builtin_prefetch(&ports_[out]);
        // Its queue there, whose depth PFC's admission reads and enqueue() writes: from the
        // layout (arrays that stay in cache), not from the port line still on its way.
        __builtin_prefetch(&queues_[queue_from_layout(out, packets_[packet].prio)]);
    }
    if (packets_[packet].type != kCnpFrame) __builtin_prefetch(&message_hops_[packets_[packet].message]);
    if (ports_[from].fc_kind == kFcPfc)
        for (const void* line : pfc_->admit_lines(queue_of(from, packets_[packet].prio), ports_[from].to))
            __builtin_prefetch(line);
    // The port it left has been free since it finished sending it, unless it started another
    // packet since; pump it when it may have one to send. pump() would return at once, after
    // saving its registers, for a busy port or one with nothing queued and no source: on
    // perm-128-h100 about half the arrivals (issue 19).
    if (const Port& left = ports_[from]; left.free_at <= sim.now() && (left.backlog != 0 || left.source || left.paced))
        pump(sim, from);
    if (faults_ && lost_on_wire(sim, packet, from)) return;
    const NodeId at = ports_[from].to;
    // A NIC takes every frame from the fabric into its receive buffer first (PFC on RoCE,
    // pfc.cpp); each way out below drains it. A switch's MMU takes what it forwards, last.
    if (ports_[from].from_fabric &&
        !fc_ingress(sim, ports_[from], queue_of(from, packets_[packet].prio), Bytes{packets_[packet].bytes})) {
        lose(sim, packet);
        return;
    }
    if (packets_[packet].type != kData) {
        if (packets_[packet].type != kCnpFrame &&
            packets_[packet].generation != generation_bits(message_hops_[packets_[packet].message].generation)) {
            drained(sim, from, packets_[packet]);  // an ACK or NAK of a message whose slot serves another now
            discard(sim, packet);
            return;
        }
        if (ports_[from].from_fabric) {  // control frames end at the first NIC they reach
            drained(sim, from, packets_[packet]);
            on_control(sim, packet);
            return;
        }
    } else {
        const std::uint32_t slot = packets_[packet].message;
        const MessageHop h = message_hops_[slot];  // a copy: receive() may send, which may grow the tables
        // The route entry egress_ahead() reads when it is sent on from here: the message's
        // record has just come in, so the entry's address is known now and not at the commit.
        if (h.route != nullptr && packets_[packet].hop + 1u < kRouteDepth)
            __builtin_prefetch(&route_entry(h, packets_[packet].seq, false, packets_[packet].hop + 1));
        if (packets_[packet].generation != generation_bits(h.generation)) {  // its message is done
            drained(sim, from, packets_[packet]);
            dropped_ += Bytes{packets_[packet].bytes};
            ++duplicates_;
            discard(sim, packet);
            return;
        }
        if (ports_[from].from_fabric) {  // the receiving NIC: CNPs, acknowledgements, order
            // (Both calls may send a control frame, which may grow packets_: no Packet& held.)
            const MessageState& m = messages_[slot];
            if (packets_[packet].marked && !m.tcp) {  // iWARP: the TCP receiver echoes it
                packets_[packet].marked = false;
                on_marked_arrival(sim, at, m, packets_[packet].seq);
            }
            if (m.reliable && !receive(sim, at, packet)) {
                drained(sim, from, packets_[packet]);
                dropped_ += Bytes{packets_[packet].bytes};
                ++duplicates_;
                discard(sim, packet);
                return;
            }
        }
        if (at == h.dst) {
            drained(sim, from, packets_[packet]);
            delivered_ += Bytes{packets_[packet].bytes};
            discard(sim, packet);
            if (++messages_[slot].arrived == h.packets) finish_message(sim, slot);
            return;
        }
    }
    // The egress port is looked up before the buffer admits the packet, as a switch's ingress
    // pipeline does: a switch admits lossy traffic against that egress queue (pfc.cpp).
    const std::uint32_t idx = next_port(sim, packet, at);
    const Packet& pk = packets_[packet];
    if (!ports_[from].from_fabric &&
        !fc_ingress(sim, ports_[from], queue_of(from, pk.prio), Bytes{pk.bytes}, queue_of(idx, pk.prio))) {
        lose(sim, packet);  // lossless: the message will not complete; lossy: go-back-N sends it again
        return;
    }
    forward(sim, packet, idx);
}

std::uint32_t PacketNetwork::next_port(const Simulator& sim, std::uint32_t packet, NodeId at) {
    const Packet& pk = packets_[packet];
    if (pk.next != kNone) return pk.next;  // egress_ahead(): the route cache's answer, read when it was sent
    return pk.type == kCnpFrame
               ? egress_port(sim, at, FlowKey{nic_.dst(pk.message), nic_.src(pk.message), nic_.number(pk.message)},
                             pk.seq)
               : routed_egress(sim, pk.message, pk.type != kData, pk.seq, pk.hop, at);
}

// Queues the packet at `idx`, its next port out of the node it has reached.
void PacketNetwork::forward(Simulator& sim, std::uint32_t packet, std::uint32_t idx) {
    Packet& pk = packets_[packet];
    const std::uint32_t from = pk.link;
    const NodeId at = ports_[from].to;
    if (ports_[idx].fault == kPortDown || ports_[idx].fault == kPortStuckDropping) {
        drained(sim, from, pk);
        lose_at_port(sim, packet, idx);
        return;
    }
    pk.ready = sim.now();
    if (spec_.cut_through && fabric_switch_[at.value()]) {
        // Cut-through: the switch may start it out once its header is in (the arrival event
        // already counts the forwarding latency, first bit in to first bit out), but it may
        // not finish sending before its last byte is in.
        const Time in = transmit_time(Bytes{pk.bytes}, ports_[from].rate);
        const Time out = transmit_time(Bytes{pk.bytes}, ports_[idx].rate);
        pk.ready = sim.now() - std::min(in, out);
    }
    if (ports_[idx].paced && pk.type == kData) {
        // A NIC reads a QP's data from host or GPU memory when it schedules the QP, so its QP
        // queues hold no PCIe credits: a rate-limited QP does not block the others' data.
        drained(sim, from, pk);
        pk.link = idx;
        enqueue_qp(sim, qp_of(pk.message, idx, pk.seq), packet);
        return;
    }
    enqueue(idx, packet);
    const std::uint32_t q = queue_of(idx, pk.prio);
    if (ports_[idx].fc_kind == kFcPfc && pfc_->dropping(q)) {
        drop_queue(sim, q);
        return;
    }
    // A port still sending commits nothing now (pump() would return at once): its packet's
    // arrival downstream pumps it. About half the packets forwarded find their port busy.
    if (ports_[idx].free_at <= sim.now()) pump(sim, idx);
}

std::uint32_t PacketNetwork::egress_port(const Simulator& sim, NodeId at, const FlowKey& flow,
                                         std::uint64_t seq) const {
    if (fabric_switch_[at.value()]) return egress_of(at, routing_.next_port(at, flow, seq, &load_));
    const auto candidates = routing_.candidates(at, flow);
    if (candidates.empty())
        throw ModelError(fmt::format("packet model: no route from {} to {}", topology_.node(at).name,
                                     topology_.node(flow.dst).name));
    return earliest_port(sim, at, candidates, seq);
}

// Inside a server a segment takes the equal-cost link that can start it first, as
// credit-based NVLink and PCIe never queue on a busy link while a parallel one is free;
// ties rotate with the sequence number.
std::uint32_t PacketNetwork::earliest_port(const Simulator& sim, NodeId at, std::span<const std::uint32_t> candidates,
                                           std::uint64_t seq) const {
    const std::size_t k = candidates.size();
    if (k == 1) return egress_of(at, candidates[0]);  // GPU -> PCIe switch -> NIC: nothing to weigh
    std::uint32_t best = 0;
    Time best_start = Time::max();
    for (std::size_t i = 0; i < k; ++i) {
        const std::uint32_t idx = egress_of(at, candidates[(seq + i) % k]);
        const Port& p = ports_[idx];
        const Time start =
            saturating_add(std::max(p.free_at, sim.now()), transmit_time(queues_[p.first].queued, p.rate));
        if (start < best_start) {
            best_start = start;
            best = idx;
        }
    }
    return best;
}

std::uint32_t PacketNetwork::routed_egress(const Simulator& sim, std::uint32_t slot, bool back, std::uint64_t seq,
                                           std::uint32_t hop, NodeId at) {
    auto flow = [&] {  // the message's own record: only where the route is not cached yet
        FlowKey f = flow_of(messages_[slot], seq);
        if (back) std::swap(f.src, f.dst);
        return f;
    };
    const MessageHop& h = message_hops_[slot];
    if (h.route == nullptr || hop >= kRouteDepth) return egress_port(sim, at, flow(), seq);
    RouteHop& r = route_entry(h, seq, back, hop);
    if (r.node != at.value()) {
        // Another node at this depth (a path that forks inside a server) asks each time.
        if (r.node != kNone) return egress_port(sim, at, flow(), seq);
        const FlowKey f = flow();
        if (fabric_switch_[at.value()]) {
            if (per_packet_routing_) return egress_port(sim, at, f, seq);
            r.egress = egress_of(at, routing_.next_port(at, f, seq, &load_));  // the same for every packet
        } else {
            const auto candidates = routing_.candidates(at, f);
            if (candidates.empty()) return egress_port(sim, at, f, seq);  // no route: its error
            if (candidates.size() == 1) {
                r.egress = egress_of(at, candidates[0]);
            } else {
                r.ports = candidates.data();
                r.egress = static_cast<std::uint32_t>(candidates.size());
            }
        }
        r.node = at.value();
    }
    return r.ports == nullptr ? r.egress : earliest_port(sim, at, {r.ports, r.egress}, seq);
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
    // With cut-through a switch starts each packet out min(t_in, t_out) before its last byte
    // is in (forward() above), which this subtracts at every switch hop.
    Time a_h = Time::zero(), slowest = Time::zero(), last_done = Time::zero(), delay = Time::zero();
    Time t_prev = Time::zero(), t_last_prev = Time::zero();
    bool first = true;
    for (const DirectedLink d : routing_.path(flow)) {
        const Port& p = ports_[d.index()];
        const Time t = transmit_time(Bytes{unit}, p.rate);
        const Time t_last = transmit_time(last, p.rate);
        const bool ct = spec_.cut_through && !first && is_fabric_switch(topology_.node(topology_.source(d)).kind);
        a_h = (first ? Time::zero() : a_h + delay - (ct ? std::min(t_prev, t) : Time::zero())) + t;
        slowest = std::max(slowest, t);
        const Time before_last = a_h + slowest * (train - 2);  // departure of the train's second-to-last
        const Time last_ready =
            first ? Time::zero() : last_done + delay - (ct ? std::min(t_last_prev, t_last) : Time::zero());
        last_done = train == 1 ? last_ready + t_last : std::max(last_ready, before_last) + t_last;
        delay = p.delay;
        t_prev = t;
        t_last_prev = t_last;
        first = false;
    }
    return last_done + delay;
}

void PacketNetwork::check_invariants(Time now) const {
    const FabricCounters c = counters();
    if (c.lossless_drops > 0)
        throw ModelError(fmt::format("invariant broken: {} packets dropped on the lossless class (PFC headroom "
                                     "or switch buffer too small)",
                                     c.lossless_drops));
    for (std::uint32_t i = 0; i < ports_.size(); ++i)
        if (ports_[i].busy_time > std::max(now, ports_[i].free_at)) {
            const DirectedLink d = DirectedLink::from_index(i);
            throw ModelError(fmt::format("invariant broken: link {} -> {} was busy {} in {} of simulated time",
                                         topology_.node(topology_.source(d)).name,
                                         topology_.node(topology_.target(d)).name, ports_[i].busy_time.picoseconds(),
                                         now.picoseconds()));
        }
    // Data bytes still on their way: every packet slot's, less the free slots' and control frames'.
    Bytes queued = Bytes::zero();
    std::vector<bool> free(packets_.size(), false);
    for (std::uint32_t i : free_packets_) free[i] = true;
    for (std::uint32_t i = 0; i < packets_.size(); ++i)
        if (!free[i] && packets_[i].type == kData) queued += Bytes{packets_[i].bytes};
    if (injected_ != delivered_ + dropped_ + queued)
        throw ModelError(fmt::format("invariant broken: {} B sent but {} B delivered, {} B dropped and {} B in flight",
                                     injected_.count(), delivered_.count(), dropped_.count(), queued.count()));
}

// One row per port and traffic class that carried data or received pauses. A port with one
// queue reports it as the data priority; `busy` is the port's (all classes).
std::vector<PortReport> PacketNetwork::port_reports() const {
    std::vector<PortReport> out;
    for (std::uint32_t q = 0; q < queues_.size(); ++q) {
        const Queue& queue = queues_[q];
        const bool pfc = ports_[layout_.port[q]].fc_kind == kFcPfc;
        const std::int64_t frames = pfc ? pfc_->pause_frames(q) : 0;
        if (queue.bytes_sent == Bytes::zero() && frames == 0) continue;
        const std::uint32_t i = layout_.port[q];
        const DirectedLink d = DirectedLink::from_index(i);
        const int priority = ports_[i].classes == 1 ? data_prio_ : layout_.class_of[q];
        out.push_back(PortReport{topology_.node(topology_.source(d)).name, topology_.node(topology_.target(d)).name,
                                 priority, queue.bytes_sent, ports_[i].busy_time, queue.max_queued, frames,
                                 pfc ? pfc_->paused_time(q) : Time::zero(), queue.marks,
                                 static_cast<double>(queue.area) * 1e-12});
    }
    return out;
}

PortQueueState PacketNetwork::port_queue_state(std::uint32_t port) const {
    PortQueueState s;
    const Port& p = ports_[port];
    for (std::uint32_t q = p.first; q < p.first + p.classes; ++q) {
        s.queued += queues_[q].queued;
        if (const LinkFlowControl* fc = fc_of(p); fc != nullptr && fc->blocked(q))
            (p.fc_kind == kFcPfc ? s.paused : s.credit_stalled) = true;
    }
    return s;
}

std::vector<std::string> PacketNetwork::warnings() const {
    std::vector<std::string> out = ib_buffer_warnings();
    if (sampler_)
        for (auto& w : sampler_->warnings()) out.push_back(std::move(w));
    return out;
}

Bytes PacketNetwork::bytes_sent(DirectedLink link) const {
    Bytes sent = Bytes::zero();  // data only, as each queue counts it
    for (std::uint32_t q = layout_.first[link.index()]; q < layout_.first[link.index() + 1]; ++q)
        sent += queues_[q].bytes_sent;
    return sent;
}

Bytes PacketNetwork::max_queued(DirectedLink link) const {
    Bytes most = Bytes::zero();
    for (std::uint32_t q = layout_.first[link.index()]; q < layout_.first[link.index() + 1]; ++q)
        most = std::max(most, queues_[q].max_queued);
    return most;
}

std::int64_t PacketNetwork::egress_drops(DirectedLink link) const {
    std::int64_t n = 0;
    if (pfc_ != nullptr)
        for (std::uint32_t q = layout_.first[link.index()]; q < layout_.first[link.index() + 1]; ++q)
            n += pfc_->egress_drops(q);
    return n;
}

Bytes PacketNetwork::max_ingress(DirectedLink link) const {
    return pfc_ != nullptr ? pfc_->max_ingress(queue_of(link.index(), data_prio_)) : Bytes::zero();
}

Bytes PacketNetwork::headroom(DirectedLink link) const {
    return pfc_ != nullptr ? pfc_->headroom(queue_of(link.index(), data_prio_)) : Bytes::zero();
}

Time PacketNetwork::paused_time(DirectedLink link) const {
    return ports_[link.index()].fc_kind == kFcPfc ? pfc_->paused_time(queue_of(link.index(), data_prio_))
                                                  : Time::zero();
}

std::vector<QpRateSeries> PacketNetwork::qp_rates() const {
    std::vector<QpRateSeries> out;
    for (std::uint32_t q = 0; q < nic_.qps(); ++q) {
        if (nic_.rates(q).empty()) continue;
        out.push_back(QpRateSeries{fmt::format("{} -> {} qp {}", topology_.node(nic_.src(q)).name,
                                               topology_.node(nic_.dst(q)).name, nic_.number(q)),
                                   nic_.rates(q)});
    }
    return out;
}

FabricCounters PacketNetwork::counters() const {
    FabricCounters c;
    for (const Queue& q : queues_) c.max_queue = std::max(c.max_queue, q.max_queued);
    c.packet_hops = hops_;
    c.ecn_marks = ecn_marks_;
    c.cnps = cnps_;
    // What the PFC watchdog drops RC sends again when it recovers the lossless class: then
    // not a lossless loss but retransmissions (docs/models/faults.md).
    c.lossless_drops = recover_all_ ? 0 : watchdog_drops_;
    c.drops = watchdog_drops_ + fault_drops_;
    c.watchdog_drops = watchdog_drops_;
    c.fault_drops = fault_drops_;
    c.retransmitted = retransmitted_;
    c.rc_timeouts = timeouts_;
    c.messages_abandoned = abandoned_;
    c.pfc_watchdog_triggers += stuck_triggers_;
    if (pfc_ != nullptr) pfc_->add_counters(c);
    credits_->add_counters(c);
    if (ib_credits_ != nullptr) ib_credits_->add_counters(c);
    c.fecn_marks = ib_cc_ != nullptr ? ib_cc_->marks() : 0;
    c.becns = becns_;
    return c;
}

}  // namespace fabricsim::fabric
