// DCQCN in the packet model (docs/models/packet.md, docs/models/dcqcn.md): ECN marks at the
// switch, CNPs from the receiving NIC, per-QP pacing at the sender.
#include <catch2/catch.hpp>

#include "iwarp_fixtures.hpp"
#include "packet_fixtures.hpp"

using fabricsim::fabric::DirectedLink;
using namespace packet_test;

TEST_CASE("DCQCN two long flows on one 100G bottleneck share it within 10 percent with the queue between Kmin and Kmax",
          "[packet][dcqcn]") {
    Model m(hosts(3), scenario::RoceSpec{});  // the defaults: PFC, ECN auto, DCQCN nic
    const fabric::Topology& topology = m.topology;
    const fabric::Routing& routing = m.routing;
    fabric::PacketNetwork& net = m.network;
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s : {0u, 1u}) net.send(sim, msg(s, s, 2, Bytes{400'000'000}), sink);
    const DirectedLink up[2] = {routing.path(RankId{0}, RankId{2})[1], routing.path(RankId{1}, RankId{2})[1]};
    const DirectedLink down = routing.path(RankId{0}, RankId{2})[2];
    const double capacity = static_cast<double>(topology.link(down.link).payload_bandwidth().bits_per_second());
    // Both start at line rate; the first cuts come within microseconds and the NIC preset's
    // AIMD (cuts by α/2 of the rate, equal additive steps) shrinks the gap between the flows
    // at every cut. Measured: within 10 % of each other from about 3 ms (ten rate-increase
    // periods of 300 µs); checked in 2 ms windows from 4 ms to 20 ms.
    sim.run(4_ms);
    Bytes before[2] = {net.bytes_sent(up[0]), net.bytes_sent(up[1])};
    for (int w = 0; w < 8; ++w) {
        sim.run(4_ms + 2_ms * (w + 1));
        double rate[2];
        for (int i = 0; i < 2; ++i) {
            const Bytes now = net.bytes_sent(up[i]);
            rate[i] = static_cast<double>((now - before[i]).count()) * 8 / 2e-3;
            before[i] = now;
        }
        const double fair = (rate[0] + rate[1]) / 2;
        CHECK(rate[0] == Approx(fair).epsilon(0.10));
        CHECK(rate[1] == Approx(fair).epsilon(0.10));
        CHECK(rate[0] + rate[1] > 0.85 * capacity);  // the bottleneck stays busy
    }
    sim.run();
    const auto counters = net.counters();
    CHECK(counters.ecn_marks > 0);
    CHECK(counters.cnps > 0);
    CHECK(counters.pfc_pauses_sent == 0);  // ECN acts below XOFF
    CHECK(counters.lossless_drops == 0);
    // The queue stays in the marking region: above Kmin (400 KB at 100G) and at most Kmax (1600 KB).
    CHECK(counters.max_queue > scenario::ecn_kmin_auto(100_Gbps));
    CHECK(counters.max_queue <= scenario::ecn_kmax_auto(100_Gbps));
}

TEST_CASE("the NIC pulls a QP's data a window ahead: packets alive stay bounded whatever the message size",
          "[packet][dcqcn]") {
    // Two 20 MB messages into one 100G port: DCQCN slows both QPs to half the line while the
    // hosts' PCIe could feed them at full speed. Without the pull window every packet of both
    // messages would sit in its QP (2 × 4883 at 4 KiB); with it, a QP holds at most 64 and the
    // rest are those on the wires and in the switch queue (Kmax at 100G: 1.6 MB, 391 packets).
    // Measured: 396 (9171 with the QPs taking whole messages).
    Model m(hosts(3), scenario::RoceSpec{});
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s : {0u, 1u}) m.network.send(sim, msg(s, s, 2, Bytes{20'000'000}), sink);
    sim.run();
    REQUIRE(sink.at.size() == 2);
    CHECK(m.network.counters().lossless_drops == 0);
    INFO("peak packets alive: " << m.network.peak_packets());
    CHECK(m.network.peak_packets() < 2 * 64 + 391 + 200);
}

TEST_CASE(
    "DCQCN timers without events: an incast paced by timer steps run as each input comes ends as with timer events",
    "[packet][dcqcn]") {
    // A 4-to-1 incast of 2 MB messages cuts every sender's rate (CNPs), after which DCQCN's
    // α update is due every microsecond until α settles. With rate samples on, each due step
    // is a timer event of the NIC; without, the QP applies the steps due by each input when
    // it comes and by each packet it paces (NicScheduler::sent). The CongestionControl
    // contract makes both the same state at every packet, so every delivery time, mark and
    // CNP must agree, and the run without timer events must have fewer events.
    struct Run {
        std::vector<Time> at;
        FabricCounters counters;
        std::uint64_t events = 0;
    };
    auto run = [](Time sample_interval) {
        const scenario::ClusterSpec c = hosts(5);
        fabric::PacketModelSpec spec = model_spec(c, scenario::RoceSpec{});
        spec.qp_rate_interval = sample_interval;
        Model m(c, spec);
        Simulator sim(1);
        Sink sink;
        for (std::uint32_t s = 0; s < 4; ++s) m.network.send(sim, msg(s, s, 4, Bytes{2'000'000}), sink);
        sim.run();
        return Run{sink.at, m.network.counters(), sim.cost().events};
    };
    const Run timed = run(1_ns);
    const Run lazy = run(Time::zero());
    REQUIRE(timed.at.size() == 4);
    CHECK(timed.counters.cnps > 0);  // the rates were cut: the timers had steps to take
    CHECK(lazy.at == timed.at);
    CHECK(lazy.counters.cnps == timed.counters.cnps);
    CHECK(lazy.counters.ecn_marks == timed.counters.ecn_marks);
    CHECK(lazy.counters.packet_hops == timed.counters.packet_hops);
    CHECK(lazy.events < timed.events);
}

TEST_CASE("ECN: switches mark no segment of an iWARP engine that is not DCTCP, queue above Kmin or not",
          "[packet][dcqcn][iwarp]") {
    // Only DCTCP's segments are ECN-capable; a switch never marks a Not-ECT packet (RFC 3168
    // §5). Two NewReno flows of 20 MB into one 100G port with ECN configured at K = 2 segments:
    // the queue passes K (the slow start alone doubles the window past it), and nothing is marked.
    using namespace iwarp_test;
    const scenario::IwarpSpec iw = with_cc(scenario::TcpCongestion::newreno);
    const scenario::ClusterSpec c = iwarp_hosts(3, iw);
    Model m(c, iwarp_spec(c, iw, Bytes{2 * 9038}));
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s = 0; s < 2; ++s) m.network.send(sim, msg(s, s, 2, Bytes{20'000'000}), sink);
    sim.run();
    REQUIRE(sink.at.size() == 2);
    CHECK(m.network.max_queued(m.routing.path(RankId{0}, RankId{2})[2]) > Bytes{2 * 9038});
    CHECK(m.network.counters().ecn_marks == 0);
}
