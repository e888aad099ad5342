// The simulator: the event queue, the clock, named random streams, the metrics registry and
// the run's own cost. Passed by reference to whatever needs it; never global (docs/ARCHITECTURE.md).
//
//   Simulator sim(seed);
//   sim.at(t, target, arg);        // target.on_event(sim, arg) runs at time t
//   sim.post(t, target, arg);      // the same, for an event that is never cancelled
//   sim.run();                     // until no event is left (or until a stop time)
#pragma once

#include "core/event_queue.hpp"
#include "core/metrics.hpp"
#include "core/rng.hpp"
#include "core/units.hpp"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace fabricsim {

// What a run cost: the figures docs/BENCHMARKS.md asks every benchmark to report.
struct RunCost {
    std::uint64_t events = 0;
    double wall_s = 0;
    double events_per_s = 0;
    std::int64_t peak_rss_bytes = 0;
    Time simulated = Time::zero();
};

// Called from the event loop every few thousand events (never per event) so a front end can
// draw progress; the loop passes the simulated time and the events so far.
class ProgressObserver {
public:
    virtual void on_progress(Time now, std::uint64_t events) = 0;

protected:
    ~ProgressObserver() = default;
};

// Why run() returned: no event left, the next one beyond the stop time, stop() called from an
// event, or the watched interrupt flag set (a signal; see watch_interrupt()).
enum class RunEnd { idle, stop_time, stopped, interrupted };

class Simulator {
public:
    explicit Simulator(std::uint64_t seed);

    Time now() const { return now_; }
    std::uint64_t seed() const { return seed_; }

    // Schedules target.on_event(sim, arg) at `time` >= now() (InternalError otherwise).
    EventHandle at(Time time, EventTarget& target, std::uint64_t arg = 0) {
        if (time < now_) [[unlikely]]
            scheduled_in_the_past(time);
        return queue_.push(time, &target, arg);
    }
    EventHandle after(Time delay, EventTarget& target, std::uint64_t arg = 0) { return at(now_ + delay, target, arg); }
    // at() for an event nobody will cancel (a packet's arrival, a credit return): no handle,
    // and no slot for the queue to keep. Same order as at(): ties run in scheduling order.
    void post(Time time, EventTarget& target, std::uint64_t arg = 0) {
        if (time < now_) [[unlikely]]
            scheduled_in_the_past(time);
        queue_.post(time, &target, arg);
    }
    bool cancel(EventHandle handle) { return queue_.cancel(handle); }
    std::size_t pending() const { return queue_.size(); }

    // Runs events in (time, insertion) order until none is left, the next one lies beyond
    // `stop` (the clock then stops at `stop`), or stop() is called from an event.
    RunEnd run(Time stop = Time::max(), ProgressObserver* progress = nullptr);
    void stop() { stop_requested_ = true; }
    // From now on run() returns RunEnd::interrupted before the next event once *flag is
    // non-zero. The flag is set from outside the event loop (a signal handler, another
    // thread); the loop only reads it, one relaxed load per event. nullptr: none.
    void watch_interrupt(const std::atomic<int>* flag) { interrupt_ = flag; }

    // The stream for `name`, created on first use from (seed, name); the reference is stable.
    Rng& rng(std::string_view name);
    MetricsRegistry& metrics() { return metrics_; }
    const MetricsRegistry& metrics() const { return metrics_; }
    // Cost of all run() calls so far; peak RSS is read when asked.
    RunCost cost() const;

private:
    [[noreturn]] void scheduled_in_the_past(Time time) const;

    EventQueue queue_;
    Time now_ = Time::zero();
    std::uint64_t seed_;
    bool stop_requested_ = false;
    const std::atomic<int>* interrupt_ = nullptr;
    std::map<std::string, std::unique_ptr<Rng>, std::less<>> streams_;
    MetricsRegistry metrics_;
    std::uint64_t events_ = 0;
    double wall_s_ = 0;
};

// Peak resident set size of this process in bytes (getrusage), 0 if unknown.
std::int64_t peak_rss_bytes();

}  // namespace fabricsim
