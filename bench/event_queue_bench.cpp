// The classic hold model (Jones, CACM 29(4) 1986): keep N events pending; each hold pops the
// earliest and pushes it back at now + increment. One benchmark iteration is one hold, so the
// "Time" column is ns per hold (the per_hold counter says the same, from CPU time).
//
//   exp   increments exponential with mean 1 us (independent timers); pre-filled with N
//         increments from time 0, the classic start
//   fifo  1 us plus 0..4 ns jitter (every port's next transmit completion: nearly a FIFO);
//         pre-filled uniformly over one period, as N ports with staggered phases would be
//
// Each case runs on fabricsim::EventQueue and on std::priority_queue keyed on (time, seq), the
// baseline docs/ARCHITECTURE.md asks the bucketed queue to beat. Increments come from xorshift64 and, for
// exp, a 4096-point inverse-CDF table with linear interpolation (the last segment, beyond the
// 4095/4096 quantile, is uniform over two means): a few ns of integer work, the same for both
// queues, instead of a log() per hold. Each case warms up with 2N holds before timing, so the
// queue has reached the hold model's steady state.
#include "core/event_queue.hpp"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <queue>
#include <vector>

namespace {

using fabricsim::Event;
using fabricsim::EventQueue;
using fabricsim::EventTarget;
using fabricsim::Time;

enum class Dist { exp, fifo };

class Increments {
public:
    explicit Increments(Dist dist) : dist_(dist), quantile_(kPoints + 1) {
        constexpr double mean = 1e6;  // 1 us in ps
        for (std::size_t k = 0; k < kPoints; ++k)
            quantile_[k] = std::llround(-mean * std::log1p(-static_cast<double>(k) / kPoints));
        quantile_[kPoints] = quantile_[kPoints - 1] + static_cast<std::int64_t>(2 * mean);
    }
    Time next() {
        const std::uint64_t r = xorshift();
        if (dist_ == Dist::fifo) return Time::ps(1'000'000 + static_cast<std::int64_t>((r >> 20) % 4'001));
        const std::size_t k = r >> 52;                                     // 12 bits: the segment
        const std::int64_t frac = static_cast<std::int64_t>(r & 0xFFFFF);  // 20 bits: within it
        return Time::ps(quantile_[k] + (((quantile_[k + 1] - quantile_[k]) * frac) >> 20));
    }
    Time initial() {  // a pre-fill time
        if (dist_ == Dist::exp) return next();
        return Time::ps(static_cast<std::int64_t>(xorshift() % 1'000'000));
    }

private:
    static constexpr std::size_t kPoints = 4096;
    std::uint64_t xorshift() {
        state_ ^= state_ << 13;
        state_ ^= state_ >> 7;
        state_ ^= state_ << 17;
        return state_;
    }
    Dist dist_;
    std::vector<std::int64_t> quantile_;
    std::uint64_t state_ = 0x9E3779B97F4A7C15ULL;
};

// std::priority_queue with the same (time, insertion sequence) order and the same payload.
class StdQueue {
public:
    void push(Time time, EventTarget* target, std::uint64_t arg) { heap_.push(Item{time, seq_++, target, arg}); }
    Event pop() {
        const Item top = heap_.top();
        heap_.pop();
        return Event{top.time, top.target, top.arg};
    }

private:
    struct Item {
        Time time;
        std::uint64_t seq;
        EventTarget* target;
        std::uint64_t arg;
    };
    struct Later {
        bool operator()(const Item& a, const Item& b) const {
            return a.time > b.time || (a.time == b.time && a.seq > b.seq);
        }
    };
    std::priority_queue<Item, std::vector<Item>, Later> heap_;
    std::uint64_t seq_ = 0;
};

template <class Queue, Dist dist>
void BM_hold(benchmark::State& state) {
    const auto pending = static_cast<std::size_t>(state.range(0));
    Increments increments(dist);
    Queue queue;
    for (std::size_t k = 0; k < pending; ++k) queue.push(increments.initial(), nullptr, k);
    for (std::size_t k = 0; k < 2 * pending; ++k) {
        const Event e = queue.pop();
        queue.push(e.time + increments.next(), e.target, e.arg);
    }
    for (auto _ : state) {
        const Event e = queue.pop();
        queue.push(e.time + increments.next(), e.target, e.arg);
        benchmark::DoNotOptimize(e.arg);
    }
    state.SetItemsProcessed(state.iterations());
    state.counters["per_hold"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                    benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

#define HOLD(queue, dist) \
    BENCHMARK_TEMPLATE(BM_hold, queue, dist)->Arg(1'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kNanosecond)

HOLD(EventQueue, Dist::exp);
HOLD(StdQueue, Dist::exp);
HOLD(EventQueue, Dist::fifo);
HOLD(StdQueue, Dist::fifo);

}  // namespace

BENCHMARK_MAIN();
