#include "workloads/straggler.hpp"

#include <algorithm>
#include <cmath>

namespace fabricsim::workloads {

Time compute_finish(Time start, Time work, RankId rank, std::span<const Straggler> stragglers) {
    std::vector<const Straggler*> mine;
    for (const Straggler& s : stragglers)
        if (s.rank == rank && s.until > start && s.slowdown != 1.0) mine.push_back(&s);
    std::sort(mine.begin(), mine.end(), [](const Straggler* a, const Straggler* b) { return a->from < b->from; });
    Time t = start;
    double left = static_cast<double>(work.picoseconds());  // full-speed picoseconds still to do
    for (const Straggler* s : mine) {
        if (s->until <= t) continue;
        if (t < s->from) {  // full speed up to the window
            const double gap = static_cast<double>((s->from - t).picoseconds());
            if (left <= gap) break;
            left -= gap;
            t = s->from;
        }
        const double needed = left * s->slowdown;  // inside the window, 1/k of the rate
        if (s->until == Time::max() || needed <= static_cast<double>((s->until - t).picoseconds()))
            return t + Time::ps(std::llround(needed));
        left -= static_cast<double>((s->until - t).picoseconds()) / s->slowdown;
        t = s->until;
    }
    return t + Time::ps(std::llround(left));
}

}  // namespace fabricsim::workloads
