#include "core/simulator.hpp"

#include "core/errors.hpp"
#include "core/units_format.hpp"

#include <sys/resource.h>

#include <chrono>

#include <fmt/format.h>

namespace fabricsim {

Simulator::Simulator(std::uint64_t seed) : seed_(seed) {}

namespace {
// The loop starts the hinted loads (PrefetchHint) of the event two after the one it runs, so
// that they have two events' time to arrive: one event (150-250 ns on perm-1024) is about one
// DRAM access on the 2-core VM of docs/BENCHMARKS.md, and the packet record was still most of
// arrive()'s first stall when loaded one event ahead (issue 19). Needs the run to reach that
// far (EventQueue::kLookahead).
constexpr std::size_t kHintAhead = 1;
static_assert(kHintAhead < EventQueue::kLookahead);
}  // namespace

void Simulator::scheduled_in_the_past(Time time) const {
    // The clock never reads below zero, so a negative time is a sum of times that passed
    // Time::max() and wrapped (core/time_limits.hpp): inputs beyond the engine, not a bug.
    if (time < Time::zero())
        throw ModelError(fmt::format("an event at {} while the clock reads {}: a sum of times passed the end of "
                                     "simulated time ({}, int64 picoseconds) and wrapped; a delay, timer or rate "
                                     "in the scenario is too extreme for the run",
                                     time, now_, Time::max()));
    throw InternalError(fmt::format("event scheduled in the past: at {} while the clock reads {}", time, now_));
}

RunEnd Simulator::run(Time stop, ProgressObserver* progress) {
    // Progress is reported every 2^14 events: rare enough to cost nothing per event.
    constexpr std::uint64_t kProgressMask = (1u << 14) - 1;
    const auto start = std::chrono::steady_clock::now();
    stop_requested_ = false;
    RunEnd end = RunEnd::idle;
    std::uint64_t n = 0;
    while (!queue_.empty()) {
        if (stop_requested_) {
            end = RunEnd::stopped;
            break;
        }
        if (interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed) != 0) {
            end = RunEnd::interrupted;
            break;
        }
        Event e;
        if (!queue_.pop_until(stop, e)) {
            now_ = stop;
            end = RunEnd::stop_time;
            break;
        }
        // A coming event's cold lines (PrefetchHint). The prefetch stays in this loop's body:
        // GCC 12 deems an inline function whose only effect is a prefetch free of effects and
        // drops the call (such a member of PrefetchHint, called here, compiled to nothing).
        std::uint64_t next_arg;
        if (const EventTarget* next = queue_.upcoming(kHintAhead, next_arg)) {
            const PrefetchHint& hint = next->prefetch_hint();
            if (hint.matches(next_arg))
                for (int i = 0; i < 2; ++i)
                    if (const void* line = hint.address(i, next_arg)) __builtin_prefetch(line);
        }
        now_ = e.time;
        e.target->on_event(*this, e.arg);
        ++n;
        if (progress != nullptr && (n & kProgressMask) == 0) progress->on_progress(now_, events_ + n);
    }
    if (stop_requested_ && end == RunEnd::idle) end = RunEnd::stopped;
    events_ += n;
    wall_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return end;
}

Rng& Simulator::rng(std::string_view name) {
    auto it = streams_.find(name);
    if (it == streams_.end()) it = streams_.emplace(std::string(name), std::make_unique<Rng>(seed_, name)).first;
    return *it->second;
}

RunCost Simulator::cost() const {
    RunCost c;
    c.events = events_;
    c.wall_s = wall_s_;
    c.events_per_s = wall_s_ > 0 ? static_cast<double>(events_) / wall_s_ : 0.0;
    c.peak_rss_bytes = peak_rss_bytes();
    c.simulated = now_;
    return c;
}

std::int64_t peak_rss_bytes() {
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

}  // namespace fabricsim
