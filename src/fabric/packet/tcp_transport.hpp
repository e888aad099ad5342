// The TCP offload engine of an iWARP RNIC (docs/models/iwarp.md): per RDMA message, the
// sender's window, SACK scoreboard and retransmission timer, and the receiver's reassembly
// and acknowledgements. A pure state machine indexed by the packet model's message slot: it
// never sees a port or the event queue; PacketNetwork (iwarp_nic.cpp) makes the packets and
// keeps the timers. Sequence numbers count segments of the message (0 .. segments-1); every
// segment is one MSS of the window (the last, shorter one too).
//
// Sender (RFC 5681, RFC 6675 with the IsLost rule on an in-order path, RFC 6298):
//   may send while pipe < cwnd and the new segment lies within una + receive window, where
//   pipe = (nxt - una) - SACKed - lost and not yet sent again (RFC 6675 §4 "pipe");
//   next segment: a lost one not yet sent again (lowest first), else new data;
//   an ACK carries either the cumulative acknowledgement (everything below `value` is in) or
//   one SACKed segment (the receiver got `value` past a hole); a segment is lost once
//   dupthresh segments above it are SACKed (counted from the highest SACKed: exact for the
//   contiguous SACK runs an in-order path produces), and the first loss of a window enters
//   recovery (fast retransmit): the congestion control cuts once, the first lost segment goes
//   at once whatever the pipe (RFC 6675 §5, step 4.3), and the window is frozen until the
//   cumulative ACK passes the recovery point (the highest segment sent at entry);
//   RTT: one segment timed per window (Karn: never a retransmitted one); RTO = max(min_rto,
//   SRTT + 4 RTTVAR), doubled per timeout; before the first sample RTO = min_rto (the
//   connection's setup measured an RTT far below it). A timeout marks every unSACKed segment
//   lost, cwnd = 1 MSS, and they go again in order as slow start opens the window.
// Receiver: places every new segment (DDP places out of order, RFC 5041 §5), acknowledges
//   in-order data every ack_every segments (or after delayed_ack), a hole-filling or
//   out-of-order segment, a duplicate and the message's last segment at once; with DCTCP it
//   echoes CE (ECE) and acknowledges at once when the CE state flips (RFC 8257 §3.2).
// Connections: each message runs its own sequence space, and the window state (cwnd,
// ssthresh, DCTCP's alpha, SRTT) carries from one message of a connection (source,
// destination, channel) to the next, as a persistent connection keeps it.
// Hot path: fixed-size bit rings (receive window / MSS segments, rounded up to a power of
// two) allocated when a slot is first used; nothing per packet.
#pragma once

#include "congestion/tcp_congestion_control.hpp"
#include "core/units.hpp"
#include "scenario/iwarp_spec.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace fabricsim::fabric {

class TcpTransport {
public:
    // An ACK's `value` is a segment number, with this bit set when it names a SACKed segment.
    static constexpr std::uint64_t kSackBit = std::uint64_t{1} << 39;
    static constexpr std::uint64_t kMaxSegments = kSackBit;
    static constexpr int kMaxBackoff = 15;  // Linux tcp_retries2: then the connection gives up

    // `payload`: RDMA bytes of one full segment (the window counts segments of this size).
    TcpTransport(const scenario::IwarpSpec& spec, std::int64_t payload);

    // A message of `segments` segments starts in `flow` on connection (src, dst, channel).
    void open(std::uint32_t flow, std::uint32_t src, std::uint32_t dst, std::uint32_t channel, std::uint64_t segments);
    // Its window state goes back to its connection.
    void close(std::uint32_t flow);

    // --- sender
    // Whether the window lets a segment go now (one lost, else a new one).
    bool may_send(std::uint32_t flow) const;
    // The segment to send now (call only when may_send): records it as sent at `now`; true
    // when it is a retransmission.
    bool take(std::uint32_t flow, Time now, std::uint64_t& seq);
    struct AckResult {
        std::uint64_t newly = 0;  // segments newly acknowledged cumulatively
        bool entered_recovery = false;
        bool done = false;  // every segment acknowledged
    };
    AckResult on_ack(std::uint32_t flow, Time now, std::uint64_t value, bool ece);
    // The retransmission timer fired with data outstanding; false: give up (backoff exhausted).
    bool on_timeout(std::uint32_t flow, Time now);
    Time rto(std::uint32_t flow) const;
    std::uint64_t una(std::uint32_t flow) const { return flows_[flow].una; }
    std::uint64_t nxt(std::uint32_t flow) const { return flows_[flow].nxt; }
    bool has_lost(std::uint32_t flow) const { return flows_[flow].lost_unsent > 0; }
    bool outstanding(std::uint32_t flow) const { return flows_[flow].una < flows_[flow].nxt; }
    std::int64_t cwnd(std::uint32_t flow) const { return flows_[flow].cc->cwnd(); }
    const congestion::TcpCongestionControl& cc(std::uint32_t flow) const { return *flows_[flow].cc; }

    // --- receiver
    struct Ack {
        std::uint64_t value = 0;
        bool ece = false;
    };
    struct Received {
        bool fresh = false;      // a new segment (false: a duplicate)
        std::uint32_t acks = 0;  // ACKs to send now, in order
        std::array<Ack, 2> ack{};
        bool arm_delayed_ack = false;  // in-order data waits for the delayed-ACK timer
    };
    Received on_data(std::uint32_t flow, std::uint64_t seq, bool ce);
    // The delayed-ACK timer fired: the ACK to send, if in-order data still waits for one.
    bool delayed_ack(std::uint32_t flow, Ack& ack);

    // The packet model's timers and wake-ups of the flow (iwarp_nic.cpp keeps them here, by slot).
    struct Timers {
        Time rto_at = Time::max();        // the retransmission timer's deadline
        Time rto_event = Time::max();     // the pending RTO event (max: none)
        Time delack_event = Time::max();  // the pending delayed-ACK event
        Time opened_at = Time::zero();    // the window last opened after holding the source back
        bool held = false;                // the source waits for the window
        std::uint32_t receiver = 0;       // the receiving NIC's node, for the delayed ACK
    };
    Timers& timers(std::uint32_t flow) { return timers_[flow]; }
    const scenario::IwarpSpec& spec() const { return spec_; }

private:
    struct Flow {
        std::unique_ptr<congestion::TcpCongestionControl> cc;
        std::uint32_t connection = 0;
        std::uint64_t end = 0;  // segments
        // Sender.
        std::uint64_t una = 0, nxt = 0;
        std::uint64_t high_sacked = 0;  // one past the highest SACKed segment (0: none)
        std::uint64_t lost_end = 0;     // unSACKed segments below it are lost
        std::uint64_t rtx_next = 0;     // no lost segment below it waits to go again
        std::uint64_t recover = 0;      // recovery point
        bool in_recovery = false;
        bool force = false;  // entering recovery: the first lost segment goes whatever the pipe (RFC 6675 §5 step 4.3)
        std::int64_t sacked = 0;       // SACKed segments in [una, nxt)
        std::int64_t lost_unsent = 0;  // lost, not sent again since
        bool timing = false;           // RTT: segment timed_seq sent at timed_at
        std::uint64_t timed_seq = 0;
        Time timed_at;
        int backoff = 0;
        // Receiver.
        std::uint64_t rcv_nxt = 0;
        std::uint32_t pending = 0;  // in-order segments not yet acknowledged
        std::uint64_t ooo = 0;      // segments placed past rcv_nxt
        bool ce_state = false;
        // Bit rings by segment & mask_: SACKed and sent again (sender), placed (receiver).
        std::vector<std::uint64_t> sacked_bits, retx_bits, placed_bits;
    };
    struct Connection {
        congestion::TcpWindowState window;
        Time srtt = Time::zero(), rttvar = Time::zero();
    };
    static bool bit(const std::vector<std::uint64_t>& ring, std::uint64_t i, std::uint64_t mask) {
        return (ring[(i & mask) >> 6] >> (i & 63)) & 1;
    }
    static void set(std::vector<std::uint64_t>& ring, std::uint64_t i, std::uint64_t mask, bool on) {
        const std::uint64_t b = std::uint64_t{1} << (i & 63);
        if (on)
            ring[(i & mask) >> 6] |= b;
        else
            ring[(i & mask) >> 6] &= ~b;
    }
    std::unique_ptr<congestion::TcpCongestionControl> make_cc() const;
    void rtt_sample(Flow& f, Connection& c, Time rtt);
    void mark_lost(Flow& f, std::uint64_t upto);
    std::int64_t pipe(const Flow& f) const {
        return static_cast<std::int64_t>(f.nxt - f.una) - f.sacked - f.lost_unsent;
    }

    scenario::IwarpSpec spec_;
    std::int64_t payload_;
    std::uint64_t window_segments_;  // receive window in segments
    std::uint64_t mask_;             // ring size - 1
    Time min_rto_;
    std::vector<Flow> flows_;
    std::vector<Connection> connections_;
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> index_;
    std::vector<Timers> timers_;  // by flow
};

}  // namespace fabricsim::fabric
