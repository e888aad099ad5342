// The congestion-control interface of a TCP connection (iWARP, docs/models/iwarp.md): a
// window in bytes, not a rate. One object per connection, driven by the connection's offload
// engine (fabric/packet/tcp_transport.hpp), which owns the scoreboard, the timers and the
// retransmissions; the object only moves cwnd and ssthresh. Like CongestionControl it never
// touches the event queue or a port, so each algorithm is unit-tested with a hand-driven clock.
//
// Contract with the engine:
//   - on_ack(): `acked` bytes newly cumulatively acknowledged at `now`, outside loss
//     recovery; `ece` of them were acknowledged by ACKs that echoed ECN-CE (only DCTCP reads
//     it); `rtt`: the connection's smoothed RTT (zero before the first sample);
//   - on_loss(): fast retransmit entered recovery (RFC 5681 §3.2, RFC 6675 §5): ssthresh and
//     cwnd fall by the algorithm's factor, once per window of data;
//   - on_timeout(): the retransmission timer fired (RFC 5681 §3.1): cwnd = one segment;
//   - cwnd() is at least one MSS.
// Integer bytes and picoseconds throughout: the same on every machine.
#pragma once

#include "core/units.hpp"

#include <cstdint>

namespace fabricsim::congestion {

// What a connection keeps of its congestion state from one message to the next.
struct TcpWindowState {
    std::int64_t cwnd = 0;      // bytes
    std::int64_t ssthresh = 0;  // bytes
    std::int64_t alpha = 0;     // DCTCP's alpha in 1/1024ths (others: unused)
};

class TcpCongestionControl {
public:
    virtual ~TcpCongestionControl() = default;
    virtual void on_ack(Time now, std::int64_t acked, std::int64_t ece, Time rtt) = 0;
    virtual void on_loss(Time now, std::int64_t in_flight) = 0;
    virtual void on_timeout(Time now, std::int64_t in_flight) = 0;
    std::int64_t cwnd() const { return state_.cwnd; }
    std::int64_t ssthresh() const { return state_.ssthresh; }
    std::int64_t mss() const { return mss_; }
    const TcpWindowState& state() const { return state_; }
    // A new message of the connection: its window state, the algorithm's own counters afresh.
    virtual void load(const TcpWindowState& s) {
        state_ = s;
        ca_bytes_ = 0;
    }

protected:
    // `initial_window`: segments (RFC 6928: 10); ssthresh starts "arbitrarily high" (RFC 5681 §3.1).
    TcpCongestionControl(std::int64_t mss, std::int64_t initial_window)
        : mss_(mss), state_{mss * initial_window, INT64_MAX / 4, 1024} {}
    // Slow start and congestion avoidance of RFC 5681 §3.1: cwnd += min(acked, MSS) per ACK below
    // ssthresh, else about one MSS per window of data (cwnd += MSS * MSS / cwnd per MSS acked).
    void reno_increase(std::int64_t acked);
    std::int64_t mss_;
    TcpWindowState state_;
    std::int64_t ca_bytes_ = 0;  // congestion avoidance: bytes acked toward the next MSS of cwnd
};

}  // namespace fabricsim::congestion
