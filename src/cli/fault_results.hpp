// The faults: section at run time: stragglers for the executor, each fault's damage for the
// report, and the comparison with the same variant run without faults (run --baseline).
#pragma once

#include "fabric/packet/fault_injector.hpp"
#include "report/run_result.hpp"
#include "scenario/spec.hpp"
#include "workloads/straggler.hpp"

#include <vector>

namespace fabricsim::cli {

bool has_network_faults(const scenario::ScenarioSpec& spec);
std::vector<workloads::Straggler> stragglers_of(const scenario::ScenarioSpec& spec);
// In the scenario's order; `injector` null when no fault needed the network. `ports`: the
// run's port reports, for how far a stuck receiver's pause spread.
std::vector<report::FaultResult> fault_results(const scenario::ScenarioSpec& spec, const fabric::FaultInjector* injector,
                                               Time run_end, const std::vector<PortReport>& ports);
// Rows keyed by name: each collective size, each training job's iteration, the makespan.
std::vector<report::SlowdownRow> compare_with_baseline(const report::VariantResult& with,
                                                       const report::VariantResult& without);

}  // namespace fabricsim::cli
