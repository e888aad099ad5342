// The busbw curve of a collective run at several sizes, printed in nccl-tests' columns
// (size, count, type, redop, root, time, algbw, busbw; docs/VALIDATION.md), so that it can be
// set beside an nccl-tests output line by line.
#pragma once

#include "report/run_result.hpp"

#include <string>
#include <vector>

namespace fabricsim::report {

// One row of nccl-tests' columns: `op` picks redop and root, `last` fills the last column.
struct NcclTestsRow {
    std::string op;  // "all_reduce"
    Bytes bytes;
    Time time;  // Time::max(): unfinished
    double algbw_GBps = 0;
    double busbw_GBps = 0;
    std::string last;
};
// "# <title>", the two header lines and the rows.
std::string nccl_tests_table(const std::string& title, const std::string& last_column,
                             const std::vector<NcclTestsRow>& rows);

// One table per variant and collective entry that ran two sizes or more; "" when none did.
std::string busbw_curves(const RunResult& result);

}  // namespace fabricsim::report
