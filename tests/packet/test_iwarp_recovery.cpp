// iWARP loss recovery (docs/models/iwarp.md, "Loss recovery"): one segment lost on the wire,
// either with segments behind it (SACK-driven fast retransmit, no timeout) or as the
// message's tail (nothing reveals it: one retransmission timeout), and incast on a shallow
// buffer.
#include <catch2/catch.hpp>

#include "iwarp_fixtures.hpp"

#include <algorithm>

using namespace iwarp_test;
using fabricsim::fabric::DirectedLink;

namespace {

// Takes `link` down and up again just after the sender has started segment `k` on it: with no
// switch latency a packet is on the link for its transmission time t plus the cable's 50 ns,
// and the port commits segment k no later than the moment k - 1 has left it (k - 1 has then
// arrived 50 ns later). Polled every 20 ns, the cut 60 ns after k is seen started finds k - 1
// in and k still being sent (t = 723 ns): exactly k is lost (the NIC holds what it has not sent).
struct CutSegment final : EventTarget {
    CutSegment(fabric::PacketNetwork& n, DirectedLink l, Bytes before) : net(n), link(l), started(before) {}
    void on_event(Simulator& sim, std::uint64_t arg) override {
        if (arg == 1) {
            net.set_link_up(sim, link.link, false);
            net.set_link_up(sim, link.link, true);
            cut_at = sim.now();
            return;
        }
        if (net.bytes_sent(link) > started) {  // segment k is on the wire
            sim.after(60_ns, *this, 1);
            return;
        }
        if (sim.now() < 1_ms) sim.after(20_ns, *this);
    }
    fabric::PacketNetwork& net;
    DirectedLink link;
    Bytes started;
    Time cut_at = Time::max();
};

struct OneLoss {
    OneLoss(std::uint64_t segments, std::uint64_t lost, Time min_rto) {
        iw = with_cc(scenario::TcpCongestion::newreno, min_rto);
        scenario::ClusterSpec c = iwarp_hosts(2, iw);
        c.fabric.switch_spec.latency = Time::zero();
        model = std::make_unique<Model>(c, iwarp_spec(c, iw));
        payload = scenario::iwarp_segment_payload(iw);
        const DirectedLink up = model->uplink(1);
        CutSegment cut(model->network, up, payload * static_cast<std::int64_t>(lost));
        sim.at(Time::zero(), cut);
        model->network.send(sim, msg(0, 1, 0, payload * static_cast<std::int64_t>(segments)), sink);
        sim.run();
        cut_at = cut.cut_at;
        model->network.check_invariants(sim.now());
        Model fresh(c, iwarp_spec(c, iw));
        alone = run_alone(fresh, msg(0, 1, 0, payload * static_cast<std::int64_t>(segments)));
    }
    scenario::IwarpSpec iw;
    std::unique_ptr<Model> model;
    Bytes payload;
    Simulator sim{1};
    Sink sink;
    Time cut_at, alone;
};

}  // namespace

TEST_CASE("iwarp: a segment lost with three or more behind it is sent again by fast retransmit, no timeout",
          "[packet][iwarp]") {
    // 20 segments, the 6th (seq 5) lost: 14 segments follow it, each SACKed on arrival; the
    // third SACK marks it lost (RFC 6675 IsLost, DupThresh 3) and it goes again at once.
    OneLoss run(20, 5, 200_ms);
    REQUIRE(run.cut_at != Time::max());
    REQUIRE(run.sink.at.size() == 1);
    const auto& net = run.model->network;
    CHECK(net.fault_losses(run.model->uplink(1).link) >= 1);  // the segment, and perhaps an ACK coming back
    CHECK(net.retransmitted() == 1);
    CHECK(net.timeouts() == 0);
    // Far below the 200 ms timeout: the loss costs about a round trip.
    CHECK(run.sink.at[0] < run.alone + 100_us);
}

TEST_CASE("iwarp: an isolated tail drop costs one retransmission timeout", "[packet][iwarp]") {
    // 20 segments, the last lost: no segment follows it to be SACKed, so nothing marks it
    // lost before the timer (RTO = max(min_rto, SRTT + 4 RTTVAR) = min_rto, the RTT being a
    // few microseconds) fires, min_rto after the last ACK that acknowledged new data.
    const Time min_rto = 1_ms;
    OneLoss run(20, 19, min_rto);
    REQUIRE(run.sink.at.size() == 1);
    const auto& net = run.model->network;
    // Segment 18 arrived in order but waits for its delayed ACK (ack_every 2: segments 16 and 17
    // were the last pair acknowledged), so at the timeout una = 18 and both 18 and 19 are
    // unacknowledged: cwnd falls to one segment, 18 goes again, its duplicate is acknowledged at
    // once (cumulative 19), and 19 follows. Two segments sent again, one timeout.
    CHECK(net.retransmitted() == 2);
    CHECK(net.timeouts() == 1);
    // The last ACK came before the cut plus a round trip; the timer then waits min_rto and the
    // segment crosses the idle path once more (under the whole message's unloaded time).
    CHECK(run.sink.at[0] >= run.cut_at + min_rto - 20_us);
    CHECK(run.sink.at[0] <= run.cut_at + min_rto + run.alone);
}

TEST_CASE("iwarp: incast of 32 on a shallow buffer drops, retransmits and still delivers every byte",
          "[packet][iwarp]") {
    const scenario::IwarpSpec iw = with_cc(scenario::TcpCongestion::newreno, 1_ms);
    const scenario::ClusterSpec c = iwarp_hosts(33, iw, 2_MB);
    Model m(c, iwarp_spec(c, iw));
    Simulator sim(1);
    Sink sink;
    const Bytes size = 1_MiB;
    for (std::uint32_t s = 1; s <= 32; ++s) m.network.send(sim, msg(s - 1, s, 0, size), sink);
    sim.run();
    m.network.check_invariants(sim.now());  // no lossless class: drops break nothing
    REQUIRE(sink.at.size() == 32);
    for (Time t : sink.at) CHECK(t != Time::max());
    const auto counters = m.network.counters();
    INFO("drops " << counters.drops << ", sent again " << m.network.retransmitted() << ", timeouts "
                  << m.network.timeouts() << ", last FCT " << std::ranges::max(sink.at).seconds() * 1e3 << " ms");
    // 32 initial windows of 10 jumbo segments (2.9 MB) meet a 2 MB buffer whose dynamic
    // threshold admits at most 8 B / 9 (about 1.8 MB) into the receiver's egress queue: the
    // first round trip drops.
    CHECK(counters.drops > 0);
    CHECK(counters.lossless_drops == 0);
    CHECK(m.network.retransmitted() >= counters.drops);
    // The receiver's link carries 32 MiB at 100G x 8928/9038 at best.
    const Time floor = transmit_time(size * 32, Bandwidth::bps(static_cast<std::int64_t>(100e9 * 8928.0 / 9038.0)));
    CHECK(std::ranges::max(sink.at) >= floor);
}
