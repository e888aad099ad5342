// The busbw curve of a collective run at several sizes, printed in nccl-tests' columns
// (size, count, type, redop, root, time, algbw, busbw; docs/VALIDATION.md), so that it can be
// set beside an nccl-tests output line by line.
#pragma once

#include "report/run_result.hpp"

#include <string>

namespace fabricsim::report {

// One table per variant and collective entry that ran two sizes or more; "" when none did.
std::string busbw_curves(const RunResult& result);

}  // namespace fabricsim::report
