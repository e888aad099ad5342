// DCQCN in the packet model (docs/models/packet.md, docs/models/dcqcn.md): ECN marks at the
// switch, CNPs from the receiving NIC, per-QP pacing at the sender.
#include <catch2/catch.hpp>

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
