// Sums of simulated times that can pass the end of time. Time is int64 picoseconds, so the
// clock ends at Time::max() (about 106.75 days); a timer, a delay or a serialisation at a
// tiny rate taken from the input can each fit and still add up past it, and a plain `+` then
// wraps to a time far in the past: every quantity is exact, or an error.
//
//   saturating_add(t, d)   t + d, or Time::max() ("never") past the end: for timers whose
//                          period may be as long as the input allows — they simply never come
//                          due;
//   checked_add(t, d, what)  t + d, or a ModelError naming `what` and both times: for an event
//                          the model must schedule (a packet's arrival, a timeout).
// Both take a non-negative `d`.
#pragma once

#include "core/units.hpp"

#include <cstdint>
#include <string_view>

namespace fabricsim {

constexpr Time saturating_add(Time t, Time d) {
    std::int64_t sum = 0;
    return __builtin_add_overflow(t.picoseconds(), d.picoseconds(), &sum) ? Time::max() : Time::ps(sum);
}

// Throws ModelError: "<what>: <t> + <d> passes the end of simulated time (...)".
[[noreturn]] void throw_time_overflow(std::string_view what, Time t, Time d);

// One add and a jump on overflow: it sits on the per-packet path (an arrival per hop).
inline Time checked_add(Time t, Time d, std::string_view what) {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(t.picoseconds(), d.picoseconds(), &sum)) [[unlikely]]
        throw_time_overflow(what, t, d);
    return Time::ps(sum);
}

}  // namespace fabricsim
