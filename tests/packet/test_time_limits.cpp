// Times near the end of simulated time in the packet model (core/time_limits.hpp): delays and
// timers from the input can each fit int64 picoseconds and still add up past it. A plain sum
// wrapped to a time far in the past ("internal error: event scheduled in the past: at
// -9223372.036854775808s"); now a timer past the end never fires and an event that must
// happen past it is a ModelError that says so.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "packet_fixtures.hpp"

using namespace packet_test;

TEST_CASE("a forwarding latency that puts the next hop past the end of time is a model error", "[packet][limits]") {
    scenario::ClusterSpec c = hosts(2);
    c.fabric.switch_spec.latency = Time::max() - 10_ns;  // plus 50 ns of cable: past the end
    const auto build_and_run = [&] {
        Model m(c, pfc_only());
        run_alone(m, msg(0, 0, 1, 1000_B));
    };
    CHECK_THROWS_AS(build_and_run(), ModelError);
    CHECK_THROWS_WITH(build_and_run(), Catch::Contains("propagation delay plus the next node's forwarding latency") &&
                                           Catch::Contains("passes the end of simulated time"));
}

TEST_CASE("a PFC watchdog of the largest Time never fires: an incast runs as without one", "[packet][limits][pfc]") {
    // Two senders into one receiver pause each other's uplinks (test_pfc.cpp); the watchdog
    // would be due at the pause time + 2^63 - 1 ps, which wrapped into the past.
    scenario::RoceSpec roce = pfc_only();
    roce.pfc.watchdog = Time::max();
    Model m(small_buffer_hosts(3), roce);
    Simulator sim(1);
    Sink sink;
    REQUIRE_NOTHROW(two_to_one(m, sim, sink, 32_MiB));
    REQUIRE(sink.at.size() == 2);
    CHECK(m.network.counters().pfc_pauses_sent > 0);
    CHECK(m.network.watchdog_triggers() == 0);
    CHECK(m.network.counters().lossless_drops == 0);
}

TEST_CASE("a retransmission timeout of the largest Time never fires", "[packet][limits][transport]") {
    scenario::RoceSpec roce = pfc_only();
    roce.lossless = false;  // lossy mode: every message arms its timeout
    roce.retransmit_timeout = Time::max();
    Model m(hosts(2), roce);
    const Message one = msg(0, 0, 1, 64_KiB);
    CHECK(run_alone(m, one) == m.network.unloaded_time(one));
    CHECK(m.network.timeouts() == 0);
}
