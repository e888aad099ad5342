// A straggler (faults: - straggler: ..., docs/models/faults.md): one rank's GPU computes
// `slowdown` times slower during [from, until) (thermal throttling, a noisy neighbour, a bad
// HBM stack). A compute op is an amount of work, its duration at full speed; it progresses at
// 1/slowdown of that rate inside the window and at full rate outside, so an op of duration d
// that runs entirely inside takes k·d, and one that straddles a window edge is split there.
// Network models do not see it: it works the same on the ideal and the packet model.
#pragma once

#include "core/ids.hpp"
#include "core/units.hpp"

#include <span>
#include <vector>

namespace fabricsim::workloads {

struct Straggler {
    RankId rank;
    Time from;
    Time until = Time::max();
    double slowdown = 1.0;
};

// When a compute op of `work` (its duration at full speed) that starts at `start` on `rank`
// finishes. Windows of one rank are taken in order of `from`; they should not overlap.
Time compute_finish(Time start, Time work, RankId rank, std::span<const Straggler> stragglers);

}  // namespace fabricsim::workloads
