// CUBIC congestion control (RFC 8312; Ha, Rhee and Xu, SIGOPS OSR 2008).
//
// After a loss at window W_max (segments) the window follows
//     W_cubic(t) = C * (t - K)^3 + W_max,   K = cbrt((W_max - cwnd_0) / C)
// with t the seconds since the epoch began (the first ACK in congestion avoidance after a
// reduction, at window cwnd_0 = beta * W_max after a loss, as Linux's bictcp starts it), C = 0.4 and beta = 0.7 (RFC
// 8312 §4.1, §4.5). Per ACK in congestion avoidance cwnd grows by (W_cubic(t + RTT) - cwnd) / cwnd segments (§4.1), and
// never below the TCP-friendly estimate W_est = W_max * beta + 3 (1 - beta) / (1 + beta) * t / RTT
// (§4.2). A loss sets ssthresh = cwnd * beta (§4.5) with fast convergence (§4.6: W_max is
// lowered further when the window did not regain its last maximum). Slow start below
// ssthresh and the timeout are NewReno's. The cubic is evaluated in double precision from
// integer state (basic IEEE operations and a fixed Newton iteration for the cube root: the
// same result on every machine).
#pragma once

#include "congestion/tcp_congestion_control.hpp"

namespace fabricsim::congestion {

class Cubic final : public TcpCongestionControl {
public:
    static constexpr double kC = 0.4, kBeta = 0.7;
    Cubic(std::int64_t mss, std::int64_t initial_window) : TcpCongestionControl(mss, initial_window) {}
    void on_ack(Time now, std::int64_t acked, std::int64_t ece, Time rtt) override;
    void on_loss(Time now, std::int64_t in_flight) override;
    void on_timeout(Time now, std::int64_t in_flight) override;
    static double cube_root(double x);
    void load(const TcpWindowState& s) override {
        TcpCongestionControl::load(s);
        w_max_ = w_last_max_ = k_ = cwnd_seg_ = 0;
        epoch_ = Time::max();
    }

private:
    void reduce();
    double w_max_ = 0;          // segments, at the last reduction
    double w_last_max_ = 0;     // for fast convergence
    double k_ = 0;              // seconds
    Time epoch_ = Time::max();  // start of the cubic: the first ACK in congestion avoidance
    double cwnd_seg_ = 0;       // fractional cwnd in segments during congestion avoidance
};

}  // namespace fabricsim::congestion
