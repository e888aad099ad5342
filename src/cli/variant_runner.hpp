// Which variants `fabricsim run` runs (--variant) and running them on the local cores (-j).
//
// Variants are independent: each builds its own topology, network, workload and Simulator
// from its own seed, and the library keeps no mutable state outside those objects, so a
// variant's result does not depend on what runs beside it. Results are handed back by index;
// the caller orders them, so -j 1 and -j 8 write the same files (apart from the wall-clock
// figures of "cost").
#pragma once

#include "cli/run_variant.hpp"
#include "scenario/loader.hpp"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace fabricsim::cli {

// The variants named by --variant, in file order; every variant when `names` is empty. An
// unknown name is a ConfigError that lists the names the scenario has.
std::vector<const scenario::Variant*> select_variants(const scenario::LoadedScenario& loaded,
                                                      const std::vector<std::string>& names);

// Threads to use: `requested` (0: every core), at most one per variant.
int worker_count(int requested, std::size_t variants);

struct RunPlan {
    int jobs = 0;                                 // -j: worker threads, 0 every core
    bool check = false;                           // --check
    bool baseline = false;                        // --baseline: a variant with faults runs again without
    bool show_progress = false;                   // a progress bar on stderr
    const std::atomic<int>* interrupt = nullptr;  // stop every variant at its next event
};

// Runs every variant, `plan.jobs` at a time; on_done(index, result) is called, one call at a
// time, as each finishes. After a signal no further variant starts. When a variant throws,
// no further variant starts either, the running ones finish (and are handed to on_done), and
// the exception of the first variant (in `variants` order) that threw is rethrown.
void run_variants(const std::vector<const scenario::Variant*>& variants, const RunPlan& plan,
                  const std::function<void(std::size_t, report::VariantResult)>& on_done);

}  // namespace fabricsim::cli
