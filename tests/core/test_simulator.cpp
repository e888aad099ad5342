#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/simulator.hpp"

#include <array>
#include <atomic>
#include <limits>
#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::literals;

namespace {
// Records (time, arg) of every event; arg 100+k schedules k more events 1 ns apart.
struct Recorder final : EventTarget {
    std::vector<std::pair<Time, std::uint64_t>> seen;
    void on_event(Simulator& sim, std::uint64_t arg) override {
        seen.emplace_back(sim.now(), arg);
        if (arg >= 100)
            for (std::uint64_t k = 1; k <= arg - 100; ++k) sim.after(Time::ns(static_cast<std::int64_t>(k)), *this, k);
    }
};
struct Stopper final : EventTarget {
    void on_event(Simulator& sim, std::uint64_t) override { sim.stop(); }
};
}  // namespace

TEST_CASE("the simulator runs events in time order and advances the clock", "[simulator]") {
    Simulator sim(1);
    Recorder r;
    sim.at(5_ns, r, 1);
    sim.at(1_ns, r, 2);
    sim.at(1_ns, r, 3);  // same time: after the earlier-scheduled one
    sim.at(2_ns, r, 103);
    CHECK(sim.run() == RunEnd::idle);
    const std::vector<std::pair<Time, std::uint64_t>> want{{1_ns, 2}, {1_ns, 3}, {2_ns, 103}, {3_ns, 1},
                                                           {4_ns, 2}, {5_ns, 1}, {5_ns, 3}};
    CHECK(r.seen == want);
    CHECK(sim.now() == 5_ns);
    CHECK(sim.cost().events == 7);
}

TEST_CASE("a prefetch hint names the element of each array its kind of event selects", "[simulator]") {
    // An event kind in the low 4 bits, a 32-bit index of 32-byte records above it and a
    // 28-bit index of 128-byte records above that (the packet model's arrival).
    static const std::array<char, 4096> records{};
    static const std::array<char, 8192> ports{};
    PrefetchHint hint;
    CHECK_FALSE(hint.matches(0));  // the default names no event
    CHECK_FALSE(hint.matches(5));
    hint.kind_mask = 15;
    hint.kind = 2;
    hint.set_array(0, records.data(), 4, UINT32_MAX, 5);
    hint.set_array(1, ports.data(), 36, UINT64_MAX, 7);
    const std::uint64_t arg = (std::uint64_t{7} << 36) | (std::uint64_t{100} << 4) | 2;
    REQUIRE(hint.matches(arg));
    CHECK_FALSE(hint.matches(arg + 1));  // another kind
    CHECK(hint.address(0, arg) == records.data() + 100 * 32);
    CHECK(hint.address(1, arg) == ports.data() + 7 * 128);
    hint.base[1] = nullptr;
    CHECK(hint.address(1, arg) == nullptr);
}

TEST_CASE("post() runs with at() in (time, scheduling) order and needs no slot", "[simulator]") {
    Simulator sim(1);
    Recorder r;
    sim.post(2_ns, r, 1);
    const EventHandle h = sim.at(1_ns, r, 2);
    sim.post(1_ns, r, 3);
    sim.at(2_ns, r, 4);
    sim.post(1_ns, r, 5);
    CHECK(sim.pending() == 5);
    CHECK(sim.cancel(h));
    CHECK(sim.pending() == 4);
    CHECK(sim.run() == RunEnd::idle);
    const std::vector<std::pair<Time, std::uint64_t>> want{{1_ns, 3}, {1_ns, 5}, {2_ns, 1}, {2_ns, 4}};
    CHECK(r.seen == want);
    CHECK_THROWS_AS(sim.post(1_ns, r, 6), InternalError);  // before the clock, as at() refuses
}

TEST_CASE("run(stop) stops the clock at the stop time and leaves later events pending", "[simulator]") {
    Simulator sim(1);
    Recorder r;
    sim.at(1_us, r, 1);
    sim.at(3_us, r, 2);
    CHECK(sim.run(2_us) == RunEnd::stop_time);
    CHECK(sim.now() == 2_us);
    CHECK(r.seen.size() == 1);
    CHECK(sim.pending() == 1);
    CHECK(sim.run() == RunEnd::idle);
    CHECK(sim.now() == 3_us);
}

TEST_CASE("stop() from an event ends the run after that event", "[simulator]") {
    Simulator sim(1);
    Recorder r;
    Stopper s;
    sim.at(1_us, s);
    sim.at(2_us, r, 1);
    CHECK(sim.run() == RunEnd::stopped);
    CHECK(sim.now() == 1_us);
    CHECK(r.seen.empty());
}

namespace {
// Sets the watched flag from inside the loop, as a signal arriving during an event would.
struct FlagSetter final : EventTarget {
    std::atomic<int>* flag = nullptr;
    void on_event(Simulator&, std::uint64_t) override { flag->store(2); }
};
}  // namespace

TEST_CASE("a watched interrupt flag ends the run before the next event, clock where it was", "[simulator]") {
    Simulator sim(1);
    std::atomic<int> flag{0};
    sim.watch_interrupt(&flag);
    Recorder r;
    FlagSetter setter;
    setter.flag = &flag;
    sim.at(1_us, r, 1);
    sim.at(2_us, setter);
    sim.at(3_us, r, 2);
    CHECK(sim.run() == RunEnd::interrupted);
    CHECK(sim.now() == 2_us);
    CHECK(r.seen.size() == 1);
    CHECK(sim.pending() == 1);
    flag.store(0);  // cleared: the run goes on from where it stopped
    CHECK(sim.run() == RunEnd::idle);
    CHECK(r.seen.size() == 2);
}

TEST_CASE("scheduling in the past is an internal error, and cancel removes an event", "[simulator]") {
    Simulator sim(1);
    Recorder r;
    sim.at(2_us, r, 1);
    const EventHandle h = sim.at(3_us, r, 2);
    sim.run(2_us);
    CHECK_THROWS_AS(sim.at(1_us, r, 9), InternalError);
    CHECK(sim.cancel(h));
    sim.run();
    CHECK(r.seen.size() == 1);
    CHECK(sim.now() == 2_us);
}

TEST_CASE("an event at a negative time is a wrapped sum of times: a model error that says so", "[simulator]") {
    Simulator sim(1);
    Recorder r;
    sim.at(2_us, r, 1);
    sim.run();
    // 2 us + (2^63 - 1 ps) wraps to -2^63 ps + 2 us - 1 ps: what "event scheduled in the past:
    // at -9223372.036854775808s" used to report as a bug.
    const Time wrapped = Time::ps(std::numeric_limits<std::int64_t>::min()) + (2_us - 1_ps);
    CHECK_THROWS_AS(sim.at(wrapped, r, 9), ModelError);
    CHECK_THROWS_WITH(sim.at(wrapped, r, 9), Catch::Contains("passed the end of simulated time"));
}

TEST_CASE("named RNG streams are stable references derived from the seed", "[simulator]") {
    Simulator a(5), b(5);
    Rng& ra = a.rng("ecmp");
    CHECK(&ra == &a.rng("ecmp"));
    CHECK(ra.next_u64() == b.rng("ecmp").next_u64());
    CHECK(a.rng("x").next_u64() != a.rng("y").next_u64());
}

TEST_CASE("the cost record counts events and reads peak RSS", "[simulator]") {
    Simulator sim(1);
    Recorder r;
    for (int i = 0; i < 1000; ++i) sim.at(Time::ns(i), r, 1);
    sim.run();
    const RunCost c = sim.cost();
    CHECK(c.events == 1000);
    CHECK(c.simulated == 999_ns);
    CHECK(c.peak_rss_bytes > 1'000'000);  // any process holds more than 1 MB
}
