// The RoCE NIC's receive buffer (pfc.cpp; docs/models/pfc.md, "The NIC's receive buffer"):
// packets from the fabric wait in it for PCIe, and it pauses its switch's port with PFC when
// it fills, as a switch ingress does.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using namespace packet_test;

namespace {

// Three hosts at 400G whose NICs sit on PCIe Gen4 x16: each host's PCIe carries less than the
// fabric port, so a 2-to-1 is limited by the receiver's PCIe.
scenario::ClusterSpec pcie_bound_hosts() {
    scenario::ClusterSpec c = hosts(3, 400_Gbps);
    c.server.nic.pcie_generation = 4;
    return c;
}

}  // namespace

TEST_CASE("a 2-to-1 into a host whose PCIe is the bottleneck: the NIC buffer stays bounded and pauses its leaf",
          "[packet][pfc][nic]") {
    const scenario::ClusterSpec c = pcie_bound_hosts();
    Model m(c, pfc_only());
    Simulator sim(1);
    Sink sink;
    const Bytes size = 32_MiB;
    two_to_one(m, sim, sink, size);
    REQUIRE(sink.at.size() == 2);
    const auto path = m.routing.path(RankId{0}, RankId{2});  // host0 > nic0 > leaf > nic2 > host2
    REQUIRE(path.size() == 4);
    const fabric::DirectedLink leaf_to_nic = path[2], nic_to_host = path[3];
    REQUIRE(m.topology.link(nic_to_host.link).type == fabric::LinkType::pcie);
    const Bandwidth pcie = m.topology.link(nic_to_host.link).payload_bandwidth();
    const Bandwidth fabric = m.topology.link(leaf_to_nic.link).payload_bandwidth();
    // The premise: the receiver's PCIe drains slower than its fabric port fills, and the two
    // senders (each at most its own PCIe rate, the same) together fill it faster than it drains.
    REQUIRE(pcie < fabric);
    REQUIRE(pcie * 2 > fabric);

    // The NIC holds at most its receive buffer: XOFF = buffer - headroom pauses the leaf's
    // port, and the headroom above XOFF takes what was on the way (mlx5 port_buffer.c).
    const Bytes buffer = c.server.nic.receive_buffer;
    CHECK(m.network.max_ingress(leaf_to_nic) <= buffer);
    CHECK(m.network.max_queued(nic_to_host) <= buffer);
    // It filled past XOFF (fills at fabric - pcie for as long as 2S / fabric at least), so it
    // paused the leaf's port toward it.
    CHECK(m.network.max_ingress(leaf_to_nic) > buffer - m.network.headroom(leaf_to_nic));
    CHECK(m.network.paused_time(leaf_to_nic) > Time::zero());
    CHECK(m.network.counters().pfc_pauses_sent > 0);
    CHECK(m.network.counters().lossless_drops == 0);

    // Still PCIe-bound: the receiver's PCIe link is busy from the first packet to the last, so
    // both messages end near 2S / (PCIe payload rate) (the pipeline's fill is microseconds
    // against milliseconds).
    const double expected = transmit_time(size * 2, pcie).seconds();
    CHECK(std::max(sink.at[0], sink.at[1]).seconds() == Approx(expected).epsilon(0.01));
    CHECK(m.network.bytes_sent(nic_to_host) == size * 2);
    CHECK_NOTHROW(m.network.check_invariants(sim.now()));
}

TEST_CASE("a NIC receive buffer smaller than its link's PFC headroom is an error naming the NIC",
          "[packet][pfc][nic]") {
    scenario::ClusterSpec c = pcie_bound_hosts();
    c.server.nic.receive_buffer = 16_KiB;  // 400G headroom alone is tens of KB (pfc_headroom)
    CHECK_THROWS_WITH(Model(c, pfc_only()), Catch::Contains("NIC s0.nic0: its receive buffer (16384 B)"));
}
