// CounterWindow: what each op of a stream still waits for, for the ops between the oldest one
// not yet released and the newest one touched. A streaming program's ops are numbered in the
// order it would have made them; an op gets its counter when the first of its predecessors
// finishes and gives it back when it is released, so the memory follows the ops in flight, not
// the length of the stream. A ring buffer that doubles when the window outgrows it: no
// allocation per op once it has reached its size. A ring send waits for at most three ops (a
// byte each); a collective's join waits for a whole step (periodic_run.hpp: 32 bits).
#pragma once

#include "core/errors.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <fmt/format.h>

namespace fabricsim::workloads {

template <class Count>
class BasicCounterWindow {
public:
    // One of op `id`'s `predecessors` has finished: what it still waits for (0: released).
    std::uint32_t decrement(std::uint64_t id, Count predecessors) {
        Count& c = slot(id);
        if (c == kReleased) throw InternalError(fmt::format("counter window: op {} released twice", id));
        if (c == kUntouched) c = predecessors;
        if (c == 0)
            throw InternalError(fmt::format("counter window: op {} has more predecessors than {}", id, predecessors));
        const std::uint32_t left = --c;
        if (left == 0) released(id);
        return left;
    }
    // Op `id` starts without waiting (it has no predecessors).
    void released(std::uint64_t id) {
        slot(id) = kReleased;
        while (base_ < end_ && at(base_) == kReleased) at(base_++) = kUntouched;
    }
    std::size_t capacity() const { return slots_.size(); }
    // The stream starts afresh at op 0 (a collective's next run), keeping the slots it has.
    void restart() {
        std::fill(slots_.begin(), slots_.end(), kUntouched);
        base_ = end_ = 0;
    }
    // The most ops the window has spanned at once, from its oldest op not released to its
    // newest one touched: what its memory follows.
    std::uint64_t peak_span() const { return peak_; }

private:
    static constexpr Count kUntouched = 0;
    static constexpr Count kReleased = std::numeric_limits<Count>::max();

    Count& at(std::uint64_t id) { return slots_[id & (slots_.size() - 1)]; }
    Count& slot(std::uint64_t id) {
        if (id < base_) throw InternalError(fmt::format("counter window: op {} is before the window ({})", id, base_));
        if (id - base_ >= slots_.size()) grow(id - base_ + 1);
        if (id >= end_) {
            end_ = id + 1;
            peak_ = std::max(peak_, end_ - base_);
        }
        return at(id);
    }
    void grow(std::uint64_t span) {
        std::size_t size = slots_.empty() ? 64 : slots_.size();
        while (size < span) size *= 2;
        std::vector<Count> next(size, kUntouched);
        for (std::uint64_t id = base_; id < end_; ++id) next[id & (size - 1)] = at(id);
        slots_ = std::move(next);
    }

    std::vector<Count> slots_;  // outside [base_, end_): kUntouched
    std::uint64_t base_ = 0;    // every op before it is released
    std::uint64_t end_ = 0;     // no op from it on has been touched
    std::uint64_t peak_ = 0;    // the most end_ − base_ has been
};

using CounterWindow = BasicCounterWindow<std::uint8_t>;

}  // namespace fabricsim::workloads
