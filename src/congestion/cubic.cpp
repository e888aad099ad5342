#include "congestion/cubic.hpp"

#include <algorithm>

namespace fabricsim::congestion {

double Cubic::cube_root(double x) {
    if (x <= 0) return 0;
    double y = x < 1 ? 1 : x;  // above the root: Newton's steps come down monotonically
    for (int i = 0; i < 200; ++i) {
        const double next = y - (y * y * y - x) / (3 * y * y);
        if (next >= y) break;
        y = next;
    }
    return y;
}

void Cubic::on_ack(Time now, std::int64_t acked, std::int64_t, Time rtt) {
    if (state_.cwnd < state_.ssthresh) {
        reno_increase(acked);
        return;
    }
    const double mss = static_cast<double>(mss_);
    if (epoch_ == Time::max()) {  // the first ACK of congestion avoidance starts the epoch (Linux bictcp)
        epoch_ = now;
        cwnd_seg_ = static_cast<double>(state_.cwnd) / mss;
        if (w_max_ < cwnd_seg_) w_max_ = cwnd_seg_;
        k_ = cube_root((w_max_ - cwnd_seg_) / kC);
    }
    const double t = (now - epoch_).seconds();
    const double r = rtt.seconds();
    const double dt = t + r - k_;
    const double target = kC * dt * dt * dt + w_max_;
    double next = cwnd_seg_;
    const double segments = static_cast<double>(acked) / mss;
    if (target > cwnd_seg_) next += segments * (target - cwnd_seg_) / cwnd_seg_;
    // TCP-friendly region (RFC 8312 §4.2): at least what Reno would have by now.
    if (r > 0) {
        const double w_est = w_max_ * kBeta + 3 * (1 - kBeta) / (1 + kBeta) * t / r;
        next = std::max(next, std::min(w_est, cwnd_seg_ + segments));
    }
    cwnd_seg_ = next;
    state_.cwnd = std::max(mss_, static_cast<std::int64_t>(cwnd_seg_ * mss));
}

void Cubic::reduce() {
    const double w = static_cast<double>(state_.cwnd) / static_cast<double>(mss_);
    // Fast convergence (RFC 8312 §4.6).
    w_max_ = w < w_last_max_ ? w * (1 + kBeta) / 2 : w;
    w_last_max_ = w;
    epoch_ = Time::max();  // the cubic restarts at the next ACK in congestion avoidance
    state_.ssthresh = std::max(static_cast<std::int64_t>(w * kBeta * static_cast<double>(mss_)), 2 * mss_);
}

void Cubic::on_loss(Time, std::int64_t) {
    reduce();
    state_.cwnd = state_.ssthresh;
    cwnd_seg_ = static_cast<double>(state_.cwnd) / static_cast<double>(mss_);
}

void Cubic::on_timeout(Time, std::int64_t) {
    reduce();
    state_.cwnd = mss_;  // slow start up to ssthresh, then the cubic from there (RFC 8312 §4.7)
}

}  // namespace fabricsim::congestion
