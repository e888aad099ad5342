// Credit flow control inside servers (credits.cpp): a NIC held by PFC stops taking data from
// PCIe once the link's credits are spent, so the backlog stays in the host, not in the NIC.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using namespace packet_test;

TEST_CASE("credits: a paused NIC holds at most the PCIe link's credit window and the host stalls", "[packet][credits]") {
    scenario::ClusterSpec c = hosts(3);
    c.fabric.switch_spec.buffer = 4_MB;  // XOFF reached soon: the senders' NICs get paused
    Model m(c, pfc_only());
    Simulator sim(1);
    Sink sink;
    const Bytes size = 32_MiB;
    m.network.send(sim, msg(0, 0, 2, size), sink);
    m.network.send(sim, msg(1, 1, 2, size), sink);
    sim.run();
    REQUIRE(sink.at.size() == 2);
    const auto counters = m.network.counters();
    CHECK(counters.pfc_pauses_sent > 0);
    CHECK(counters.credit_stall_time > Time::zero());
    for (std::uint32_t r : {0u, 1u}) {
        const auto path = m.routing.path(RankId{r}, RankId{2});
        // host -> NIC is PCIe (credited); the NIC's queue towards the switch never holds more
        // than the 4 x 64 KiB window the host could send it, though the port was paused.
        REQUIRE(m.topology.link(path[0].link).type == fabric::LinkType::pcie);
        CHECK(m.network.paused_time(path[1]) > Time::zero());
        CHECK(m.network.max_queued(path[1]) <= 4 * 64_KiB);
    }
    CHECK_NOTHROW(m.network.check_invariants(sim.now()));
}
