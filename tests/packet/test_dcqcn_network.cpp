// DCQCN in the packet model (docs/models/packet.md, docs/models/dcqcn.md): ECN marks at the
// switch, CNPs from the receiving NIC, per-QP pacing at the sender.
#include <catch2/catch.hpp>

#include "core/simulator.hpp"
#include "fabric/packet/packet_network.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology_builder.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using fabric::DirectedLink;

namespace {

struct Sink final : DeliveryListener {
    void on_delivered(Simulator&, MessageId) override {}
};

}  // namespace

TEST_CASE("DCQCN two long flows on one 100G bottleneck share it within 10 percent with the queue between Kmin and Kmax",
          "[packet][dcqcn]") {
    scenario::ClusterSpec c;
    c.servers = 3;
    c.server.gpus = 0;
    c.server.nics = 1;
    c.server.nic.line_rate = 100_Gbps;
    c.fabric.topology = scenario::TopologyKind::single_switch;
    c.fabric.switch_spec.port_speed = 100_Gbps;
    c.fabric.switch_spec.latency = 500_ns;
    c.fabric.cable_length = Length::m(10);
    const auto topology = fabric::build_topology(c);
    const fabric::Routing routing(topology, c.fabric.routing, c.fabric.technology, 1);
    fabric::PacketNetwork net(topology, routing, fabric::PacketModelSpec{c.fabric.mtu, 64_KiB, c.fabric.technology, {}});
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s : {0u, 1u}) {
        Message m;
        m.id = MessageId{s};
        m.src = RankId{s};
        m.dst = RankId{2};
        m.size = Bytes{400'000'000};
        net.send(sim, m, sink);
    }
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
