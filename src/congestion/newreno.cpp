#include "congestion/newreno.hpp"

#include <algorithm>

namespace fabricsim::congestion {

void TcpCongestionControl::reno_increase(std::int64_t acked) {
    if (state_.cwnd < state_.ssthresh) {  // slow start: at most one MSS per ACK (RFC 5681 eq. 2)
        state_.cwnd += std::min(acked, mss_);
        return;
    }
    // Congestion avoidance, counted in bytes (RFC 5681 §3.1, "appropriate byte counting"
    // variant): one MSS for every cwnd bytes acknowledged.
    ca_bytes_ += acked;
    if (ca_bytes_ >= state_.cwnd) {
        ca_bytes_ -= state_.cwnd;
        state_.cwnd += mss_;
    }
}

void NewReno::on_ack(Time, std::int64_t acked, std::int64_t, Time) { reno_increase(acked); }

void NewReno::on_loss(Time, std::int64_t in_flight) {
    state_.ssthresh = std::max(in_flight / 2, 2 * mss_);
    state_.cwnd = state_.ssthresh;
    ca_bytes_ = 0;
}

void NewReno::on_timeout(Time, std::int64_t in_flight) {
    state_.ssthresh = std::max(in_flight / 2, 2 * mss_);
    state_.cwnd = mss_;
    ca_bytes_ = 0;
}

}  // namespace fabricsim::congestion
