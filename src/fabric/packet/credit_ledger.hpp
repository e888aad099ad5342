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

class CreditLedger {
public:
    CreditLedger(std::size_t queues, std::int64_t initial)
        : credits_(queues, initial),
          stalled_since_(queues, Time::max()),
          stall_(queues, Time::zero()),
          last_return_(queues, Time::zero()),
          before_return_(queues, initial) {}

    void reset(std::uint32_t q, std::int64_t credits) { credits_[q] = before_return_[q] = credits; }

    // Whether `units` may go now; moves `start` past the return that made them available.
    bool may_send(std::uint32_t q, std::int64_t units, Time& start) {
        if (credits_[q] < units) {
            stalled_since_[q] = std::min(stalled_since_[q], start);
            return false;
        }
        if (start < last_return_[q] && before_return_[q] < units) start = last_return_[q];
        if (stalled_since_[q] != Time::max()) {
            // QPs of one priority share the queue's credits and ask with their own start times.
            stall_[q] += std::max(Time::zero(), start - stalled_since_[q]);
            stalled_since_[q] = Time::max();
        }
        return true;
    }
    void spend(std::uint32_t q, std::int64_t units) { credits_[q] -= units; }
    void returned(std::uint32_t q, Time now, std::int64_t units) {
        before_return_[q] = credits_[q];
        last_return_[q] = now;
        credits_[q] += units;
    }

    bool blocked(std::uint32_t q) const { return stalled_since_[q] != Time::max(); }
    Time stall(std::uint32_t q) const { return stall_[q]; }
    Time total_stall() const {
        Time sum = Time::zero();
        for (const Time t : stall_) sum += t;
        return sum;
    }

private:
    std::vector<std::int64_t> credits_;        // by queue
    std::vector<Time> stalled_since_;          // by queue; Time::max() when not stalled
    std::vector<Time> stall_;                  // by queue
    std::vector<Time> last_return_;            // by queue: when credits last came back ...
    std::vector<std::int64_t> before_return_;  // ... and what it held just before
};

}  // namespace fabricsim::fabric
