// The deadlock watchdog's window (deadlock.cpp, docs/models/packet.md): slow is not stuck.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using namespace packet_test;

// The watchdog once stopped any run in which no packet arrived anywhere for deadlock_timeout
// (10 ms by default): a 20 ms switch, a 4000 km cable (5 ns/m: 20 ms) or a 100 bit/s NIC
// (a 1000 B packet: 80 s on the wire) was "a PFC deadlock" with no cycle. Its window is now
// at least 4 slowest hops, and a lone message on such a network is delivered.
TEST_CASE("a slow network is not a deadlock: a 20 ms switch, a 4000 km cable, a 100 bit/s NIC",
          "[packet][pfc][deadlock]") {
    const int which = GENERATE(0, 1, 2);
    scenario::ClusterSpec c = hosts(2);
    if (which == 0) c.fabric.switch_spec.latency = 20_ms;
    if (which == 1) c.fabric.cable_length = Length::m(4'000'000);
    if (which == 2) c = hosts(2, 100_bps);
    scenario::RoceSpec roce = pfc_only();
    roce.pfc.headroom = 100_KB;  // a lone message never fills it (4000 km would ask for 1 GB)
    Model m(c, roce);
    INFO("case " << which);
    const Message one = msg(0, 0, 1, 1000_B);
    Time at;
    REQUIRE_NOTHROW(at = run_alone(m, one));
    CHECK(at == m.network.unloaded_time(one));
    // The window: 4 x (the largest packet on the slowest link + the largest propagation plus
    // forwarding latency). 20 ms switch: the delay term is 20 ms + 50 ns of cable; 4000 km:
    // 20 ms of cable + 500 ns of switch; the MTU on a 100G link is 0.34 us, so each window is
    // 80 ms and a little. 100 bit/s: a 4096 B MTU is 327.68 s before the link's framing
    // overhead, so the window is above 4 x 327.68 s.
    const Time window = m.network.deadlock_window();
    if (which < 2) {
        CHECK(window >= 80_ms);
        CHECK(window <= 80_ms + 4 * 2_us);
    } else {
        CHECK(window >= 4 * Time::ms(327'680));
    }
}
