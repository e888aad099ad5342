// The sender's side of credit-based flow control, per queue, shared by the credits inside a
// server (credits.hpp, counted in bytes) and InfiniBand's per-VL credits (ib_credits.hpp,
// counted in 64-byte blocks): the credits it holds, when they last came back, and the time a
// queue waited with a packet and too few of them (credit_stall_time_s).
//
// A port may ask with a start time in the past (it was free then, and the event that made the
// packet sendable came later): if the credits it needs came back only after that start, the
// packet starts when they came back.
#pragma once

#include "core/units.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fabricsim::fabric {

// One record per queue, so that a send (may_send, spend) and a return each touch one cache
// line of it rather than one line in each of five arrays (issue 19: a hop inside a server read
// three to five cold lines here). `Held`: what the owner keeps by queue beside it, read with
// the record (credits.hpp: a deferred return); none by default.
struct NothingHeld {};

template <class Held = NothingHeld>
class BasicCreditLedger {
public:
    BasicCreditLedger(std::size_t queues, std::int64_t initial)
        : queues_(queues, Queue{initial, initial}), stall_(queues, Time::zero()) {}

    void reset(std::uint32_t q, std::int64_t credits) { queues_[q].credits = queues_[q].before_return = credits; }

    // Whether `units` may go now; moves `start` past the return that made them available.
    bool may_send(std::uint32_t q, std::int64_t units, Time& start) {
        Queue& c = queues_[q];
        if (c.credits < units) {
            c.stalled_since = std::min(c.stalled_since, start);
            return false;
        }
        if (start < c.last_return && c.before_return < units) start = c.last_return;
        if (c.stalled_since != Time::max()) {
            // QPs of one priority share the queue's credits and ask with their own start times.
            stall_[q] += std::max(Time::zero(), start - c.stalled_since);
            c.stalled_since = Time::max();
        }
        return true;
    }
    void spend(std::uint32_t q, std::int64_t units) { queues_[q].credits -= units; }
    void returned(std::uint32_t q, Time now, std::int64_t units) {
        Queue& c = queues_[q];
        c.before_return = c.credits;
        c.last_return = now;
        c.credits += units;
    }

    bool blocked(std::uint32_t q) const { return queues_[q].stalled_since != Time::max(); }
    Held& held(std::uint32_t q) { return queues_[q].held; }
    Time stall(std::uint32_t q) const { return stall_[q]; }
    Time total_stall() const {
        Time sum = Time::zero();
        for (const Time t : stall_) sum += t;
        return sum;
    }

private:
    // 32 bytes, aligned: one cache line per send, spend or return (at 40 bytes, with the
    // stall time, which only a stalled queue's send writes, half the records straddled two);
    // 64 with up to 32 bytes held.
    struct alignas(32) Queue {
        std::int64_t credits = 0;
        std::int64_t before_return = 0;    // what it held just before ...
        Time last_return = Time::zero();   // ... credits last came back
        Time stalled_since = Time::max();  // Time::max() when not stalled
        [[no_unique_address]] Held held{};
    };
    static_assert(sizeof(Queue) == (sizeof(Held) <= 1 ? 32 : 64));
    std::vector<Queue> queues_;
    std::vector<Time> stall_;  // by queue
};

using CreditLedger = BasicCreditLedger<>;

}  // namespace fabricsim::fabric
