// What the faults of a run did (docs/models/faults.md): per fault, its damage in the model;
// with `fabricsim run --baseline`, the same variant run without its faults and the slowdown
// of each collective, training job and the whole workload against it.
#pragma once

#include "core/units.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace fabricsim::report {

struct FaultResult {
    std::string name;                // "link_down0"
    std::string kind;                // "link_down"
    std::string target;              // "leaf0 - spine1", "spine1", "rank 3"
    Time at;                         // it struck (the first time, for a flapping link)
    Time end = Time::max();          // it ended (Time::max(): not within the run)
    Time reconverged = Time::max();  // routing had converged around it (link faults)
    std::int64_t times_down = 0;     // strikes (a flapping link: its flaps)
    std::int64_t packets_lost = 0;   // on its links, both directions
    // stuck_receiver: the ports PFC paused during the run, how far the pause spread (-1: n/a).
    std::int64_t ports_paused = -1;
};

// One measured thing of the workload with and without the faults.
struct SlowdownRow {
    std::string what;  // "collective ar 1GiB", "training llama iteration", "makespan"
    Time with_faults;
    Time without;
    bool finished() const { return with_faults != Time::max() && without != Time::max(); }
    double slowdown() const {
        return without > Time::zero()
                   ? static_cast<double>(with_faults.picoseconds()) / static_cast<double>(without.picoseconds())
                   : 1.0;
    }
};

}  // namespace fabricsim::report
