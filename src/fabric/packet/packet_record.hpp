// A packet of the packet model as plain data (docs/models/packet.md): a 32-byte record in a
// pool, found again by its index, queued through an intrusive FIFO. Every component that
// queues packets (PacketNetwork's ports, NicScheduler's QPs) links them through `next`.
#pragma once

#include "core/units.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim::fabric {

inline constexpr std::uint32_t kNoPacket = UINT32_MAX;

// Packet numbers are 64-bit: a 16 TiB message is 2^32 packets of 4 KiB (2^36 of 256 B). A
// record keeps its number in kPacketSeqBits, so a message has fewer than 2^40 packets (4 PiB
// of 4 KiB packets; a trillion packets is beyond any run's event budget anyway).
inline constexpr int kPacketSeqBits = 40;

// 32 bytes: two records per cache line.
struct PacketRecord {
    enum Type : std::uint8_t { kData, kCnpFrame, kAckFrame, kNakFrame };
    std::uint32_t message = 0;  // slot in the network's messages (a CNP: its QP)
    std::uint32_t bytes = 0;    // payload (control: the frame)
    std::uint32_t link = 0;     // directed link it is on / arrived by
    // Queued: its FIFO successor. In flight (committed, not yet arrived), PacketNetwork keeps
    // here the port it will leave the next node by, when known (PacketNetwork::egress_ahead).
    std::uint32_t next = kNoPacket;
    Time ready;                              // when it reached the node it waits in
    std::uint64_t seq : kPacketSeqBits = 0;  // index within its message (an ACK / NAK: the next expected)
    // Whole bytes after the 40 bits (one load each on the per-hop path).
    std::uint8_t prio = 0;  // its priority / service level
    Type type : 2 = kData;
    // Links it has crossed (mod 64): where to look in its message's route cache
    // (PacketNetwork::routed_egress); a hint only, as each cached hop names its node.
    std::uint8_t hop : 6 = 0;
    bool marked : 1 = false;  // ECN congestion experienced
    // Data, ACK, NAK: its message slot's generation (low 7 bits). Go-back-N can leave a second
    // copy of a packet (or an ACK for it) in flight after its message is done and the slot
    // serves another message; the copy is recognised by this and dropped instead of following
    // the new message. Shares marked's byte: the record stays 32 bytes.
    std::uint8_t generation : 7 = 0;
};
static_assert(sizeof(PacketRecord) == 32);

// An intrusive FIFO of packets (linked through PacketRecord::next).
struct PacketFifo {
    std::uint32_t head = kNoPacket, tail = kNoPacket;
    bool empty() const { return head == kNoPacket; }

    void push(std::vector<PacketRecord>& packets, std::uint32_t packet) {
        packets[packet].next = kNoPacket;
        if (tail == kNoPacket)
            head = packet;
        else
            packets[tail].next = packet;
        tail = packet;
    }
    std::uint32_t pop(const std::vector<PacketRecord>& packets) {
        const std::uint32_t k = head;
        head = packets[k].next;
        if (head == kNoPacket) tail = kNoPacket;
        return k;
    }
};

}  // namespace fabricsim::fabric
