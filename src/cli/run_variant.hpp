// Runs one resolved variant end to end: network model + op graph + executor on a fresh
// Simulator seeded from the variant's seed. The only place that knows every stage.
#pragma once

#include "core/simulator.hpp"
#include "report/run_result.hpp"
#include "scenario/loader.hpp"

#include <functional>

namespace fabricsim::cli {

// Receives (simulated time, ops done, ops total) every few thousand events.
using ProgressFn = std::function<void(Time, std::size_t, std::size_t)>;

// `check`: verify the network's invariants after the run (always on in debug builds).
report::VariantResult run_variant(const scenario::Variant& variant, const ProgressFn& progress = {}, bool check = false);

}  // namespace fabricsim::cli
