// The egress scheduler of a port (docs/models/packet.md, "Traffic classes").
//
// A port with one queue sends its head when its flow control allows. A port with a queue per
// priority (Ethernet, IEEE 802.1Q §8.6.8) looks at the heads its flow control allows and the
// earliest time t0 one of them could start (ports commit back-dated to when they fell free);
// of the heads there by t0, a strict-priority queue goes first (the highest priority), else
// deficit weighted round robin shares the port (Shreedhar & Varghese, "Efficient Fair Queuing
// using Deficit Round Robin", SIGCOMM'95): the queue in turn sends while its deficit covers
// its head, and each queue gets weight x MTU more each time its turn comes round. A queue that
// empties loses its deficit.
#include "fabric/packet/packet_network.hpp"

namespace fabricsim::fabric {

// The one-queue cases are pick()'s, inline (packet_network.hpp): here several queues hold packets.
std::uint32_t PacketNetwork::pick_among(Port& p, std::uint32_t port, Time& start) {
    Time t0 = Time::max();
    std::uint32_t ready = 0;  // bit c: queue c's head may start at t0
    std::uint32_t last = 0;   // bit c: queue c's head is its last packet
    for (std::uint32_t bits = p.backlog; bits != 0; bits &= bits - 1) {
        const auto c = static_cast<std::uint32_t>(__builtin_ctz(bits));
        const Queue& q = queues_[p.first + c];
        const Packet& head = packets_[q.fifo.head];
        Time s = std::max(p.free_at, head.ready);
        if (s > t0 || !fc_may_send(p, p.first + c, Bytes{head.bytes}, s) || s > t0) continue;
        if (s < t0) {
            t0 = s;
            ready = 0;
            last = 0;
        }
        ready |= 1u << c;
        head_bytes_[c] = head.bytes;
        if (q.fifo.head == q.fifo.tail) last |= 1u << c;
    }
    if (ready == 0) return kNone;
    start = t0;
    return p.first + serve(p, port, ready, last, p.backlog);
}

// The class a multi-class port serves among `ready` (bit c: class c's head, head_bytes_[c]
// bytes, may start at the moment chosen). `last` (bit c): that head is the class's last
// packet; `held` (bit c): the class holds packets. Shared by switch ports and NIC uplinks,
// whose classes hold QPs (roce_nic.cpp).
std::uint32_t PacketNetwork::serve(Port& p, std::uint32_t port, std::uint32_t ready, std::uint32_t last,
                                   std::uint32_t held) {
    if (ib_) return vl_arbiter_->arbitrate(port, ready, head_bytes_.data());
    if (const std::uint32_t strict = ready & strict_; strict != 0)
        return static_cast<std::uint32_t>(31 - __builtin_clz(strict));
    // DWRR among the ready queues; a pass over all of them adds at least one quantum to each,
    // and a quantum is at least an MTU, so this ends within two passes.
    for (;;) {
        const std::uint32_t c = p.rr;
        Queue& q = queues_[p.first + c];
        if ((ready >> c) & 1u) {
            const std::int64_t size = head_bytes_[c];
            if (q.deficit >= size) {
                q.deficit -= size;
                if ((last >> c) & 1u) q.deficit = 0;  // it empties: no credit kept
                return c;
            }
        } else if (((held >> c) & 1u) == 0) {
            q.deficit = 0;
        }
        p.rr = static_cast<std::uint8_t>((c + 1) % p.classes);
        if ((ready >> p.rr) & 1u) queues_[p.first + p.rr].deficit += quantum_[p.rr];
    }
}

Bytes PacketNetwork::Load::queued(DirectedLink link) const {
    Bytes total = Bytes::zero();
    for (std::uint32_t q = net_.layout_.first[link.index()]; q < net_.layout_.first[link.index() + 1]; ++q)
        total += net_.queues_[q].queued;
    return total;
}

}  // namespace fabricsim::fabric
