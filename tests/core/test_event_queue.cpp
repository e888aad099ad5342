// EventQueue: order by (time, push order), cancel by handle, and agreement with a plain ordered
// set on long random and hold-model sequences. The reference is std::set keyed on
// (time, push sequence), which is the definition of the order, not a previous run's output.
#include "core/event_queue.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using fabricsim::Event;
using fabricsim::EventHandle;
using fabricsim::EventQueue;
using fabricsim::Time;
using namespace fabricsim::literals;

// SplitMix64: a portable generator, so the sequences are the same with every standard library.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : s_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    std::uint64_t below(std::uint64_t n) { return next() % n; }
    std::int64_t exponential(double mean) {
        const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;  // [0, 1)
        return static_cast<std::int64_t>(-std::log1p(-u) * mean);
    }

private:
    std::uint64_t s_;
};

// The order the queue must reproduce, with the bookkeeping to cancel a random live event.
class Reference {
public:
    // Returns the id of the event (its arg in the queue).
    // posted: with post(), so it has no handle and is never picked to be cancelled.
    std::uint64_t push(EventQueue& q, Time t, bool posted = false) {
        const std::uint64_t id = handles_.size();
        if (posted) {
            q.post(t, nullptr, id);
            handles_.emplace_back();
        } else {
            handles_.push_back(q.push(t, nullptr, id));
        }
        times_.push_back(t);
        set_.emplace(t.picoseconds(), id);
        live_pos_.push_back(posted ? kNotLive : live_.size());
        if (!posted) live_.push_back(id);
        return id;
    }
    // Pops both; returns false (and says why) on the first disagreement.
    bool pop(EventQueue& q, std::string& why) {
        const auto [time, id] = *set_.begin();
        set_.erase(set_.begin());
        forget(id);
        const Time next = q.next_time();
        const Event e = q.pop();
        if (next != e.time) {
            why = "next_time() " + std::to_string(next.picoseconds()) + " != popped time " +
                  std::to_string(e.time.picoseconds());
            return false;
        }
        if (e.time.picoseconds() != time || e.arg != id) {
            why = "popped (" + std::to_string(e.time.picoseconds()) + ", #" + std::to_string(e.arg) +
                  ") but expected (" + std::to_string(time) + ", #" + std::to_string(id) + ")";
            return false;
        }
        return true;
    }
    // Cancels a random live event in both; returns what the queue's cancel said.
    bool cancel_random(EventQueue& q, Rng& rng) {
        const std::uint64_t id = live_[rng.below(live_.size())];
        set_.erase({times_[id].picoseconds(), id});
        forget(id);
        return q.cancel(handles_[id]);
    }
    bool cancellable() const { return !live_.empty(); }  // some pending event has a handle
    Time next_time() const { return Time::ps(set_.begin()->first); }
    std::size_t size() const { return set_.size(); }
    bool empty() const { return set_.empty(); }

private:
    static constexpr std::size_t kNotLive = SIZE_MAX;  // posted: not in the live list
    void forget(std::uint64_t id) {                    // swap-remove from the live list
        const std::size_t pos = live_pos_[id];
        if (pos == kNotLive) return;
        live_[pos] = live_.back();
        live_pos_[live_[pos]] = pos;
        live_.pop_back();
    }
    std::set<std::pair<std::int64_t, std::uint64_t>> set_;
    std::vector<EventHandle> handles_;
    std::vector<Time> times_;
    std::vector<std::uint64_t> live_;
    std::vector<std::size_t> live_pos_;
};

std::vector<std::pair<std::int64_t, std::uint64_t>> drain(EventQueue& q) {
    std::vector<std::pair<std::int64_t, std::uint64_t>> out;
    while (!q.empty()) {
        const Event e = q.pop();
        out.emplace_back(e.time.picoseconds(), e.arg);
    }
    return out;
}

// Runs the hold model (pop the earliest, push it back at now + increment) against the reference.
template <class Increment>
std::string hold_model(std::size_t pending, std::size_t holds, Increment increment) {
    EventQueue q;
    Reference ref;
    for (std::size_t i = 0; i < pending; ++i) ref.push(q, increment());
    std::string why;
    for (std::size_t i = 0; i < holds; ++i) {
        const Time now = q.next_time();
        if (!ref.pop(q, why)) return "hold " + std::to_string(i) + ": " + why;
        ref.push(q, now + increment());
    }
    while (!ref.empty())
        if (!ref.pop(q, why)) return "final drain: " + why;
    return q.empty() ? "" : "queue not empty after the reference drained";
}

}  // namespace

TEST_CASE("events pop in ascending time order", "[event_queue]") {
    EventQueue q;
    std::vector<std::int64_t> times(5000);
    std::iota(times.begin(), times.end(), 0);
    for (auto& t : times) t = t * 7919 % 5000 * 1'000 + 17;  // a permutation, 1 ns apart
    for (std::size_t i = 0; i < times.size(); ++i) q.push(Time::ps(times[i]), nullptr, i);
    CHECK(q.size() == 5000);

    const auto popped = drain(q);
    REQUIRE(popped.size() == 5000);
    std::sort(times.begin(), times.end());
    for (std::size_t i = 0; i < popped.size(); ++i) REQUIRE(popped[i].first == times[i]);
    CHECK(q.empty());
}

TEST_CASE("events at the same time pop in push order", "[event_queue]") {
    EventQueue q;
    // Three tie groups pushed interleaved; each must come out in push order, groups by time.
    for (std::uint64_t i = 0; i < 3000; ++i) q.push(Time::ns(static_cast<std::int64_t>(2 - i % 3)), nullptr, i);
    const auto popped = drain(q);
    REQUIRE(popped.size() == 3000);
    for (std::size_t i = 0; i < popped.size(); ++i) {
        const std::uint64_t group = i / 1000;  // times 0, 1, 2 ns hold args 2 mod 3, 1 mod 3, 0 mod 3
        REQUIRE(popped[i].first == static_cast<std::int64_t>(group) * 1'000);
        REQUIRE(popped[i].second == (i % 1000) * 3 + (2 - group));
    }
}

TEST_CASE("an event pushed at the current time runs after the ones already there", "[event_queue]") {
    EventQueue q;
    q.push(5_ns, nullptr, 0);
    q.push(5_ns, nullptr, 1);
    q.push(6_ns, nullptr, 2);
    const Event first = q.pop();
    REQUIRE(first.arg == 0);
    q.push(first.time, nullptr, 3);  // same picosecond as the event being handled
    const auto rest = drain(q);
    REQUIRE(rest.size() == 3);
    CHECK(rest[0].second == 1);
    CHECK(rest[1].second == 3);
    CHECK(rest[2].second == 2);
}

TEST_CASE("ties keep push order wherever their members were stored", "[event_queue]") {
    // Members of one tie group pushed at different moments sit in different parts of the
    // queue (the overflow, a coarse bucket, a fine bucket, the heap); they must still come out
    // in push order. A dense front makes the queue build buckets; the far times stay in the
    // overflow beyond the buckets.
    EventQueue q;
    Reference ref;
    const std::vector<Time> ties = {1_ns, 500_ns, 20_us, 1_ms, 1_s, Time::max()};
    for (int i = 0; i < 20'000; ++i) ref.push(q, Time::ps(1'000 + i * 1'000));  // 1 ns .. 20 us
    for (const Time t : ties) ref.push(q, t);
    std::string why;
    std::size_t round = 0;
    while (!ref.empty()) {
        // Every 97 pops, add one more member to every tie group still in the future.
        if (++round % 97 == 0) {
            const Time now = q.next_time();
            for (const Time t : ties)
                if (t >= now) ref.push(q, t);
        }
        INFO("pop " << round);
        REQUIRE(ref.pop(q, why));
    }
    CHECK(q.empty());
}

TEST_CASE("cancel: pending true, twice false, after pop false, invalid false", "[event_queue][cancel]") {
    EventQueue q;
    const EventHandle a = q.push(1_ns, nullptr, 1);
    const EventHandle b = q.push(2_ns, nullptr, 2);
    const EventHandle c = q.push(3_ns, nullptr, 3);
    REQUIRE(q.size() == 3);

    CHECK(q.cancel(b));
    CHECK(q.size() == 2);
    CHECK_FALSE(q.cancel(b));
    CHECK(q.size() == 2);

    const Event first = q.pop();
    CHECK(first.arg == 1);
    CHECK_FALSE(q.cancel(a));  // already ran

    CHECK_FALSE(q.cancel(EventHandle{}));
    CHECK_FALSE(q.cancel(EventHandle{12345, 1}));
    CHECK_FALSE(q.cancel(EventHandle{a.slot, a.generation + 1}));  // never issued: a's slot is free
    CHECK(q.size() == 1);

    const Event second = q.pop();
    CHECK(second.arg == 3);  // b never surfaces
    CHECK(q.empty());
    CHECK_FALSE(q.cancel(c));
}

TEST_CASE("a handle does not cancel the event that reuses its slot", "[event_queue][cancel]") {
    EventQueue q;
    const EventHandle a = q.push(1_ns, nullptr, 1);
    REQUIRE(q.pop().arg == 1);
    const EventHandle b = q.push(2_ns, nullptr, 2);  // takes a's slot
    CHECK(b.slot == a.slot);
    CHECK_FALSE(q.cancel(a));
    CHECK(q.size() == 1);
    CHECK(q.cancel(b));
    CHECK(q.empty());

    const EventHandle c = q.push(3_ns, nullptr, 3);  // and again, after a cancel
    CHECK_FALSE(q.cancel(b));
    CHECK(q.pop().arg == 3);
    CHECK_FALSE(q.cancel(c));
}

TEST_CASE("cancelling the current top exposes the next event", "[event_queue][cancel]") {
    EventQueue q;
    const EventHandle a = q.push(1_ns, nullptr, 1);
    q.push(2_ns, nullptr, 2);
    REQUIRE(q.next_time() == 1_ns);  // a is now the heap's top
    REQUIRE(q.cancel(a));
    CHECK(q.next_time() == 2_ns);
    CHECK(q.pop().arg == 2);
    CHECK(q.empty());
}

TEST_CASE("a queue holding only cancelled events is empty and still usable", "[event_queue][cancel]") {
    EventQueue q;
    std::vector<EventHandle> handles;
    for (int i = 0; i < 3000; ++i) handles.push_back(q.push(Time::ns(i), nullptr, 0));
    REQUIRE(q.next_time() == 0_ns);  // builds the buckets
    for (const EventHandle h : handles) REQUIRE(q.cancel(h));
    CHECK(q.empty());
    CHECK(q.size() == 0);

    q.push(7_ns, nullptr, 7);
    q.push(5_ns, nullptr, 5);
    CHECK(q.size() == 2);
    CHECK(q.next_time() == 5_ns);
    CHECK(q.pop().arg == 5);
    CHECK(q.pop().arg == 7);
    CHECK(q.empty());
}

TEST_CASE("mass cancellation leaves the survivors in order", "[event_queue][cancel]") {
    // Cancelling most events forces the queue to drop its stale entries in bulk.
    EventQueue q;
    Reference ref;
    Rng rng(7);
    for (int i = 0; i < 50'000; ++i) ref.push(q, Time::ps(static_cast<std::int64_t>(rng.below(1'000'000'000))));
    std::string why;
    for (int i = 0; i < 100; ++i) REQUIRE(ref.pop(q, why));
    for (int i = 0; i < 45'000; ++i) REQUIRE(ref.cancel_random(q, rng));
    CHECK(q.size() == ref.size());
    while (!ref.empty()) REQUIRE(ref.pop(q, why));
    CHECK(q.empty());
}

TEST_CASE("mass cancellation inside a large heap keeps it ordered", "[event_queue][cancel]") {
    // Events pushed before the buckets' start all go to the heap; cancelling most of them makes
    // the queue drop them in bulk from the middle of the heap.
    EventQueue q;
    Reference ref;
    Rng rng(13);
    ref.push(q, 5_ns);
    std::string why;
    REQUIRE(ref.pop(q, why));
    for (int i = 0; i < 1000; ++i) ref.push(q, 1_us + Time::ns(i));
    REQUIRE(q.next_time() == 1_us);  // buckets now start at 1 us
    for (int i = 0; i < 3000; ++i) ref.push(q, 5_ns + Time::ps(static_cast<std::int64_t>(rng.below(995'000))));
    for (int i = 0; i < 2500; ++i) REQUIRE(ref.cancel_random(q, rng));
    CHECK(q.size() == ref.size());
    while (!ref.empty()) REQUIRE(ref.pop(q, why));
    CHECK(q.empty());
}

TEST_CASE("an event earlier than the buckets but not than the last pop is next", "[event_queue]") {
    // next_time() may re-spread the far events into buckets that start after the last popped
    // time; an event then pushed between the two must still come first.
    EventQueue q;
    q.push(5_ns, nullptr, 0);
    REQUIRE(q.pop().time == 5_ns);
    for (int i = 0; i < 1000; ++i) q.push(1_us + Time::ns(i), nullptr, 1);
    REQUIRE(q.next_time() == 1_us);
    q.push(100_ns, nullptr, 2);
    q.push(5_ns, nullptr, 3);  // the last popped time itself
    CHECK(q.next_time() == 5_ns);
    CHECK(q.pop().arg == 3);
    CHECK(q.pop().arg == 2);
    CHECK(q.pop().time == 1_us);
}

TEST_CASE("a moved queue keeps its events and handles, and the source is empty and usable", "[event_queue]") {
    EventQueue a;
    std::vector<EventHandle> handles;
    for (int i = 0; i < 5000; ++i)
        handles.push_back(a.push(Time::ns(5000 - i), nullptr, static_cast<std::uint64_t>(i)));
    REQUIRE(a.pop().arg == 4999);  // builds the buckets before the move

    EventQueue b(std::move(a));
    CHECK(a.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
    CHECK(b.size() == 4999);
    CHECK(b.cancel(handles[0]));  // the 5000 ns event

    a.push(3_ns, nullptr, 77);  // the source works on its own
    CHECK(a.pop().arg == 77);
    CHECK(a.empty());

    EventQueue c;
    c.push(1_ns, nullptr, 99);
    c = std::move(b);  // replaces c's own event
    REQUIRE(c.size() == 4998);
    for (int i = 4998; i >= 1; --i) REQUIRE(c.pop().arg == static_cast<std::uint64_t>(i));
    CHECK(c.empty());
}

TEST_CASE("events at Time::max() and across the whole time range", "[event_queue]") {
    EventQueue q;
    Reference ref;
    const std::vector<std::int64_t> times = {INT64_MAX,
                                             0,
                                             INT64_MAX - 1,
                                             1,
                                             std::int64_t{1} << 62,
                                             INT64_MAX,
                                             (std::int64_t{1} << 62) + 1,
                                             1'000'000,
                                             INT64_MAX / 2,
                                             INT64_MAX,
                                             2};
    for (const std::int64_t t : times) ref.push(q, Time::ps(t));
    std::string why;
    // Interleave pops with pushes that are not earlier than the last pop, up to Time::max().
    Rng rng(11);
    for (int i = 0; i < 2000; ++i) {
        const Time now = q.next_time();
        REQUIRE(ref.pop(q, why));
        const std::uint64_t room = static_cast<std::uint64_t>(INT64_MAX - now.picoseconds());
        const std::uint64_t step = rng.below(4) == 0 ? room : rng.below(std::min<std::uint64_t>(room, 1'000'000) + 1);
        ref.push(q, Time::ps(now.picoseconds() + static_cast<std::int64_t>(step)));
        if (rng.below(3) == 0) ref.push(q, Time::max());
    }
    while (!ref.empty()) {
        INFO("drain");
        REQUIRE(ref.pop(q, why));
    }
    CHECK(q.empty());
}

TEST_CASE("hold model, near-FIFO increments, matches the reference", "[event_queue][hold]") {
    // Every port's next transmit completion: 1 us plus a few ns of jitter.
    Rng rng(3);
    const std::string error =
        hold_model(20'000, 300'000, [&] { return 1_us + Time::ps(static_cast<std::int64_t>(rng.below(4'001))); });
    CHECK(error == "");
}

TEST_CASE("hold model, exponential increments, matches the reference", "[event_queue][hold]") {
    Rng rng(5);
    const std::string error = hold_model(20'000, 300'000, [&] { return Time::ps(rng.exponential(1e6)); });
    CHECK(error == "");
}

TEST_CASE("hold model with heavy ties matches the reference", "[event_queue][hold]") {
    // Increments on a 1 us grid, many of them zero: large tie groups everywhere.
    Rng rng(9);
    const std::string error = hold_model(5'000, 200'000, [&] {
        return Time::us(static_cast<std::int64_t>(rng.below(3)) * static_cast<std::int64_t>(rng.below(4)));
    });
    CHECK(error == "");
}

namespace {
// Pushes with random, clustered (same or next picosecond) and far-future increments from the
// time of the last pop, pops, peeks (next_time() alone, which may re-spread, so that later
// pushes land before the new buckets) and cancels of random live events; next_time() is also
// checked against every pop. With `posted`, every other push is a post() (no handle).
void random_operations(int ops, bool posted) {
    EventQueue q;
    Reference ref;
    Rng rng(2024);
    Time now = Time::zero();
    std::string why;
    std::size_t pops = 0, cancels = 0;
    for (int op = 0; op < ops; ++op) {
        const std::uint64_t r = rng.below(100);
        if (r < 52 || ref.empty()) {
            std::int64_t inc;
            const std::uint64_t kind = rng.below(10);
            if (kind < 3) {
                inc = static_cast<std::int64_t>(rng.below(2));  // same or next picosecond
            } else if (kind < 8) {
                inc = rng.exponential(1e6);  // ~1 us
            } else if (kind < 9) {
                inc = static_cast<std::int64_t>(rng.below(1'000'000'000'000));  // up to 1 s
            } else {
                inc = 4'000 * static_cast<std::int64_t>(rng.below(64));  // a 4 ns grid: ties
            }
            ref.push(q, now + Time::ps(inc), posted && (op & 1) != 0);
        } else if (r < 55) {
            if (q.next_time() != ref.next_time()) {
                INFO("op " << op);
                REQUIRE(q.next_time() == ref.next_time());
            }
        } else if (r < 92) {
            now = q.next_time();
            if (!ref.pop(q, why)) {
                INFO("op " << op << ": " << why);
                REQUIRE(false);
            }
            ++pops;
        } else if (ref.cancellable()) {
            REQUIRE(ref.cancel_random(q, rng));
            ++cancels;
        }
        if (q.size() != ref.size()) {
            INFO("op " << op);
            REQUIRE(q.size() == ref.size());
        }
    }
    while (!ref.empty()) REQUIRE(ref.pop(q, why));
    CHECK(q.empty());
    // Of the operations 37 % pop and 8 % cancel (fewer when no event is pending).
    CHECK(pops > static_cast<std::size_t>(ops) * 3 / 10);
    CHECK(cancels > static_cast<std::size_t>(ops) / 20);
}
}  // namespace

TEST_CASE("10^6 random operations give exactly the reference's sequence", "[event_queue][random]") {
    random_operations(1'000'000, false);
}

TEST_CASE("posted events (no handle) among pushed and cancelled ones keep the reference's sequence",
          "[event_queue][random]") {
    random_operations(300'000, true);
}

TEST_CASE("upcoming() names the run's next live event, never a cancelled one", "[event_queue][cancel]") {
    struct Target final : fabricsim::EventTarget {
        void on_event(fabricsim::Simulator&, std::uint64_t) override {}
    } target;
    EventQueue q;
    for (std::uint64_t k = 1; k <= 6; ++k) q.post(Time::ns(static_cast<std::int64_t>(k)), &target, k);
    const EventHandle dead = q.push(Time::ns(4) + 1_ps, &target, 99);
    REQUIRE(q.cancel(dead));
    std::vector<std::uint64_t> popped;
    std::uint64_t hinted = 0;  // 0: no hint
    int hints = 0;
    while (!q.empty()) {
        const Event e = q.pop();
        CHECK((hinted == 0 || hinted == e.arg));  // a hint names the event that pops next
        popped.push_back(e.arg);
        std::uint64_t arg = 0;
        hinted = q.upcoming(arg) == &target ? arg : 0;
        hints += hinted != 0 ? 1 : 0;
        CHECK(hinted != 99);
    }
    CHECK(popped == std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6});
    CHECK(hints >= 1);
}

TEST_CASE("upcoming(1) names the event after next, across the buckets' ends", "[event_queue]") {
    // 10 000 events 1 ns apart fill about 1 250 fine buckets of ~8: without the run reaching
    // into the next bucket (kLookahead) the last entry or two of every bucket would have no
    // hint, 1 in 8 pops or more. Only the last two pops, and the pops just before a re-spread
    // of the overflow, may go without.
    struct Target final : fabricsim::EventTarget {
        void on_event(fabricsim::Simulator&, std::uint64_t) override {}
    } target;
    EventQueue q;
    constexpr std::uint64_t n = 10'000;
    for (std::uint64_t k = 1; k <= n; ++k) q.post(Time::ns(static_cast<std::int64_t>(k)), &target, k);
    std::vector<std::uint64_t> hinted;  // after pop i: the arg upcoming(1) names, 0 for none
    std::uint64_t expected = 1;
    while (!q.empty()) {
        REQUIRE(q.pop().arg == expected++);
        std::uint64_t arg = 0;
        hinted.push_back(q.upcoming(1, arg) == &target ? arg : 0);
    }
    std::size_t hints = 0;
    for (std::size_t i = 0; i < hinted.size(); ++i) {
        if (hinted[i] == 0) continue;
        ++hints;
        CHECK(hinted[i] == i + 3);  // pop i popped i + 1; two pops later comes i + 3
    }
    CHECK(hints >= n - n / 100);
}

TEST_CASE("an event pushed into an empty coarse bucket after the run found none to load pops last", "[event_queue]") {
    // 100 000 events 1 ns apart: the re-spread makes coarse buckets for about four times their
    // span, the last three quarters of them empty. Near the end of the last filled one the run
    // asks for the next bucket (kLookahead) and finds none; the last two events then push one
    // each 3 us ahead, into those empty buckets, and both must still pop, last and in order.
    EventQueue q;
    constexpr std::int64_t n = 100'000;
    for (std::int64_t k = 0; k < n; ++k) q.post(Time::ns(k), nullptr, static_cast<std::uint64_t>(k));
    Time last = Time::zero();
    std::int64_t popped = 0;
    while (!q.empty()) {
        const Event e = q.pop();
        REQUIRE(e.time >= last);
        last = e.time;
        ++popped;
        if (e.time >= Time::ns(n - 2) && e.time < Time::ns(n)) q.post(e.time + Time::us(3), nullptr, 0);
    }
    CHECK(popped == n + 2);
    CHECK(last == Time::ns(n - 1) + Time::us(3));
}

TEST_CASE("a large bucket of a few distinct times pushed out of order pops in push order per time", "[event_queue]") {
    // A permutation's packets at equal rates finish their hops at the same picoseconds: a
    // bucket as wide as the front's density asks for then holds a few distinct times, each many
    // times over, pushed interleaved (the counting sort's case). Here: 2 000 events 500 ps apart
    // set the width; 300 more at 500 000 + 2, 1, 0, 2, 1, 0, ... ps share one bucket.
    EventQueue q;
    Reference ref;
    for (int i = 0; i < 2'000; ++i) ref.push(q, Time::ps(i * 500));
    for (int i = 0; i < 300; ++i) ref.push(q, Time::ps(500'000 + 2 - i % 3));
    std::string why;
    while (!ref.empty()) REQUIRE(ref.pop(q, why));
    CHECK(q.empty());
}

TEST_CASE("hold model with increments 64 or 192 ns plus up to 2 ns: more distinct times than the counting sort takes",
          "[event_queue][hold]") {
    // As above with 0..1999 ps added: a large bucket holds tens of distinct times, pushed out
    // of order, so it is sorted by (time, position) keys instead.
    Rng rng(13);
    const std::string error = hold_model(2'000, 200'000, [&] {
        return Time::ps((rng.below(2) == 0 ? 64'000 : 192'000) + static_cast<std::int64_t>(rng.below(2'000)));
    });
    CHECK(error == "");
}

TEST_CASE("pop_until: pops up to and including the stop time, then leaves the rest", "[event_queue]") {
    EventQueue q;
    q.push(3_ns, nullptr, 0);
    q.push(1_ns, nullptr, 1);
    q.push(2_ns, nullptr, 2);
    q.push(2_ns, nullptr, 3);
    Event e;
    REQUIRE(q.pop_until(2_ns, e));
    CHECK((e.time == 1_ns && e.arg == 1));
    REQUIRE(q.pop_until(2_ns, e));
    CHECK((e.time == 2_ns && e.arg == 2));
    REQUIRE(q.pop_until(2_ns, e));
    CHECK((e.time == 2_ns && e.arg == 3));
    CHECK_FALSE(q.pop_until(2_ns, e));  // 3 ns is beyond the stop: nothing is taken
    CHECK(q.size() == 1);
    CHECK(q.next_time() == 3_ns);
    REQUIRE(q.pop_until(Time::max(), e));
    CHECK((e.time == 3_ns && e.arg == 0));
    CHECK(q.empty());
}
