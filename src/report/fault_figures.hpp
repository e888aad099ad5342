// What the faults: section did to a run (docs/models/faults.md): each fault's damage, and the
// slowdown against the same variant run without faults (run --baseline).
#pragma once

#include "fabric/packet/fault_injector.hpp"
#include "report/run_result.hpp"
#include "scenario/spec.hpp"

#include <vector>

namespace fabricsim::report {

// In the scenario's order; `injector` null when no fault needed the network. `ports`: the
// run's port reports, for how far a stuck receiver's pause spread.
std::vector<FaultResult> fault_results(const scenario::ScenarioSpec& spec, const fabric::FaultInjector* injector,
                                       Time run_end, const std::vector<PortReport>& ports);

// Rows keyed by name: each collective size, each training job's iteration, the makespan.
std::vector<SlowdownRow> compare_with_baseline(const VariantResult& with, const VariantResult& without);

}  // namespace fabricsim::report
