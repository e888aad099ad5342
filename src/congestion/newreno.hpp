// TCP NewReno congestion control (RFC 5681 §3.1-3.2; RFC 6582 for recovery, which the offload
// engine runs with SACK, RFC 6675). Slow start below ssthresh, one MSS per RTT above it; a
// loss halves the window: ssthresh = max(FlightSize / 2, 2 MSS) (RFC 5681 eq. 4), cwnd =
// ssthresh; a timeout leaves cwnd at one MSS (the loss window).
#pragma once

#include "congestion/tcp_congestion_control.hpp"

namespace fabricsim::congestion {

class NewReno : public TcpCongestionControl {
public:
    NewReno(std::int64_t mss, std::int64_t initial_window) : TcpCongestionControl(mss, initial_window) {}
    void on_ack(Time now, std::int64_t acked, std::int64_t ece, Time rtt) override;
    void on_loss(Time now, std::int64_t in_flight) override;
    void on_timeout(Time now, std::int64_t in_flight) override;
};

}  // namespace fabricsim::congestion
