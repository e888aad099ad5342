// What the console says first after a run whose result is not a complete and sound answer:
// for each variant, whether it failed (work that never finished, lossless drops, a broken
// invariant, a model error), was cut short by simulation.stop_time or stopped by a signal,
// and how many asked-for variants never ran. A reader must never take a partial result for
// a finished one.
#pragma once

#include "report/run_result.hpp"

#include <string>

namespace fabricsim::report {

// One line per fact, each ending in '\n'; "" when result.complete().
std::string status_lines(const RunResult& result);

// The models' warnings (VariantResult::warnings), one "fabricsim: warning: ..." line each;
// "" when there are none. A warning does not make a result incomplete.
std::string warning_lines(const RunResult& result);

}  // namespace fabricsim::report
