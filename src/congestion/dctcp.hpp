// DCTCP congestion control (RFC 8257; Alizadeh et al., "Data Center TCP", SIGCOMM 2010).
//
// The switches mark ECN-CE once their queue passes K (cluster.roce.ecn with kmin = kmax = K:
// the RED marker of the RoCE model, congestion/red_marker.hpp, marks every packet above kmax);
// the receiver echoes the marks (ECE, fabric/packet/tcp_transport.hpp) and the sender keeps
// the fraction of marked bytes:
//   per observation window (one window of data, about one RTT; RFC 8257 §3.3):
//       alpha = (1 - g) * alpha + g * F,   F = bytes acked with ECE / bytes acked
//   on an ACK with ECE, at most once per window:
//       cwnd = cwnd * (1 - alpha / 2)      (at least 2 MSS), ssthresh = cwnd
// g = 1/16 (RFC 8257 §4.2; Linux tcp_dctcp.c dctcp_shift_g = 4), alpha in 1/1024ths starting
// at 1 (RFC 8257 §4.2 suggests the conservative initial value 1; Linux dctcp_alpha_on_init =
// 1024). Growth and reaction to loss are NewReno's (RFC 8257 §3.4).
#pragma once

#include "congestion/newreno.hpp"

namespace fabricsim::congestion {

class Dctcp final : public NewReno {
public:
    static constexpr std::int64_t kAlphaOne = 1024;
    // `g_shift`: g = 2^-g_shift.
    Dctcp(std::int64_t mss, std::int64_t initial_window, int g_shift = 4)
        : NewReno(mss, initial_window), g_shift_(g_shift) {}
    void on_ack(Time now, std::int64_t acked, std::int64_t ece, Time rtt) override;
    std::int64_t alpha() const { return state_.alpha; }  // in 1/kAlphaOne
    void load(const TcpWindowState& s) override {
        NewReno::load(s);
        window_left_ = s.cwnd;  // the first observation window: the message's first cwnd bytes
        acked_ = marked_ = 0;
        reduced_ = false;
    }

private:
    int g_shift_;
    std::int64_t window_left_ = 0;         // bytes still to ack in this observation window
    std::int64_t acked_ = 0, marked_ = 0;  // in this window
    bool reduced_ = false;                 // cwnd already cut in this window
};

}  // namespace fabricsim::congestion
