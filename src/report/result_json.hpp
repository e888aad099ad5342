// result.json (README.md's "Using it"): a contract for scripts. Names may be added, never renamed; times
// in seconds, sizes in bytes, rates in bytes/s unless the name says otherwise.
#pragma once

#include "report/run_result.hpp"

#include <string>

namespace fabricsim::report {

inline constexpr int kResultSchemaVersion = 1;

// Pretty-printed JSON text, keys in a fixed order, so two runs with the same seed give the
// same bytes apart from the wall-clock fields of "cost".
std::string to_json(const RunResult& result);

}  // namespace fabricsim::report
