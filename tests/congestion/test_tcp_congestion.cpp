// TCP congestion control for iWARP (src/congestion/newreno.hpp, dctcp.hpp, cubic.hpp), driven
// by hand: each expected window is worked out from the RFC's rule in the comment beside it.
#include <catch2/catch.hpp>

#include "congestion/cubic.hpp"
#include "congestion/dctcp.hpp"
#include "congestion/newreno.hpp"

#include <cmath>

using namespace fabricsim;
using namespace fabricsim::congestion;
using namespace fabricsim::literals;

namespace {
constexpr std::int64_t kMss = 1000;
}

TEST_CASE("NewReno: slow start, congestion avoidance, halving on loss, one segment after a timeout",
          "[congestion][tcp]") {
    NewReno r(kMss, 10);
    CHECK(r.cwnd() == 10 * kMss);  // RFC 6928 initial window
    // Slow start: each ACK of one MSS adds one MSS (RFC 5681 eq. 2): a window of 10 ACKs doubles it.
    for (int i = 0; i < 10; ++i) r.on_ack(Time::zero(), kMss, 0, Time::zero());
    CHECK(r.cwnd() == 20 * kMss);
    // Loss with 20 MSS in flight: ssthresh = max(FlightSize / 2, 2 MSS) = 10 MSS = cwnd (RFC 5681 eq. 4).
    r.on_loss(Time::zero(), 20 * kMss);
    CHECK(r.ssthresh() == 10 * kMss);
    CHECK(r.cwnd() == 10 * kMss);
    // Congestion avoidance: one MSS per cwnd bytes acknowledged; 9 MSS acked: nothing yet, the 10th: +1.
    for (int i = 0; i < 9; ++i) r.on_ack(Time::zero(), kMss, 0, Time::zero());
    CHECK(r.cwnd() == 10 * kMss);
    r.on_ack(Time::zero(), kMss, 0, Time::zero());
    CHECK(r.cwnd() == 11 * kMss);
    // Timeout: the loss window of one MSS, ssthresh = max(11 MSS / 2, 2 MSS) = 5.5 MSS.
    r.on_timeout(Time::zero(), 11 * kMss);
    CHECK(r.cwnd() == kMss);
    CHECK(r.ssthresh() == 11 * kMss / 2);
    // A small loss window keeps 2 MSS.
    r.on_loss(Time::zero(), kMss);
    CHECK(r.cwnd() == 2 * kMss);
}

TEST_CASE("DCTCP: alpha follows the marked fraction with gain 1/16, and a marked window cuts cwnd by alpha / 2",
          "[congestion][tcp]") {
    Dctcp d(kMss, 10);
    d.load(TcpWindowState{100 * kMss, 50 * kMss, 0});  // congestion avoidance, alpha = 0
    CHECK(d.alpha() == 0);
    // The first ACK opens an observation window of cwnd bytes; alpha is folded at its end.
    // Every byte marked: F = 1, alpha = (1 - 1/16) * 0 + 1/16 = 64 / 1024 after the window.
    d.on_ack(Time::zero(), kMss, kMss, Time::zero());  // opens the window (alpha 0) and cuts: 100 * (1 - 0) = 100
    CHECK(d.cwnd() == 100 * kMss);
    for (int i = 0; i < 100; ++i) d.on_ack(Time::zero(), kMss, kMss, Time::zero());
    CHECK(d.alpha() == 64);
    // That ACK, in a new window with ECE, cut cwnd to 100 MSS x (1 - 64/2048) = 96.875 MSS.
    CHECK(d.cwnd() == 100 * kMss - 100 * kMss * 64 / 2048);
    // A window with one marked ACK in 100 (F = 10/1024 after rounding, which 1/16 of rounds to
    // nothing) decays alpha by 15/16: 64 -> 60.
    for (int i = 0; i < 200 && d.alpha() == 64; ++i) d.on_ack(Time::zero(), kMss, 0, Time::zero());
    CHECK(d.alpha() == 60);
}

TEST_CASE("CUBIC: beta = 0.7 on loss, and the cubic regains W_max K seconds after the epoch", "[congestion][tcp]") {
    CHECK(Cubic::cube_root(27.0) == Approx(3.0).epsilon(1e-12));
    CHECK(Cubic::cube_root(0.125) == Approx(0.5).epsilon(1e-12));
    Cubic c(kMss, 10);
    c.load(TcpWindowState{100 * kMss, 50 * kMss, 0});
    c.on_loss(Time::zero(), 100 * kMss);
    // ssthresh = cwnd = 0.7 x 100 MSS (RFC 8312 §4.5).
    CHECK(c.cwnd() == 70 * kMss);
    // The epoch starts at the first ACK after the cut (t = 0 here), at cwnd_0 = 70:
    // K = cbrt((W_max - cwnd_0) / C) = cbrt(30 / 0.4) = 4.217 s. Each RTT (K / 20) a window of
    // ACKs moves cwnd most of the way to W_cubic(t + RTT) = 0.4 (t + RTT - K)^3 + 100, which is
    // flat near W_max = 100 around t = K. Reno's estimate W_est = 70 + 0.53 t / RTT stays below
    // 81 over those 20 RTTs, so the cubic alone sets the window.
    const double k = std::cbrt(30.0 / 0.4);
    const Time rtt = Time::ps(static_cast<std::int64_t>(k * 1e12 / 20));
    c.on_ack(Time::zero(), kMss, 0, rtt);
    for (int i = 1; i <= 20; ++i) {
        const std::int64_t window = c.cwnd() / kMss;
        for (std::int64_t j = 0; j < window; ++j) c.on_ack(rtt * i, kMss, 0, rtt);
    }
    CHECK(static_cast<double>(c.cwnd()) / kMss == Approx(100.0).epsilon(0.02));
}
