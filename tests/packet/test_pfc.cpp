// PFC in the packet model (docs/models/pfc.md): a bottleneck shared by pausing its feeders,
// incast without loss, and loss when the headroom is set below the worst case.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using fabricsim::fabric::DirectedLink;

using namespace packet_test;

TEST_CASE("PFC two senders into one receiver: half the rate each and each paused half the time", "[packet][pfc]") {
    Model m(small_buffer_hosts(3), pfc_only());
    Simulator sim(1);
    Sink sink;
    const Bytes size = 32_MiB;
    two_to_one(m, sim, sink, size);
    REQUIRE(sink.at.size() == 2);
    const auto c = m.network.counters();
    CHECK(c.lossless_drops == 0);
    CHECK(c.pfc_pauses_sent > 0);
    const DirectedLink down = m.routing.path(RankId{0}, RankId{2})[2];
    const double two_s = transmit_time(size * 2, m.topology.link(down.link).payload_bandwidth()).seconds();
    for (std::uint32_t r : {0u, 1u}) {
        // 50 % ± 2 % of the bottleneck each: both finish at 2S / B.
        CHECK(sink.at[r].seconds() == Approx(two_s).epsilon(0.02));
        // Each sender's link is paused half of the time, ± 3 %.
        const double paused = m.network.paused_time(m.uplink(r)).seconds() / sink.at[r].seconds();
        CHECK(paused == Approx(0.5).margin(0.03));
        // The queue sits at XOFF: it rose past it (and paused) and never past XOFF + headroom,
        // XOFF at most 1/8 of the shared buffer (4 MB less 3 ports' headroom and reserve).
        const DirectedLink in = m.uplink(r);
        const Bytes reserved = scenario::MmuSpec{}.reserved_per_queue;
        const Bytes shared = 4_MB - (m.network.headroom(in) + reserved) * 3;
        CHECK(m.network.max_ingress(in) > reserved + shared / 16);
        CHECK(m.network.max_ingress(in) <= reserved + shared / 8 + m.network.headroom(in));
    }
}

TEST_CASE("PFC 32-to-1 incast loses nothing and holds every port within XOFF plus headroom", "[packet][pfc]") {
    Model m(small_buffer_hosts(33), pfc_only());
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s = 1; s <= 32; ++s) m.network.send(sim, msg(s - 1, s, 0, 2_MiB), sink);
    sim.run();
    const auto c = m.network.counters();
    CHECK(c.lossless_drops == 0);
    CHECK(c.pfc_pauses_sent >= 32);
    REQUIRE(sink.at.size() == 32);
    for (Time t : sink.at) CHECK(t != Time::max());
    CHECK(m.network.packets_in_flight() == 0);
    CHECK_NOTHROW(m.network.check_invariants(sim.now()));  // no lossless drop, bytes conserved
}

TEST_CASE("PFC with headroom below the worst case drops packets and counts them", "[packet][pfc]") {
    scenario::RoceSpec roce = pfc_only();
    roce.pfc.headroom = 1_KiB;  // less than one MTU frame: whatever is on the cable overflows
    Model m(small_buffer_hosts(33), roce);
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s = 1; s <= 32; ++s) m.network.send(sim, msg(s - 1, s, 0, 2_MiB), sink);
    sim.run();
    const auto c = m.network.counters();
    CHECK(c.lossless_drops > 0);
    CHECK(c.drops == c.lossless_drops);
    CHECK_THROWS_WITH(m.network.check_invariants(sim.now()),
                      Catch::Contains("dropped on the lossless class (PFC headroom or switch buffer too small)"));
}

TEST_CASE("PFC off: the same incast queues without bound and nothing pauses", "[packet][pfc]") {
    scenario::RoceSpec roce = pfc_only();
    roce.pfc.enabled = false;
    Model m(small_buffer_hosts(33), roce);
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s = 1; s <= 32; ++s) m.network.send(sim, msg(s - 1, s, 0, 2_MiB), sink);
    sim.run();
    const auto c = m.network.counters();
    CHECK(c.pfc_pauses_sent == 0);
    CHECK(c.max_queue > 16_MiB);  // most of the 64 MiB waits at the receiver's switch port
}

// The watchdog un-pauses a queue; at a NIC uplink under DCQCN the data waits in per-QP queues,
// not in the port's queue, so the port had to be woken there and then. It was not: the next
// event that pumped it (a later pause frame) back-dated the QPs' sends to before itself, and
// the run died with "internal error: event scheduled in the past" as soon as the watchdog fired
// (scenarios/roce-incast.yaml --set cluster.roce.pfc.watchdog=100us).
TEST_CASE("the PFC watchdog on a DCQCN-paced NIC uplink sends on from when it fires", "[packet][pfc][watchdog]") {
    scenario::RoceSpec roce;  // ECN and DCQCN on, as in roce-incast's dcqcn variant
    roce.pfc.watchdog = 100_us;
    Model m(small_buffer_hosts(17), roce);
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s = 1; s <= 16; ++s) m.network.send(sim, msg(s - 1, s, 0, 4_MiB), sink);
    REQUIRE_NOTHROW(sim.run());
    CHECK(m.network.watchdog_triggers() > 0);
    CHECK(m.network.packets_in_flight() == 0);
    // What the watchdog dropped on the lossless class is lost (the RC transport does not send
    // it again here), so a message that was not delivered lost a packet that way.
    std::size_t delivered = 0;
    for (Time t : sink.at) delivered += t != Time::max() ? 1 : 0;
    if (delivered < 16) CHECK(m.network.counters().lossless_drops > 0);
}
