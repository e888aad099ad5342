// Congestion spreading (docs/models/packet.md): PFC pauses a whole link, so a victim flow that
// shares only its first link with an incast stalls with it; DCQCN slows the incast's QP
// instead and the victim keeps its rate (Zhu et al., SIGCOMM'15 §2: the unfairness and
// victim-flow problems that motivated DCQCN).
#include <catch2/catch.hpp>

#include "core/simulator.hpp"
#include "fabric/packet/packet_network.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology_builder.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;

namespace {

struct Times final : DeliveryListener {
    std::vector<Time> at = std::vector<Time>(32, Time::max());
    void on_delivered(Simulator& sim, MessageId id) override { at[id.value()] = sim.now(); }
};

// 18 hosts at 100G on one switch with a 4 MB buffer. Hosts 1..16 each send 4 MiB to host 0;
// host 1 also sends 16 MiB to host 17 (the victim), which shares only host 1's uplink with
// the incast. Returns the victim's slowdown against the idle network.
double victim_slowdown(bool dcqcn) {
    scenario::ClusterSpec c;
    c.servers = 18;
    c.server.gpus = 0;
    c.server.nics = 1;
    c.server.nic.line_rate = 100_Gbps;
    c.fabric.topology = scenario::TopologyKind::single_switch;
    c.fabric.switch_spec.port_speed = 100_Gbps;
    c.fabric.switch_spec.latency = 500_ns;
    c.fabric.switch_spec.buffer = 4_MB;
    scenario::RoceSpec roce;
    roce.dcqcn.enabled = dcqcn;
    roce.ecn.enabled = dcqcn;
    const auto topology = fabric::build_topology(c);
    const fabric::Routing routing(topology, c.fabric.routing, c.fabric.technology, 1);
    fabric::PacketNetwork net(topology, routing, fabric::PacketModelSpec{c.fabric.mtu, 64_KiB, c.fabric.technology, roce});
    Simulator sim(1);
    Times times;
    Message victim;
    victim.id = MessageId{16};
    victim.src = RankId{1};
    victim.dst = RankId{17};
    victim.size = 16_MiB;
    victim.flow_hint = 1;  // its own QP
    net.send(sim, victim, times);
    for (std::uint32_t s = 1; s <= 16; ++s) {
        Message m;
        m.id = MessageId{s - 1};
        m.src = RankId{s};
        m.dst = RankId{0};
        m.size = 4_MiB;
        net.send(sim, m, times);
    }
    sim.run();
    REQUIRE(net.counters().lossless_drops == 0);
    REQUIRE(times.at[16] != Time::max());
    return times.at[16].seconds() / net.unloaded_time(victim).seconds();
}

}  // namespace

TEST_CASE("congestion spreading: PFC stalls a victim that shares only a link with an incast and DCQCN frees it",
          "[packet][pfc][dcqcn]") {
    const double pfc_only = victim_slowdown(false);
    const double with_dcqcn = victim_slowdown(true);
    INFO("victim slowdown: PFC alone " << pfc_only << ", with DCQCN " << with_dcqcn);
    // Alone the victim needs 16 MiB / 100G ≈ 1.37 ms. Under PFC alone its packets wait behind
    // the incast's at host 1's paused uplink: the uplink drains at the incast's share of host
    // 0's port, 1/16, until host 1's 4 MiB incast flow is through.
    CHECK(pfc_only > 2.0);
    // With DCQCN the incast QP is cut and the victim's QP keeps most of the uplink.
    CHECK(with_dcqcn < 1.5);
    CHECK(with_dcqcn < pfc_only / 1.5);
}
