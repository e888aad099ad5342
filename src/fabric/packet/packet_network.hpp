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
// This stage is lossless with unbounded queues and no flow or congestion control: PFC, ECN,
// DCQCN and credit flow control plug in at the gates marked below.
#pragma once

#include "core/event_queue.hpp"
#include "core/network.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim::fabric {

struct PacketModelSpec {
    Bytes mtu = Bytes{4096};              // payload per packet on fabric links
    Bytes segment = Bytes{64 * 1024};     // payload per segment inside a server (DESIGN §4)
};

class PacketNetwork final : public Network, private EventTarget {
public:
    // `topology` and `routing` must outlive the network.
    PacketNetwork(const Topology& topology, const Routing& routing, PacketModelSpec spec);

    std::string_view model_name() const override { return "packet"; }
    void send(Simulator& sim, const Message& message, DeliveryListener& listener) override;
    Time unloaded_time(const Message& message) const override;
    FabricCounters counters() const override;

    // Per directed link: payload bytes put on the wire, and when it was last busy.
    Bytes bytes_sent(DirectedLink link) const { return ports_[link.index()].bytes_sent; }
    Time busy_time(DirectedLink link) const { return ports_[link.index()].busy_time; }
    std::int64_t packets_in_flight() const { return in_flight_; }

private:
    static constexpr std::uint32_t kNone = UINT32_MAX;

    struct Packet {
        std::uint32_t message = 0;  // slot in messages_
        std::uint32_t seq = 0;      // index within its message
        std::uint32_t bytes = 0;    // payload
        std::uint32_t link = 0;     // directed link it is on / arrived by
        Time ready;                 // when it reached the node it waits in
        std::uint32_t next = kNone; // FIFO successor
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
    };

    struct Injector {
        std::uint32_t message;
        std::uint32_t generation;
    };

    // One per directed link: the egress port of its source node.
    struct Port {
        Bandwidth rate;                  // payload rate
        Time delay;                      // propagation + the next node's forwarding latency
        Time free_at = Time::zero();     // end of the last committed transmission
        std::uint32_t head = kNone, tail = kNone;  // FIFO of waiting packets
        Bytes queued = Bytes::zero();
        std::vector<Injector> injectors;  // messages that may start here (source ports)
        std::uint32_t next_injector = 0;
        Bytes bytes_sent = Bytes::zero();
        Time busy_time = Time::zero();
        Bytes max_queued = Bytes::zero();
    };

    void on_event(Simulator& sim, std::uint64_t packet) override;
    void arrive(Simulator& sim, std::uint32_t packet);
    // Commits what the port can send by `now` (back-dated to when it fell free).
    void pump(Simulator& sim, std::uint32_t port);
    void commit(Simulator& sim, std::uint32_t port, std::uint32_t packet, Time start);
    std::uint32_t next_injected(std::uint32_t port, Time& ready);
    std::uint32_t new_packet();
    std::uint32_t new_message();
    void enqueue(std::uint32_t port, std::uint32_t packet);
    std::uint32_t egress_port(const Simulator& sim, NodeId at, const FlowKey& flow, std::uint32_t seq) const;
    NodeId endpoint(RankId rank) const;

    const Topology& topology_;
    const Routing& routing_;
    PacketModelSpec spec_;
    std::vector<Port> ports_;
    std::vector<Packet> packets_;
    std::vector<std::uint32_t> free_packets_;
    std::vector<MessageState> messages_;
    std::vector<std::uint32_t> free_messages_;
    std::int64_t in_flight_ = 0;
    std::int64_t hops_ = 0;
};

}  // namespace fabricsim::fabric
