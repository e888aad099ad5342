#include "congestion/dctcp.hpp"

#include <algorithm>

namespace fabricsim::congestion {

void Dctcp::on_ack(Time now, std::int64_t acked, std::int64_t ece, Time rtt) {
    acked_ += acked;
    marked_ += ece;
    window_left_ -= acked;
    if (window_left_ <= 0) {  // a window of data is acknowledged: fold F into alpha
        if (acked_ > 0) {
            const std::int64_t f = marked_ * kAlphaOne / acked_;
            state_.alpha = state_.alpha - (state_.alpha >> g_shift_) + (f >> g_shift_);
            state_.alpha = std::clamp<std::int64_t>(state_.alpha, 0, kAlphaOne);
        }
        acked_ = marked_ = 0;
        window_left_ = state_.cwnd;
        reduced_ = false;
    }
    if (ece > 0) {
        if (!reduced_) {
            reduced_ = true;
            state_.cwnd = std::max(state_.cwnd - state_.cwnd * state_.alpha / (2 * kAlphaOne), 2 * mss_);
            state_.ssthresh = state_.cwnd;
            ca_bytes_ = 0;
        }
        return;  // no growth on a congestion signal (the sender is in CWR, RFC 3168 §6.1.2)
    }
    NewReno::on_ack(now, acked, ece, rtt);
}

}  // namespace fabricsim::congestion
