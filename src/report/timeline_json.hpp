// timeline.json (outputs.timeline): the run's ops in Chrome's trace-event format ("JSON Object
// Format", Google's Trace Event Format document), which Perfetto and chrome://tracing open: one
// process per variant, one thread (track) per rank, one complete ("X") event per op, with
// timestamps and durations in microseconds.
#pragma once

#include "report/run_result.hpp"

#include <string>

namespace fabricsim::report {

std::string timeline_json(const RunResult& result);

}  // namespace fabricsim::report
