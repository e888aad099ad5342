// Congestion spreading (docs/models/packet.md): PFC pauses a whole link, so a victim flow that
// shares only its first link with an incast stalls with it; DCQCN slows the incast's QP
// instead and the victim keeps its rate (Zhu et al., SIGCOMM'15 §2: the unfairness and
// victim-flow problems that motivated DCQCN).
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using namespace packet_test;

namespace {

// 18 hosts at 100G on one switch with a 4 MB buffer. Hosts 1..16 each send 4 MiB to host 0;
// host 1 also sends 16 MiB to host 17 (the victim), which shares only host 1's uplink with
// the incast. Returns the victim's slowdown against the idle network.
double victim_slowdown(bool dcqcn) {
    scenario::ClusterSpec c = hosts(18);
    c.fabric.switch_spec.buffer = 4_MB;
    scenario::RoceSpec roce;
    roce.dcqcn.enabled = dcqcn;
    roce.ecn.enabled = dcqcn;
    Model model(c, roce);
    fabric::PacketNetwork& net = model.network;
    Simulator sim(1);
    Sink times;
    const Message victim = msg(16, 1, 17, 16_MiB, 1);  // its own QP
    net.send(sim, victim, times);
    for (std::uint32_t s = 1; s <= 16; ++s) net.send(sim, msg(s - 1, s, 0, 4_MiB), times);
    sim.run();
    REQUIRE(net.counters().lossless_drops == 0);
    REQUIRE(times.at.size() == 17);
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
