// The packet-level network (DESIGN §1, §4; docs/models/packet.md): messages cut into MTU
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
// RoCE fabric switches run PFC on the lossless class (pfc.cpp, docs/models/pfc.md): ingress
// bytes per port against a dynamic XOFF threshold of the shared buffer, pause frames of
// 0xFFFF quanta on the wire, refreshed while congested, XON on drain, headroom above XOFF;
// a packet beyond it is a lossless drop. Every data packet is in the lossless class.
//
// Inside a server (NVLink and PCIe links) flow control is by credits (credits.cpp): a port
// may start a packet only while the next node has room for it, and gets the room back one
// link delay after the packet has left that node, so a stalled NIC backs up into the GPU.
//
// RoCE congestion control (roce_nic.cpp): switches mark ECN at egress with RED; the NIC on
// the receiving side turns marks into CNPs (at most one per QP per cnp_interval) that reach the
// sender after the path's latency; the sending NIC paces each QP at its DCQCN rate, one
// congestion-control object per QP (src/congestion/). Credit flow control inside servers
// plugs in at the gate marked below.
#pragma once

#include "congestion/cnp_pacer.hpp"
#include "congestion/congestion_control.hpp"
#include "congestion/red_marker.hpp"
#include "core/event_queue.hpp"
#include "core/network.hpp"
#include "core/rng.hpp"
#include "fabric/packet/router.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology.hpp"
#include "scenario/spec.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace fabricsim::fabric {

struct PacketModelSpec {
    Bytes mtu = Bytes{4096};              // payload per packet on fabric links
    Bytes segment = Bytes{64 * 1024};     // payload per segment inside a server (DESIGN §4)
    scenario::Technology technology = scenario::Technology::roce;
    scenario::RoceSpec roce;              // PFC and the MMU (RoCE only)
    Time deadlock_timeout = Time::ms(10); // no packet moving this long while some wait: a deadlock
    // RC queue pairs per connection across the fabric (NicSpec; NCCL_IB_QPS_PER_CONNECTION):
    // a message is split into this many contiguous parts, one per QP, each its own ECMP flow.
    int qps_per_connection = 1;
    // Record each QP's rate at most this often (zero: not at all).
    Time qp_rate_interval = Time::zero();
};

class PacketNetwork final : public Network, private EventTarget {
public:
    // `topology` and `routing` must outlive the network.
    PacketNetwork(const Topology& topology, const Routing& routing, PacketModelSpec spec);
    PacketNetwork(const Topology& topology, const Router& router, PacketModelSpec spec);

    std::string_view model_name() const override { return "packet"; }
    void send(Simulator& sim, const Message& message, DeliveryListener& listener) override;
    // NVLS through the NVSwitches of one NVLink4+ server (nvls.cpp); no SHARP yet.
    bool offers(Offload offload, std::span<const RankId> ranks) const override;
    void start_group(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) override;
    Time unloaded_time(const Message& message) const override;
    FabricCounters counters() const override;
    void check_invariants(Time now) const override;
    std::vector<PortReport> port_reports() const override;
    std::vector<QpRateSeries> qp_rates() const override;

    // Per directed link: payload bytes put on the wire, and when it was last busy.
    Bytes bytes_sent(DirectedLink link) const { return ports_[link.index()].bytes_sent; }
    Time busy_time(DirectedLink link) const { return ports_[link.index()].busy_time; }
    Bytes max_queued(DirectedLink link) const { return ports_[link.index()].max_queued; }
    std::int64_t packets_in_flight() const { return in_flight_; }
    // PFC at a switch ingress (the directed link into it): the most bytes it held, its XOFF
    // headroom, and the time its upstream port spent paused.
    Bytes max_ingress(DirectedLink link) const { return ingress_.empty() ? Bytes::zero() : ingress_[link.index()].max_bytes; }
    Bytes headroom(DirectedLink link) const { return ingress_.empty() ? Bytes::zero() : ingress_[link.index()].headroom; }
    Time paused_time(DirectedLink link) const { return ports_[link.index()].paused_total; }
    // Times the PFC watchdog (roce.pfc.watchdog) took a port out of PFC.
    std::int64_t watchdog_triggers() const { return watchdog_triggers_; }

private:
    static constexpr std::uint32_t kNone = UINT32_MAX;

    struct Packet {
        std::uint32_t message = 0;  // slot in messages_
        std::uint32_t seq = 0;      // index within its message
        std::uint32_t bytes = 0;    // payload
        std::uint32_t link = 0;     // directed link it is on / arrived by
        Time ready;                 // when it reached the node it waits in
        std::uint32_t next = kNone; // FIFO successor
        bool marked = false;        // ECN congestion experienced
    };

    // An intrusive FIFO of packets (linked through Packet::next).
    struct Fifo {
        std::uint32_t head = kNone, tail = kNone;
        bool empty() const { return head == kNone; }
    };

    struct MessageState {
        std::uint32_t generation = 0;    // bumped when the slot is reused
        MessageId id;
        DeliveryListener* listener = nullptr;
        FlowKey flow;
        Bytes size;
        std::uint32_t unit = 0;          // payload per packet
        std::uint32_t packets = 0;
        std::uint32_t injected = 0;
        std::uint32_t arrived = 0;
        Time start;
        std::uint32_t qps = 1;           // QPs it is split over (contiguous parts)
        std::uint32_t qp = kNone;        // its first QP at the sending NIC, once it has reached it
    };

    // A queue pair at a sending NIC: the packets it holds and its congestion control.
    struct Qp {
        std::unique_ptr<congestion::CongestionControl> cc;
        congestion::CnpPacer pacer;      // the receiving NIC's CNP spacing for this QP
        std::uint32_t port = 0;          // the NIC's uplink
        Fifo queue;
        Time next_send = Time::zero();   // pacing: the earliest start of its next packet
        Time timer_at = Time::max();     // the pending congestion-control timer
        Time last_call = Time::zero();   // the CC object's clock never goes back
        Time cnp_delay;                  // receiving NIC to sending NIC
        bool listed = false;             // in its port's active list
        std::vector<std::pair<Time, Bandwidth>> rates;  // sampled (outputs.qp_rates)
        NodeId src, dst;                 // for the series' name
        std::uint32_t number = 0;
    };

    struct Injector {
        std::uint32_t message;
        std::uint32_t generation;
    };

    // One per directed link: the egress port of its source node. The fields every hop touches
    // come first, so a hop mostly reads the struct's first cache line.
    struct Port {
        Time free_at = Time::zero();     // end of the last committed transmission
        Bandwidth rate;                  // payload rate
        Time delay;                      // propagation + the next node's forwarding latency
        Fifo queue;                      // packets waiting
        Bytes queued = Bytes::zero();
        Bytes credits = Bytes::zero();   // credit flow control (NVLink, PCIe): room at the next node
        bool paced = false;              // a NIC uplink under DCQCN: per-QP queues, paced
        bool paused = false;             // PFC received: nothing starts in [paused_since, paused_until)
        bool credited = false;
        bool watchdog_dropping = false;  // PFC watchdog: ignoring pauses, dropping its queue
        bool switch_egress = false;      // leaves a fabric switch: PFC release, ECN marking
        Bytes bytes_sent = Bytes::zero();
        // Second line and beyond: statistics and the rarer paths.
        Time busy_time = Time::zero();
        Bytes max_queued = Bytes::zero();
        Time paused_since, paused_until;
        Time paused_total = Time::zero();
        Time pause_quanta;               // 0xFFFF x 512 bit times at this link's rate
        std::int64_t pause_frames = 0;   // pause frames received
        std::int64_t marks = 0;          // ECN marks it made
        Time credit_stall = Time::zero();
        Time stalled_since = Time::max();
        std::vector<Injector> injectors;  // messages that may start here (source ports)
        std::uint32_t next_injector = 0;
        std::vector<std::uint32_t> active;  // paced: QPs with packets
        std::uint32_t round_robin = 0;
        Time wake_at = Time::max();
        Bandwidth wire;                  // line rate, for pacing in wire bytes
    };

    // PFC sent: one per directed link into a RoCE switch.
    struct Ingress {
        Bytes bytes = Bytes::zero();
        Bytes max_bytes = Bytes::zero();
        Bytes headroom = Bytes::zero();
        bool pausing = false;            // the upstream port is held by our pause frames
        Bytes limit = Bytes::zero();     // XOFF at the pause + headroom: beyond it, a drop
        Time refresh_at;                 // the pending refresh of our pause
    };
    struct SwitchBuffer {
        bool pfc = false;
        Bytes shared = Bytes::zero();    // buffer less every port's headroom and reserve
        Bytes used = Bytes::zero();
        Bytes total = Bytes::zero();
    };

    enum EventKind : std::uint64_t {
        kArrival = 0, kPause = 1, kResume = 2, kRefresh = 3, kExpiry = 4, kWake = 5, kCcTimer = 6, kCnp = 7,
        kWatchdog = 8, kCredit = 9, kPfcWatchdog = 10
    };
    static std::uint64_t event(std::uint64_t index, EventKind kind) { return (index << 4) | kind; }

    void init();
    void start_message(Simulator& sim, const Message& message, DeliveryListener& listener, NodeId src, NodeId dst,
                       bool direct);
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
    void setup_pfc();
    // PFC: account a packet into / out of a switch; false when it had to be dropped.
    bool admit(Simulator& sim, std::uint32_t link, NodeId at, Bytes size);
    void release(Simulator& sim, std::uint32_t link, NodeId at, Bytes size);
    Bytes xoff(NodeId at) const;
    void send_pause(Simulator& sim, std::uint32_t link, bool pause);
    void on_pause(Simulator& sim, std::uint32_t port, bool pause);
    void on_expiry(Simulator& sim, std::uint32_t port);
    void on_pfc_watchdog(Simulator& sim, std::uint32_t port);
    void drop_queued(Simulator& sim, std::uint32_t port);
    // Credits (credits.cpp).
    void setup_credits();
    bool has_credit(std::uint32_t port, Bytes size, Time now);
    void return_credit(Simulator& sim, std::uint32_t link, Bytes size);
    void on_credit(Simulator& sim, std::uint32_t link, Bytes size);
    // Deadlock detection (deadlock.cpp).
    void arm_watchdog(Simulator& sim);
    void on_watchdog(Simulator& sim);
    std::string paused_cycle() const;
    // RoCE NIC and ECN (roce_nic.cpp).
    void setup_roce();
    // The flow (5-tuple) of packet `seq` of a message: its part's QP.
    std::uint32_t part_of(const MessageState& m, std::uint32_t seq) const {
        return m.qps == 1 ? 0 : static_cast<std::uint32_t>(std::uint64_t{seq} * m.qps / m.packets);
    }
    FlowKey flow_of(const MessageState& m, std::uint32_t seq) const {
        FlowKey f = m.flow;
        f.qp = m.flow.qp * m.qps + part_of(m, seq);
        return f;
    }
    std::uint32_t qp_of(std::uint32_t message, std::uint32_t port, std::uint32_t seq);
    void enqueue_qp(Simulator& sim, std::uint32_t qp, std::uint32_t packet);
    void pump_paced(Simulator& sim, std::uint32_t port);
    void arm_timer(Simulator& sim, std::uint32_t qp);
    void cc_call(Simulator& sim, std::uint32_t qp, EventKind why, Bytes size = Bytes::zero());
    void mark_ecn(Simulator& sim, std::uint32_t port, Packet& packet);
    void on_marked_arrival(Simulator& sim, const MessageState& m, std::uint32_t seq);
    // Commits what the port can send by `now` (back-dated to when it fell free).
    void pump(Simulator& sim, std::uint32_t port);
    void commit(Simulator& sim, std::uint32_t port, std::uint32_t packet, Time start);
    std::uint32_t next_injected(std::uint32_t port, Time& ready);
    std::uint32_t new_packet();
    std::uint32_t new_message();
    void enqueue(std::uint32_t port, std::uint32_t packet);
    void push(Fifo& fifo, std::uint32_t packet);
    std::uint32_t pop(Fifo& fifo);
    std::uint32_t egress_port(const Simulator& sim, NodeId at, const FlowKey& flow, std::uint32_t seq) const;
    NodeId endpoint(RankId rank) const;
    // The directed link (= egress port index) leaving `node` by its port `port`: a flat table,
    // as this is asked at every hop.
    std::uint32_t egress_of(NodeId node, std::uint32_t port) const { return egress_[port_base_[node.value()] + port]; }

    const Topology& topology_;
    std::unique_ptr<Router> owned_router_;
    const Router& routing_;
    PacketModelSpec spec_;
    std::vector<Port> ports_;
    std::vector<std::uint32_t> direct_ports_;  // scratch for start_message
    std::vector<Group> groups_;
    std::vector<std::uint32_t> free_groups_;
    GroupParts group_parts_{*this};
    std::vector<std::uint32_t> port_base_;  // by node: its first entry in egress_
    std::vector<std::uint32_t> egress_;
    std::vector<Packet> packets_;
    std::vector<std::uint32_t> free_packets_;
    std::vector<MessageState> messages_;
    std::vector<std::uint32_t> free_messages_;
    std::int64_t in_flight_ = 0;
    std::int64_t hops_ = 0;
    Time last_move_ = Time::zero();       // the latest packet arrival anywhere
    bool watchdog_armed_ = false;
    EventHandle watchdog_;
    Bytes injected_ = Bytes::zero(), delivered_ = Bytes::zero(), dropped_ = Bytes::zero();
    std::vector<Ingress> ingress_;        // by directed link; empty without PFC
    std::vector<SwitchBuffer> buffers_;   // by node
    std::int64_t pauses_sent_ = 0;
    std::int64_t lossless_drops_ = 0;
    std::int64_t watchdog_triggers_ = 0;
    // RoCE congestion control.
    bool dcqcn_ = false;
    std::vector<congestion::RedMarker> markers_;  // by directed link; empty without ECN
    Rng* ecn_rng_ = nullptr;
    std::vector<Qp> qps_;
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> qp_index_;
    std::int64_t ecn_marks_ = 0;
    std::int64_t cnps_ = 0;
};

}  // namespace fabricsim::fabric
