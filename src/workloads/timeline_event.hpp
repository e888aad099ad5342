// One op of a rank's timeline (outputs.timeline; report/timeline_json.hpp writes them as Chrome
// trace-event "X" events).
#pragma once

#include "core/units.hpp"

#include <cstdint>
#include <string>

namespace fabricsim::workloads {

struct TimelineEvent {
    std::uint32_t rank = 0;  // cluster rank
    std::string name;
    const char* category = "";  // "compute", "send", "recv", "collective"
    Time start, finish;
};

}  // namespace fabricsim::workloads
