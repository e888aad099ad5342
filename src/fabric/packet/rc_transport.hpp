// RDMA reliable connection (RC) in the packet model (docs/models/packet.md, "Transport"), the
// protocol state of both ends of every message that crosses the fabric, one object for all of
// them, indexed by the network's message slot. It never sees a packet, a port or the event
// queue: the network (rc_nic.cpp) tells it what arrived and sends the replies it asks for.
//
// A message is split over its connection's QPs in contiguous parts, each with its own packet
// sequence (packet_count.hpp). The receiver acknowledges every ack_every packets of a part and
// its last one (IBA Vol. 1 §9.7; RoCEv2 carries the same transport).
//
//   lossless (PFC): every packet is placed, in whatever order it comes; ACKs carry progress.
//   recovering (a lossy priority, faults, the PFC watchdog): go-back-N, as RC NICs do. The
//     receiver takes only the next packet of the part in order; the first one past a gap gets
//     one NAK naming the missing packet, and the sender sends the part again from there. A
//     lost tail has no later packet to reveal it: after `rto` without progress the sender goes
//     back to the first unacknowledged packet of each part (IBA Vol. 1 §9.7.6.1.3).
//   out-of-order placement (spraying, adaptive routing): the receiver keeps every new packet
//     (a bitmap), acknowledges what is complete in order and sends no NAK; loss is recovered
//     by the timeout alone.
//
// With `gives_up` (a run with faults), after kRetryLimit timeouts in a row without progress the
// message is given up, as a QP goes to the error state once its retry count is spent (IBA
// Vol. 1 §9.7.5.2.8, "Retry_Cnt", 3 bits: at most 7).
//
// State by message slot: the message record (packets, parts, timer) and each part's sequence
// state; vectors keep their capacity when a slot is reused, so a warm run allocates nothing.
#pragma once

#include "core/units.hpp"
#include "fabric/packet/packet_count.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim::fabric {

class RcTransport {
public:
    static constexpr std::uint8_t kRetryLimit = 7;

    struct Params {
        std::uint32_t ack_every = 1;  // an ACK per this many packets of a part (and its last)
        Time rto = Time::max();       // retransmission timeout; max: never
        bool gives_up = false;        // give a message up after kRetryLimit timeouts
        bool ooo_placement = false;   // the receiver places packets out of order
    };
    explicit RcTransport(Params params) : params_(params) {}

    // Slot `slot` starts a message of `packets` packets over `qps` parts; `recovers`: loss
    // recovery (go-back-N, the timer). Returns how many parts are empty (more QPs than packets),
    // which count as acknowledged from the start.
    std::uint32_t open(std::uint32_t slot, std::uint64_t packets, std::uint32_t qps, bool recovers);

    // Receiver: data packet `seq` reached the destination NIC.
    enum class Reply : std::uint8_t { none, ack, nak };
    struct Received {
        bool placed = false;  // false: a duplicate or past a gap, dropped
        Reply reply = Reply::none;
        std::uint64_t seq = 0;  // an ACK: the last packet in order; a NAK: the missing one
    };
    Received on_data(std::uint32_t slot, std::uint64_t seq);

    // Sender: an ACK for everything up to `seq` of its part, at `now`. `newly`: packets it
    // acknowledges for the first time; `part_done`: their part is now wholly acknowledged.
    struct Acked {
        std::uint32_t part = 0;
        std::uint64_t newly = 0;
        bool part_done = false;
    };
    Acked on_ack(std::uint32_t slot, std::uint64_t seq, Time now);
    // Sender: a NAK naming `seq`, the packet the receiver misses: everything of its part below
    // it is in. The sender goes back to `seq` (go_back_end()).
    void on_nak(std::uint32_t slot, std::uint64_t seq);
    // One past the last packet to send again when going back to `from`: the end of its part, or
    // what the sender has made so far (`made`), whichever is first.
    std::uint64_t go_back_end(std::uint32_t slot, std::uint64_t from, std::uint64_t made) const;

    // The retransmission timer. arm(): the deadline moves to now + rto; true when the caller
    // must put a timer event at deadline() (none is pending, and the deadline is not never).
    bool arm(std::uint32_t slot, Time now);
    Time deadline(std::uint32_t slot) const { return messages_[slot].rto_at; }
    // The timer event fired at `now`; `made`: the packets the sender has made so far.
    enum class Timer : std::uint8_t {
        idle,     // every part acknowledged, or the deadline is never: nothing to do
        wait,     // acknowledged since: put the event at deadline() again
        rearm,    // nothing sent is unacknowledged: no loss, arm() again
        give_up,  // the retry count is spent: the message is lost
        go_back,  // a timeout: go back to acked(part) of every part with unacknowledged packets
    };
    Timer on_timer(std::uint32_t slot, Time now, std::uint64_t made);
    bool gave_up(std::uint32_t slot) const { return messages_[slot].retries > kRetryLimit; }

    std::uint32_t parts(std::uint32_t slot) const { return messages_[slot].qps; }
    std::uint32_t part_of(std::uint32_t slot, std::uint64_t seq) const {
        const Message& m = messages_[slot];
        return qp_part_of(seq, m.packets, m.qps);
    }
    // Part j of the message: everything below acked() is acknowledged; end() is one past its last.
    std::uint64_t acked(std::uint32_t slot, std::uint32_t part) const { return parts_[slot][part].acked; }
    std::uint64_t end(std::uint32_t slot, std::uint32_t part) const { return parts_[slot][part].end; }

private:
    struct Message {
        std::uint64_t packets = 0;
        std::uint32_t qps = 1;
        bool recovers = false;
        bool rto_pending = false;      // a timer event is in the queue (at or before rto_at)
        std::uint8_t retries = 0;      // timeouts since the last progress
        std::uint32_t parts_done = 0;  // parts wholly acknowledged
        Time rto_at = Time::max();     // go back unless acknowledged by then
    };
    struct Part {
        std::uint64_t begin = 0;     // its first packet
        std::uint64_t expected = 0;  // receiver: the next packet in order
        std::uint64_t acked = 0;     // sender: everything below is acknowledged
        std::uint64_t end = 0;       // one past its last packet
        bool nak_sent = false;       // receiver: a NAK for `expected` is out
    };
    bool ack_due(const Part& part, std::uint64_t next) const {
        return (next - part.begin) % params_.ack_every == 0 || next == part.end;
    }

    Params params_;
    std::vector<Message> messages_;                 // by slot
    std::vector<std::vector<Part>> parts_;          // by slot, then part
    std::vector<std::vector<std::uint64_t>> seen_;  // by slot: packets placed, one bit each (ooo only)
};

}  // namespace fabricsim::fabric
