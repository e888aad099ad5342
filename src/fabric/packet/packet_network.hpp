// The packet-level network (docs/ARCHITECTURE.md; docs/models/; docs/models/packet.md): messages cut into MTU
// packets on the fabric and into segments inside a server, forwarded hop by hop over the
// Topology along the Routing's choices, through one FIFO per egress port.
//
// One event per packet per hop. A packet committed to an egress port at `start` occupies it
// for size / payload rate and arrives at the next node after the link's propagation delay
// plus that node's forwarding latency (store-and-forward):
//
//   start   = max(port free, packet ready)            ready: its arrival at this node
//   arrival = start + size / payload_bandwidth + propagation + forwarding_latency(next node)
//
// Only the arrival is an event. A port's next packet is committed when the port's previous
// packet arrives downstream (or when a packet reaches an idle port), back-dated to the moment
// the port fell free — exact for FIFO ports, since nothing else can claim the port in between
// (docs/models/packet.md). Packets are pool indices; the per-packet path allocates nothing.
//
// Traffic classes (queue_scheduler.cpp): an Ethernet port has eight egress queues, one per
// 802.1p priority, served strict priority then DWRR (cluster.roce.queues); links inside a
// server have one. A message's packets carry its priority; CNPs, ACKs and NAKs ride the
// control priority.
//
// Link-level flow control is one LinkFlowControl per kind of link (link_flow_control.hpp):
// PFC with the switch MMU on links into RoCE switches (pfc.hpp), credits on NVLink and PCIe
// (credits.hpp). A port may start a queue's head only when its flow control says so.
//
// RC transport (rc_transport.hpp, driven by rc_nic.cpp): the receiving NIC acknowledges every
// ack_every packets; in lossy mode a gap makes it NAK and the sender go back N, and a
// retransmission timeout covers lost tails. With spraying or adaptive routing the receiver
// places out-of-order packets.
//
// RoCE congestion control (roce_nic.cpp): switches mark ECN at egress with RED; the NIC on
// the receiving side turns marks into CNPs (at most one per QP per cnp_interval) that reach the
// sender after the path's latency; the sending NIC paces each QP at its DCQCN rate, one
// congestion-control object per QP (src/congestion/). Credit flow control inside servers
// plugs in at the gate marked below.
#pragma once

#include "congestion/cnp_pacer.hpp"
#include "congestion/congestion_control.hpp"
#include "congestion/ib_cc.hpp"
#include "congestion/red_marker.hpp"
#include "core/event_queue.hpp"
#include "core/network.hpp"
#include "core/rng.hpp"
#include "fabric/packet/credits.hpp"
#include "fabric/packet/ib_cc_marker.hpp"
#include "fabric/packet/ib_credits.hpp"
#include "fabric/packet/link_flow_control.hpp"
#include "fabric/packet/nic_scheduler.hpp"
#include "fabric/packet/packet_count.hpp"
#include "fabric/packet/packet_record.hpp"
#include "fabric/packet/pfc.hpp"
#include "fabric/packet/queue_sampler.hpp"
#include "fabric/packet/rc_transport.hpp"
#include "fabric/packet/router.hpp"
#include "fabric/packet/tcp_transport.hpp"
#include "fabric/packet/vl_arbiter.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology.hpp"
#include "scenario/spec.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace fabricsim::fabric {

struct PacketModelSpec {
    Bytes mtu = Bytes{4096};           // payload per packet on fabric links
    Bytes segment = Bytes{64 * 1024};  // payload per segment inside a server (docs/models/)
    scenario::Technology technology = scenario::Technology::roce;
    scenario::RoceSpec roce;               // PFC and the MMU (RoCE only)
    scenario::InfinibandSpec infiniband;   // VLs, credits, IB CC (InfiniBand only)
    scenario::IwarpSpec iwarp;             // enabled: TCP offload engines instead of RC (iwarp_nic.cpp)
    Time deadlock_timeout = Time::ms(10);  // no packet moving this long while some wait: a deadlock
    // RC queue pairs per connection across the fabric (NicSpec; NCCL_IB_QPS_PER_CONNECTION):
    // a message is split into this many contiguous parts, one per QP, each its own ECMP flow.
    int qps_per_connection = 1;
    // Record each QP's rate at most this often (zero: not at all).
    Time qp_rate_interval = Time::zero();
    // Out-of-order placement at the receiver (spraying, adaptive routing): lossy mode then
    // recovers by timeout rather than treating reordering as loss.
    bool ooo_placement = false;
    // The priorities messages may use (bit p); an Ethernet port gets one queue for each, plus
    // the lossless and control priorities. Fewer queues keep the per-queue state small.
    std::uint8_t priorities = 0xFF;
    // The fabric's switches aggregate reductions (SHARP; InfiniBand switches with sharp: true).
    bool sharp = false;
    // Store and forward by default; cut-through starts forwarding a packet at a switch once
    // its header is in, when the egress port is idle.
    bool cut_through = false;
    // The cluster, for the α–β model `algorithm: auto` estimates on (tuning_model.cpp); none:
    // the tuner uses closed forms.
    std::optional<scenario::ClusterSpec> cluster;
    // RC recovers losses on the lossless class too (go-back-N and the retransmission timeout):
    // set when faults are scheduled; always on with the PFC watchdog, which drops lossless
    // packets (docs/models/faults.md).
    bool recover_lossless = false;
    // outputs.queues: sample these ports' queues over time (queue_sampler.hpp); interval zero: no sampler.
    scenario::QueueOutputSpec queues;
};

// EventTarget first: the per-event virtual call (on_event) reaches the class without a
// this-adjusting thunk; Network's calls are per message.
class PacketNetwork final : private EventTarget, public Network, private FlowControlHost {
public:
    // `topology` and `routing` must outlive the network.
    PacketNetwork(const Topology& topology, const Routing& routing, PacketModelSpec spec);
    PacketNetwork(const Topology& topology, const Router& router, PacketModelSpec spec);

    std::string_view model_name() const override { return "packet"; }
    void send(Simulator& sim, const Message& message, DeliveryListener& listener) override;
    // NVLS through the NVSwitches of one NVLink4+ server (nvls.cpp); SHARP through the
    // fabric's switches (sharp.cpp).
    bool offers(Offload offload, std::span<const RankId> ranks) const override;
    void start_group(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) override;
    Time unloaded_time(const Message& message) const override;
    FabricCounters counters() const override;
    void check_invariants(Time now) const override;
    std::unique_ptr<Network> tuning_model() const override;
    std::vector<PortReport> port_reports() const override;
    std::vector<QpRateSeries> qp_rates() const override;
    std::vector<QueueSeries> queue_series() const override {
        return sampler_ ? sampler_->series() : std::vector<QueueSeries>{};
    }
    // A port's queues now (the queue sampler's reading): wire bytes, PFC pause, credit stall.
    PortQueueState port_queue_state(std::uint32_t port) const;

    // Per directed link: payload bytes put on the wire (data, all classes; `priority`: that
    // class only), the time spent sending, and the deepest queue.
    Bytes bytes_sent(DirectedLink link) const;
    Bytes bytes_sent(DirectedLink link, int priority) const {
        return queues_[queue_of(link.index(), priority)].bytes_sent;
    }
    Time busy_time(DirectedLink link) const { return ports_[link.index()].busy_time; }
    // How long no packet may move while some wait before the run stops as deadlocked or
    // stalled: deadlock_timeout, raised to kWatchMargin times the slowest hop (deadlock.cpp).
    Time deadlock_window() const { return watch_window_; }
    static constexpr std::int64_t kWatchMargin = 4;
    // The most packets alive at once (the pool's size: freed records are reused).
    std::size_t peak_packets() const { return packets_.size(); }
    Bytes max_queued(DirectedLink link) const;
    // Lossy packets a switch refused for this egress port, all its queues (pfc.cpp).
    std::int64_t egress_drops(DirectedLink link) const;
    std::int64_t packets_in_flight() const { return in_flight_; }
    // PFC at a switch ingress (the directed link into it), for the lossless priority: the
    // most bytes it held, its XOFF headroom, and the time its upstream port spent paused.
    Bytes max_ingress(DirectedLink link) const;
    Bytes headroom(DirectedLink link) const;
    Time paused_time(DirectedLink link) const;
    // Times the PFC watchdog (roce.pfc.watchdog) took a queue out of PFC.
    std::int64_t watchdog_triggers() const { return (pfc_ ? pfc_->watchdog_triggers() : 0) + stuck_triggers_; }
    // RC transport: packets sent again (go-back-N) and retransmission timeouts.
    std::int64_t retransmitted() const { return retransmitted_; }
    std::int64_t timeouts() const { return timeouts_; }
    // InfiniBand: a line per switch whose `auto` VL buffer share fell under a link's credit
    // round trip, which was used instead (ib_credits.hpp).
    std::vector<std::string> warnings() const override;
    std::vector<std::string> ib_buffer_warnings() const {
        return ib_credits_ ? ib_credits_->warnings() : std::vector<std::string>{};
    }

    // Faults (packet_faults.cpp; docs/models/faults.md), driven by a FaultInjector. Per-packet
    // cost without faults: one byte of the port tested where a packet is sent or forwarded.
    // Down: the link's ports lose what they hold and what is on the wire, and carry nothing
    // until it is up again.
    void set_link_up(Simulator& sim, LinkId link, bool up);
    // A degraded link: its line rate, both directions, and a bit error rate (0: none).
    void degrade_link(LinkId link, Bandwidth line_rate, double ber);
    // The receiver at the end of `into` (a switch's port into a NIC) stops draining, or drains
    // again: the port holds its packets, as if paused by its peer without end. With the PFC
    // watchdog on, after the watchdog time the port drops what it holds and what comes for it.
    void set_stuck(Simulator& sim, DirectedLink into, bool stuck);
    // Packets lost to faults on a link (both directions): down, bit errors, a stuck port's watchdog.
    std::int64_t fault_losses(LinkId link) const { return fault_losses_.empty() ? 0 : fault_losses_[link.value()]; }

private:
    static constexpr std::uint32_t kNone = kNoPacket;
    static constexpr int kSeqBits = kPacketSeqBits;
    static constexpr std::uint64_t kNoSeq = UINT64_MAX;
    static constexpr std::uint32_t kMaxClasses = 8;
    static constexpr std::uint32_t kControlBytes = 64;  // a CNP / ACK / NAK frame

    // The packet record (packet_record.hpp).
    using Packet = PacketRecord;
    using PacketType = PacketRecord::Type;
    static constexpr PacketType kData = PacketRecord::kData, kCnpFrame = PacketRecord::kCnpFrame,
                                kAckFrame = PacketRecord::kAckFrame, kNakFrame = PacketRecord::kNakFrame;
    static constexpr std::uint8_t generation_bits(std::uint32_t generation) {
        return static_cast<std::uint8_t>(generation & 0x7F);
    }
    static Packet make_packet(std::uint32_t message, std::uint64_t seq, std::uint32_t bytes, std::uint32_t link,
                              Time ready, std::uint8_t prio, PacketType type) {
        Packet p;
        p.message = message;
        p.bytes = bytes;
        p.link = link;
        p.ready = ready;
        p.seq = seq;
        p.prio = prio;
        p.type = type;
        return p;
    }

    using Fifo = PacketFifo;

    // One hop of a message's route cache: at `node`, the egress port (ports null), or the
    // equal-cost ports inside a server that each packet chooses among (`count` of them).
    struct RouteHop {
        const std::uint32_t* ports = nullptr;
        std::uint32_t node = kNone;  // kNone: not filled yet
        std::uint32_t egress = 0;    // the port; with `ports`: their count
    };
    // Hops cached per QP part and direction (data out, ACKs / NAKs back); a hop deeper than
    // this asks the routing each time. A three-tier fat tree's longest data path forwards at
    // nine nodes (PCIe switch, NIC, five switches, NIC, PCIe switch).
    static constexpr std::uint32_t kRouteDepth = 10;

    struct MessageState {
        std::uint32_t generation = 0;  // bumped when the slot is reused
        MessageId id;
        DeliveryListener* listener = nullptr;
        FlowKey flow;
        Bytes size;
        std::uint32_t unit = 0;      // payload per packet
        std::uint64_t packets = 0;   // packet_count(size, unit)
        std::uint64_t injected = 0;  // the next new packet to make
        std::uint64_t arrived = 0;   // distinct packets placed at the destination
        Time start;
        std::uint32_t qps = 1;     // QPs it is split over (contiguous parts)
        std::uint32_t qp = kNone;  // its first QP at the sending NIC, once it has reached it
        std::uint8_t prio = 0;
        bool reliable = false;  // crosses the fabric: RC acknowledgements
        bool recovers = false;  // on a lossy priority: NAKs, go-back-N, timeouts
        bool tcp = false;       // iWARP: carried by the TCP engine (iwarp_nic.cpp)
        bool delivered = false;
        bool released = false;          // its slot is on the free list
        bool pull_held = false;         // its next packet waited for the NIC's pull window
        std::uint32_t parts_acked = 0;  // parts whose last packet is acknowledged
        std::uint64_t resend = kNoSeq;  // the next packet to send again (RC's go-back-N, TCP's losses) ...
        std::uint64_t resend_end = 0;   // ... up to here
        std::uint32_t control_out = 0;  // its ACKs and NAKs still in the network
        // Across the fabric, with a fixed routing: its route, filled hop by hop as its first
        // packets go (routed_egress), [(part * 2 + back) * kRouteDepth + hop].
        std::vector<RouteHop> route;
    };

    struct Injector {
        std::uint32_t message;
        std::uint32_t generation;
    };

    // What a hop reads of a message (arrive(), forward(), qp_of()), copied from its
    // MessageState when it starts: 32 bytes by slot, two to a cache line, so a hop does not
    // touch the 168-byte MessageState and its route vector's header (issue 19).
    struct MessageHop {
        RouteHop* route = nullptr;  // MessageState::route's entries; null: not cached
        std::uint64_t packets = 0;
        std::uint32_t generation = 0;
        NodeId dst;
        std::uint32_t qps = 1;
        std::uint32_t qp = kNone;  // MessageState::qp, once set
    };
    static_assert(sizeof(MessageHop) == 32);
    // The route cache's entry for packet `seq` of a message (back: its ACK or NAK) at its hop
    // `hop`: the one place its layout, [(part * 2 + back) * kRouteDepth + hop], is written.
    static RouteHop& route_entry(const MessageHop& h, std::uint64_t seq, bool back, std::uint32_t hop) {
        return h.route[(std::size_t{qp_part_of(seq, h.packets, h.qps)} * 2 + back) * kRouteDepth + hop];
    }

    // One per directed link: the egress port of its source node, two cache lines. The first
    // holds all that a hop reads or writes of it (the send in commit(), the arrival's pump());
    // the second what marking above Kmin, a source, a paced NIC uplink and reports read.
    struct alignas(64) Port {
        Time free_at = Time::zero();        // end of the last committed transmission
        Bandwidth rate;                     // payload rate
        Time delay;                         // propagation + the next node's forwarding latency
        Time busy_time = Time::zero();      // time spent sending (a statistic written with free_at)
        Bytes ecn_kmin = Bytes{INT64_MAX};  // RED's Kmin at a marking port: below it, no mark
        std::uint32_t first = 0;            // its first queue in queues_
        NodeId to;                          // the node at its far end
        std::uint32_t header = 0;           // wire bytes of a packet beside its payload, in queue depths
        std::uint8_t fc_kind = 0;    // FcKind: its link-level flow control (fc_of), called without a virtual call
        std::uint8_t classes = 1;    // queues: 1, or 8 (one per priority)
        std::uint8_t backlog = 0;    // bit c: queue c holds a packet
        std::uint8_t rr = 0;         // DWRR: the queue being served
        bool paced = false;          // a NIC uplink under DCQCN: per-QP queues, paced
        bool switch_egress = false;  // leaves a fabric switch: ECN marking
        bool from_fabric = false;    // from a fabric switch into a NIC or endpoint (the receiving side)
        std::uint8_t fault = 0;      // PortFault: anything but up sends nothing
        bool source = false;         // has had injectors: pump() asks inject() when idle
        // Second line.
        Bytes ecn_kmax = Bytes{INT64_MAX};  // RED above Kmin (mark_ecn): Kmax and Pmax
        double ecn_pmax = 0;
        std::vector<Injector> injectors;  // messages that may start here (source ports)
        std::uint32_t next_injector = 0;
        Time wake_at = Time::max();
        Bandwidth wire;  // line rate, for pacing in wire bytes
    };
    static_assert(sizeof(Port) == 128);

    // One egress queue (a traffic class of a port): one cache line.
    struct alignas(64) Queue {
        Fifo fifo;
        Bytes queued = Bytes::zero();
        Bytes max_queued = Bytes::zero();
        std::int64_t deficit = 0;  // DWRR
        Bytes bytes_sent = Bytes::zero();
        std::int64_t marks = 0;  // ECN marks it made
        __int128 area = 0;       // wire bytes x picoseconds waited, of the packets gone
    };

    enum EventKind : std::uint64_t {
        kArrival = 0,
        kWake = 1,
        kWatchdog = 3,
        kRto = 4,
        kStuckWatchdog = 5,  // 2: was the QP timer (NicScheduler's now)
        kTcpRto = 6,
        kTcpDelack = 7
    };
    // A port's fault state (Port::fault).
    enum PortFault : std::uint8_t { kPortUp = 0, kPortDown, kPortStuck, kPortStuckDropping };
    static std::uint64_t event(std::uint64_t index, EventKind kind) { return (index << 4) | kind; }

    void init();
    void setup_queues();
    // NVLS (nvls.cpp): the NVSwitches of one NVLink4+ server reduce and multicast.
    bool offers_nvls(std::span<const RankId> ranks) const;
    void start_nvls(Simulator& sim, const GroupOperation& op, DeliveryListener& listener);
    // SHARP (sharp.cpp): an aggregation tree over the fabric's switches.
    bool offers_sharp(std::span<const RankId> ranks) const;
    void start_sharp(Simulator& sim, const GroupOperation& op, DeliveryListener& listener);
    void start_message(Simulator& sim, const Message& message, DeliveryListener& listener, NodeId src, NodeId dst,
                       bool direct);
    // A group operation's parts, each (from, to, bytes) a direct message between neighbours;
    // `listener` hears once, when the last is delivered (group_ops.cpp).
    struct GroupPart {
        NodeId from, to;
        Bytes bytes;
    };
    void start_parts(Simulator& sim, const GroupOperation& op, DeliveryListener& listener,
                     std::span<const GroupPart> parts);
    // A group operation: its parts (one message per GPU-NVSwitch direction) report here.
    struct Group {
        MessageId id;
        DeliveryListener* listener = nullptr;
        std::uint32_t parts_left = 0;
    };
    class GroupParts final : public DeliveryListener {
    public:
        explicit GroupParts(PacketNetwork& net) : net_(net) {}
        void on_delivered(Simulator& sim, MessageId part) override;

    private:
        PacketNetwork& net_;
    };
    void on_event(Simulator& sim, std::uint64_t arg) override;
    void arrive(Simulator& sim, std::uint32_t packet);
    // The port the packet leaves `at` by (routing), and queuing it there.
    std::uint32_t next_port(const Simulator& sim, std::uint32_t packet, NodeId at);
    void forward(Simulator& sim, std::uint32_t packet, std::uint32_t idx);
    // FlowControlHost.
    void catch_up(Simulator& sim, std::uint32_t q) override { pump(sim, layout_.port[q]); }
    void wake(Simulator& sim, std::uint32_t q) override;
    void drop_queue(Simulator& sim, std::uint32_t q) override;
    // The flow control schemes the network calls directly (each class is final, so a call
    // through its own type is not virtual); another kind goes through the interface.
    enum FcKind : std::uint8_t { kFcNone = 0, kFcPfc, kFcCredits, kFcIbCredits };
    // The port's flow control (null: none), from its kind: the port holds no pointer.
    LinkFlowControl* fc_of(const Port& p) const {
        switch (p.fc_kind) {
            case kFcPfc: return pfc_.get();
            case kFcCredits: return credits_.get();
            case kFcIbCredits: return ib_credits_.get();
            default: return nullptr;
        }
    }
    // f(the port's flow control, as its own class); the port has one.
    template <class F>
    decltype(auto) with_fc(const Port& p, F&& f) const {
        switch (p.fc_kind) {
            case kFcPfc: return f(*pfc_);
            case kFcCredits: return f(*credits_);
            default: return f(*ib_credits_);
        }
    }
    bool fc_may_send(const Port& p, std::uint32_t q, Bytes size, Time& start) const {
        return p.fc_kind == kFcNone || with_fc(p, [&](auto& fc) { return fc.may_send(q, size, start); });
    }
    bool fc_ingress(Simulator& sim, const Port& p, std::uint32_t q, Bytes size) const {
        return p.fc_kind == kFcNone || with_fc(p, [&](auto& fc) { return fc.on_ingress(sim, q, size); });
    }
    // Bound for egress queue `out` of the node: into a switch, PFC's MMU admits lossy packets
    // against that queue's depth.
    bool fc_ingress(Simulator& sim, const Port& p, std::uint32_t q, Bytes size, std::uint32_t out) const {
        if (p.fc_kind != kFcPfc) return fc_ingress(sim, p, q, size);
        return pfc_->on_switch_ingress(sim, q, size, out, queues_[out].queued);
    }
    // The packet that came in over `link` leaves this node (forwarded or delivered).
    void drained(Simulator& sim, std::uint32_t link, const Packet& packet) {
        const Port& p = ports_[link];
        if (p.fc_kind == kFcCredits)  // a return before the port falls free, or to one with nothing
                                      // to send, needs no event (credits.hpp)
            credits_->on_drained(sim, queue_of(link, packet.prio), Bytes{packet.bytes}, p.free_at,
                                 p.backlog == 0 && !p.source && !p.paced && p.classes == 1 && p.fault == kPortUp);
        else if (p.fc_kind != kFcNone)
            with_fc(p, [&](auto& fc) { fc.on_drained(sim, queue_of(link, packet.prio), Bytes{packet.bytes}); });
    }
    // Deadlock detection (deadlock.cpp).
    void setup_watchdog();
    void arm_watchdog(Simulator& sim);
    void on_watchdog(Simulator& sim);
    std::string blocked_cycle() const;
    std::string waiting() const;  // what holds packets, for a stall without a cycle
    // RoCE NIC and ECN (roce_nic.cpp).
    void setup_roce();
    void pace_nic_uplinks();  // NIC uplinks serve per-QP queues at their CC rates
    // InfiniBand: credits per VL, VL arbitration, FECN/BECN and IB CC (ib_fabric.cpp).
    void setup_infiniband();
    // A new QP's congestion control (DCQCN or IB CC) and its receiver's notification spacing.
    std::unique_ptr<congestion::CongestionControl> make_cc(Bandwidth line, Time& cnp_interval) const;
    std::unique_ptr<congestion::CongestionControl> make_ib_cc(Bandwidth line) const;
    congestion::IbCcParams ib_cc_params(Bandwidth line) const;
    Bandwidth ib_cc_floor(Bandwidth line) const;
    // NIC QPs run congestion control (DCQCN, or IB CC): else they go at the port's pace.
    bool congestion_controlled() const { return ib_ ? ib_cc_ != nullptr : dcqcn_; }
    // The lowest rate (at least 1 bit/s) that congestion control may pace a QP at.
    Bandwidth cc_floor(Bandwidth line) const;
    // The flow (5-tuple) of packet `seq` of a message: its part's QP (packet_count.hpp).
    static std::uint32_t part_of(const MessageState& m, std::uint64_t seq) { return qp_part_of(seq, m.packets, m.qps); }
    static std::uint64_t part_begin(const MessageState& m, std::uint32_t part) {
        return qp_part_begin(part, m.packets, m.qps);
    }
    FlowKey flow_of(const MessageState& m, std::uint64_t seq) const {
        FlowKey f = m.flow;
        f.qp = m.flow.qp * m.qps + part_of(m, seq);
        return f;
    }
    std::uint32_t qp_of(std::uint32_t message, std::uint32_t port, std::uint64_t seq);
    void enqueue_qp(Simulator& sim, std::uint32_t qp, std::uint32_t packet);
    void pump_paced(Simulator& sim, std::uint32_t port);
    bool nic_pull_full(MessageState& m, std::uint64_t seq);
    void resume_source(Simulator& sim, std::uint32_t qp);
    void mark_ecn(Simulator& sim, const Port& p, std::uint32_t q, Packet& packet);
    void on_marked_arrival(Simulator& sim, NodeId nic, const MessageState& m, std::uint64_t seq);
    // Faults (packet_faults.cpp).
    void init_faults();
    // An arrival over `from` that a fault destroyed on the wire (the link failed under it, a
    // bit error): the packet is gone and true returned.
    bool lost_on_wire(Simulator& sim, std::uint32_t packet, std::uint32_t from);
    // A packet at a node whose chosen port is down or dropping: lost there.
    void lose_at_port(Simulator& sim, std::uint32_t packet, std::uint32_t port);
    void drop_port(Simulator& sim, std::uint32_t port);
    void on_stuck_watchdog(Simulator& sim, std::uint32_t port);
    // RC transport (rc_transport.hpp), its NIC side in rc_nic.cpp.
    void setup_transport(std::uint32_t slot);
    // The receiving NIC saw data packet `packet`; false: a duplicate or out of order, dropped.
    bool receive(Simulator& sim, NodeId nic, std::uint32_t packet);
    void on_control(Simulator& sim, std::uint32_t packet);
    // A CNP (target: the QP), ACK or NAK (target: the message slot) from the NIC `from`.
    void send_control(Simulator& sim, NodeId from, PacketType type, std::uint32_t target, std::uint64_t seq);
    void go_back(Simulator& sim, std::uint32_t slot, std::uint64_t from);
    void offer(Simulator& sim, std::uint32_t slot);
    void arm_rto(Simulator& sim, std::uint32_t slot);
    void on_rto(Simulator& sim, std::uint64_t arg);
    void finish_message(Simulator& sim, std::uint32_t slot);
    // iWARP (iwarp_nic.cpp): the TCP engine's segments, ACKs and timers.
    void setup_iwarp();
    void tcp_open(Simulator& sim, std::uint32_t slot);
    bool tcp_held(std::uint32_t slot);
    std::uint64_t tcp_take(std::uint32_t slot, Time now, Time& ready);
    void tcp_wake(Simulator& sim, std::uint32_t slot);
    bool tcp_receive(Simulator& sim, NodeId nic, std::uint32_t packet);
    void tcp_send_ack(Simulator& sim, NodeId from, std::uint32_t slot, TcpTransport::Ack ack);
    void tcp_on_ack(Simulator& sim, const Packet& pk);
    void tcp_arm_rto(Simulator& sim, std::uint32_t slot);
    void tcp_on_timer(Simulator& sim, std::uint64_t arg, bool rto);
    // Frees the slot once delivered, acknowledged and with no frame of its own in flight.
    void maybe_release(std::uint32_t slot);
    // Queues and their scheduler (queue_scheduler.cpp).
    std::uint32_t queue_of(std::uint32_t port, std::uint8_t prio) const {
        const Port& p = ports_[port];
        return p.first + (p.classes == 1 ? 0 : class_of_prio_[prio]);
    }
    // The same queue from the layout's arrays (4 bytes a port, which stay in cache), for a
    // prefetch issued while the port's own line is still loading (issue 19).
    std::uint32_t queue_from_layout(std::uint32_t port, std::uint8_t prio) const {
        const std::uint32_t first = layout_.first[port];
        return first + (layout_.first[port + 1] - first == 1 ? 0 : class_of_prio_[prio]);
    }
    // The queue whose head the port starts next, and when; kNone when none may. Inline while
    // the port's packets are in one queue (a single-queue port, or one class holding packets:
    // most calls), so that pump() saves no registers for a call; several: pick_among().
    std::uint32_t pick(std::uint32_t port, Time& start) {
        Port& p = ports_[port];
        if (p.classes == 1) {
            const std::uint32_t k = queues_[p.first].fifo.head;
            if (k == kNone) return kNone;
            start = std::max(p.free_at, packets_[k].ready);
            if (!fc_may_send(p, p.first, Bytes{packets_[k].bytes}, start)) return kNone;
            return p.first;
        }
        if ((p.backlog & (p.backlog - 1)) == 0) {  // one queue holds packets: it goes if it may
            const auto c = static_cast<std::uint32_t>(__builtin_ctz(p.backlog));
            const Packet& head = packets_[queues_[p.first + c].fifo.head];
            start = std::max(p.free_at, head.ready);
            if (!fc_may_send(p, p.first + c, Bytes{head.bytes}, start)) return kNone;
            queues_[p.first + c].deficit = 0;
            p.rr = static_cast<std::uint8_t>(c);
            return p.first + c;
        }
        return pick_among(p, port, start);
    }
    // pick() for a port whose packets are in several of its queues (queue_scheduler.cpp).
    std::uint32_t pick_among(Port& p, std::uint32_t port, Time& start);
    // The class a multi-class port serves among those ready: strict priority, DWRR or VL
    // arbitration (queue_scheduler.cpp). Reads head_bytes_.
    std::uint32_t serve(Port& p, std::uint32_t port, std::uint32_t ready, std::uint32_t last, std::uint32_t held);
    // Commits what the port can send by `now` (back-dated to when it fell free).
    void pump(Simulator& sim, std::uint32_t port);
    void commit(Simulator& sim, std::uint32_t port, std::uint32_t packet, Time start);
    bool inject(std::uint32_t port, Time now);
    std::uint32_t new_packet();
    std::uint32_t new_message();
    void enqueue(std::uint32_t port, std::uint32_t packet);
    std::uint32_t dequeue(std::uint32_t port, std::uint32_t q);
    void push(Fifo& fifo, std::uint32_t packet);
    std::uint32_t pop(Fifo& fifo);
    void discard(Simulator& sim, std::uint32_t packet);
    // Packet k leaves queue q of `port` at `at` (started or dropped): its wait joins the queue's
    // time integral. What a source makes when its port can send it waited in no queue.
    void left_queue(std::uint32_t q, std::uint32_t port, const Packet& k, Time at) {
        if (k.link == port && k.type == kData) return;
        queues_[q].area += static_cast<__int128>(k.bytes + ports_[port].header) * (at - k.ready).picoseconds();
    }
    void lose(Simulator& sim, std::uint32_t packet);
    std::uint32_t egress_port(const Simulator& sim, NodeId at, const FlowKey& flow, std::uint64_t seq) const;
    // Inside a server: of equal-cost `ports` at `at`, the one that can start a packet first.
    std::uint32_t earliest_port(const Simulator& sim, NodeId at, std::span<const std::uint32_t> ports,
                                std::uint64_t seq) const;
    // egress_port() for packet `seq` of message m (back: its ACK or NAK) at its hop `hop`,
    // from the message's route cache: the routing tables are read once per hop of a flow,
    // not once per packet (issue 19). Spraying and adaptive routing still choose per packet.
    std::uint32_t routed_egress(const Simulator& sim, std::uint32_t slot, bool back, std::uint64_t seq,
                                std::uint32_t hop, NodeId at);
    // The port packet k, just sent by port p, will leave p's far end by, when its route cache
    // already holds it (kNone: ask on arrival, or it goes no further). Carried in the packet while it flies, so that
    // an arrival reads no route entry and starts loading that port at once: the chain packet →
    // message → route entry → port of dependent loads becomes packet → port (issue 19). An
    // entry never changes while its message lives, and a packet whose message is done is
    // dropped on arrival before it is routed, so the answer is the one the arrival would get.
    std::uint32_t egress_ahead(const Packet& k, const Port& p) const;
    NodeId endpoint(RankId rank) const;
    // The directed link (= egress port index) leaving `node` by its port `port`: a flat table,
    // as this is asked at every hop.
    std::uint32_t egress_of(NodeId node, std::uint32_t port) const { return egress_[port_base_[node.value()] + port]; }

    const Topology& topology_;
    std::unique_ptr<Router> owned_router_;
    const Router& routing_;
    // The routing's answers depend on the node and flow alone (a Routing, not a test's Router
    // or the FaultRouter, whose answers change as links fail): messages cache their routes.
    bool route_cache_ = false;
    bool per_packet_routing_ = false;  // spray or adaptive: a fabric switch chooses per packet
    PacketModelSpec spec_;
    std::vector<Port> ports_;
    std::vector<Queue> queues_;
    QueueLayout layout_;
    // An Ethernet port's queues: one per priority in use, in rising priority order.
    std::uint8_t classes_ = 1;
    std::array<std::uint8_t, 16> class_of_prio_{};  // by priority / SL; kNoClass: no queue for it
    static constexpr std::uint8_t kNoClass = 0xFF;
    std::uint8_t strict_ = 0;                              // classes served strictly (bit c)
    std::array<std::int64_t, kMaxClasses> quantum_{};      // DWRR bytes per round, by class
    std::array<std::uint32_t, kMaxClasses> head_bytes_{};  // scratch of serve(): each ready class's next packet
    std::uint8_t data_prio_ = 0;                           // the data class of messages that name none
    std::uint8_t control_prio_ = 0;                        // CNPs, ACKs and NAKs
    std::unique_ptr<Pfc> pfc_;
    std::unique_ptr<Credits> credits_;
    // InfiniBand.
    bool ib_ = false;
    std::unique_ptr<IbCredits> ib_credits_;
    std::unique_ptr<VlArbiter> vl_arbiter_;  // VL arbitration at every port (vl_arbiter.hpp)
    std::unique_ptr<IbCcMarker> ib_cc_;      // IB CC's FECN marking at switch egress (ib_cc_marker.hpp)
    std::int64_t becns_ = 0;
    std::vector<std::uint32_t> direct_ports_;  // scratch for start_message
    std::vector<Group> groups_;
    std::vector<std::uint32_t> free_groups_;
    GroupParts group_parts_{*this};
    // What adaptive routing sees: the bytes queued at each egress port (all its queues).
    class Load final : public PortLoad {
    public:
        explicit Load(const PacketNetwork& net) : net_(net) {}
        Bytes queued(DirectedLink link) const override;

    private:
        const PacketNetwork& net_;
    };
    Load load_{*this};
    std::vector<std::uint32_t> port_base_;     // by node: its first entry in egress_
    std::vector<std::uint8_t> fabric_switch_;  // by node: a leaf, spine or core switch (hot: one read per hop)
    std::vector<std::uint32_t> egress_;
    std::vector<Packet> packets_;
    std::vector<std::uint32_t> free_packets_;
    // The sending NICs' QPs, their pacing and congestion control (nic_scheduler.hpp).
    NicScheduler nic_;
    std::vector<MessageState> messages_;
    std::vector<MessageHop> message_hops_;  // by message slot
    std::vector<std::uint32_t> free_messages_;
    std::int64_t in_flight_ = 0;
    std::int64_t hops_ = 0;
    Time last_move_ = Time::zero();  // the latest packet arrival anywhere
    bool watchdog_armed_ = false;
    Time watch_window_ = Time::max();  // deadlock_timeout, at least a few of the slowest hops
    EventHandle watchdog_;
    Bytes injected_ = Bytes::zero(), delivered_ = Bytes::zero(), dropped_ = Bytes::zero();
    // RC transport.
    bool lossy_ = false;           // RoCE without PFC: drops, NAKs, go-back-N
    std::uint32_t ack_every_ = 0;  // zero: no ACKs
    RcTransport rc_{RcTransport::Params{}};
    std::int64_t retransmitted_ = 0, timeouts_ = 0, duplicates_ = 0;
    std::int64_t abandoned_ = 0;       // messages RC gave up on (retry count exhausted)
    std::int64_t watchdog_drops_ = 0;  // packets the PFC watchdog dropped
    bool recover_all_ = false;         // RC recovers on the lossless class too
    // Faults: set up by the first fault (empty and false until then).
    bool faults_ = false;
    std::vector<Time> down_at_;               // by port: when its link last went down
    std::vector<double> ber_;                 // by port: bit error rate
    std::vector<std::int64_t> fault_losses_;  // by link
    std::int64_t fault_drops_ = 0;            // packets lost to faults, all links
    std::int64_t stuck_triggers_ = 0;         // the watchdog took a stuck receiver's port out of PFC
    std::int32_t stuck_ports_ = 0;            // ports now stuck (the deadlock detector waits)
    Rng* fault_rng_ = nullptr;
    // RoCE congestion control.
    bool dcqcn_ = false;
    std::vector<congestion::RedMarker> markers_;  // by port; empty without ECN
    Rng* ecn_rng_ = nullptr;
    std::int64_t ecn_marks_ = 0;
    std::int64_t cnps_ = 0;
    std::unique_ptr<QueueSampler> sampler_;  // outputs.queues
    std::unique_ptr<TcpTransport> tcp_;      // iWARP only
    Time tcp_jitter_ = Time::zero();         // iWARP: the engine's send jitter J (iwarp_nic.cpp)
    Rng* tcp_rng_ = nullptr;
};

}  // namespace fabricsim::fabric
