// Credit flow control inside servers (credits.cpp). A NIC uplink reads each QP's data from
// memory when it schedules it (roce_nic.cpp, "NIC pull"), with or without DCQCN: a NIC held
// by PFC takes no PCIe credits for what waits in its QPs, and the host waits on the QPs' pull
// windows instead.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using namespace packet_test;

TEST_CASE("credits: a paused NIC holds its QPs' pull windows, not PCIe credits, and the host waits",
          "[packet][credits]") {
    Model m(small_buffer_hosts(3), pfc_only());  // XOFF reached soon: the senders' NICs get paused
    Simulator sim(1);
    Sink sink;
    two_to_one(m, sim, sink, 32_MiB);
    REQUIRE(sink.at.size() == 2);
    const auto counters = m.network.counters();
    CHECK(counters.pfc_pauses_sent > 0);
    // The NIC takes every packet off PCIe as it arrives (into its QP): no PCIe link waits for
    // credits, though the NICs were paused.
    CHECK(counters.credit_stall_time == Time::zero());
    for (std::uint32_t r : {0u, 1u}) {
        const auto path = m.routing.path(RankId{r}, RankId{2});
        REQUIRE(m.topology.link(path[0].link).type == fabric::LinkType::pcie);
        CHECK(m.network.paused_time(path[1]) > Time::zero());
        // The port's own FIFO carries control frames only: data waits in the QPs.
        CHECK(m.network.max_queued(path[1]) <= 4 * 64_KiB);
    }
    // Packets alive: at most each sender's QP window (64 packets of 4 KiB), the switch's 4 MB
    // (977 packets), the receiving NIC's 1 MiB buffer (256) and a few hundred on the wires and
    // PCIe, against the 2 x 8192 packets of the two messages.
    INFO("peak packets alive: " << m.network.peak_packets());
    CHECK(m.network.peak_packets() < 2 * 64 + 977 + 256 + 300);
    CHECK_NOTHROW(m.network.check_invariants(sim.now()));
}

// A segment below 1 KiB once gave the PCIe link 4 x segment < 4 KiB of credits, less than the
// 4 KiB MTU packet of a fabric message crossing it: the first packet waited for ever and the
// watchdog called it a PFC deadlock (lossy mode: go-back-N until time overflowed). Credits
// now cover kCreditSegments of the largest packet, so the segment, which only cuts messages
// inside a server, cannot change a fabric message's time: the idle pipeline's closed form.
TEST_CASE("credits: a segment below the MTU leaves a fabric message's time unchanged", "[packet][credits]") {
    const bool lossless = GENERATE(true, false);
    const Bytes segment = GENERATE(64_B, 512_B, 1_KiB, 64_KiB);
    scenario::ClusterSpec c = hosts(2);
    scenario::RoceSpec roce = pfc_only();
    roce.lossless = lossless;
    fabric::PacketModelSpec spec = model_spec(c, roce);
    spec.segment = segment;
    Model m(c, spec);
    const Message one = msg(0, 0, 1, 1_MiB);
    INFO("segment " << segment.count() << " B, lossless " << lossless);
    CHECK(run_alone(m, one) == m.network.unloaded_time(one));
}
