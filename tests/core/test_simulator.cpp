#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/simulator.hpp"

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

namespace {
// Logs what it is told is coming (prefetch) and what then runs (on_event), in one list.
struct Hinted final : EventTarget {
    mutable std::vector<std::string> log;
    void on_event(Simulator&, std::uint64_t arg) override { log.push_back("run " + std::to_string(arg)); }
    void prefetch(std::uint64_t arg) const override { log.push_back("hint " + std::to_string(arg)); }
};
}  // namespace

TEST_CASE("the event loop hints an event's target one event ahead, never about a cancelled one", "[simulator]") {
    Simulator sim(1);
    Hinted h;
    for (std::int64_t k = 1; k <= 6; ++k) sim.at(Time::ns(k), h, static_cast<std::uint64_t>(k));
    const EventHandle dead = sim.at(Time::ns(4) + 1_ps, h, 99);
    REQUIRE(sim.cancel(dead));
    sim.run();
    std::vector<std::string> runs;
    int hints = 0;
    for (std::size_t i = 0; i < h.log.size(); ++i) {
        if (h.log[i].rfind("run ", 0) == 0) {
            runs.push_back(h.log[i]);
            continue;
        }
        ++hints;
        CHECK(h.log[i] != "hint 99");
        // The loop pops an event, names the next, runs the popped one: "hint k" is followed
        // by the popped event's run, then by the run of k.
        std::size_t j = i + 1, seen = 0;
        for (; j < h.log.size(); ++j)
            if (h.log[j].rfind("run ", 0) == 0 && ++seen == 2) break;
        REQUIRE(j < h.log.size());
        CHECK(h.log[j] == "run " + h.log[i].substr(5));
    }
    CHECK(runs == std::vector<std::string>{"run 1", "run 2", "run 3", "run 4", "run 5", "run 6"});
    CHECK(hints >= 1);
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
