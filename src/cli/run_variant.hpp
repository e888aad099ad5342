// Runs one resolved variant end to end: network model + op graph + executor on a fresh
// Simulator seeded from the variant's seed. The only place that knows every stage.
#pragma once

#include "core/simulator.hpp"
#include "report/run_result.hpp"
#include "scenario/loader.hpp"

#include <atomic>
#include <functional>

namespace fabricsim::cli {

// Receives (simulated time, ops done, ops total) every few thousand events.
using ProgressFn = std::function<void(Time, std::size_t, std::size_t)>;

// Receives the op count of the graph while it is built, before the run (training jobs).
using BuildFn = std::function<void(std::size_t)>;

struct VariantOptions {
    ProgressFn progress;
    BuildFn building;
    // --check: also verify the network's invariants during the run, every few thousand events
    // (they are always verified at its end).
    bool check = false;
    // Non-zero (a signal number): stop before the next event and report what was measured.
    const std::atomic<int>* interrupt = nullptr;
};

// The variant's result. It is never silently partial: work left unfinished, packets dropped on
// a lossless class, a broken invariant or a model error that stopped the run (a deadlock) are
// in `problems`; simulation.stop_time cutting the work sets `cut_short`, a signal
// `interrupted`. Errors in the input (ConfigError), or a model that cannot be built, throw.
report::VariantResult run_variant(const scenario::Variant& variant, const VariantOptions& options = {});

}  // namespace fabricsim::cli
