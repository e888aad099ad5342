// Turns a scenario's `workload:` entries into one OpGraph and the programs of the entries that
// stream (op_program.hpp: collectives, training jobs, traffic, traces). Each entry kind has its
// own builder file (transfer.cpp, collective_program.cpp, traffic_program.cpp,
// training_program.cpp, trace_program.cpp).
#pragma once

#include "core/network.hpp"
#include "scenario/spec.hpp"
#include "workloads/collective.hpp"
#include "workloads/collective_program.hpp"
#include "workloads/executor.hpp"
#include "workloads/op_graph.hpp"
#include "workloads/trace_program.hpp"
#include "workloads/traffic.hpp"
#include "workloads/traffic_program.hpp"
#include "workloads/training.hpp"
#include "workloads/training_program.hpp"

#include <memory>
#include <vector>

namespace fabricsim::workloads {

struct PlannedCollective {
    std::uint32_t entry;
    std::unique_ptr<CollectiveProgram> owned;  // until attach_programs hands it to the executor
    const CollectiveProgram* program;          // its plan and spans, while the executor lives
};

struct PlannedTraining {
    std::uint32_t entry;
    std::unique_ptr<TrainingProgram> owned;  // until attach_programs hands it to the executor
    const TrainingProgram* program;          // its plan and measurement, while the executor lives
};

struct PlannedTrace {
    std::uint32_t entry;
    std::unique_ptr<TraceProgram> owned;  // until attach_programs hands it to the executor
    const TraceProgram* program;          // its results, while the executor lives
};

struct Workload {
    OpGraph graph;
    std::vector<PlannedCollective> collectives;
    std::vector<TrafficPlan> traffic;                               // each entry's plan; plan.program is its program
    std::vector<std::unique_ptr<TrafficProgram>> traffic_programs;  // until attach_programs
    std::vector<TrainingPlan> training;                             // each job's plan (its ranks), in entry order
    std::vector<PlannedTraining> training_jobs;                     // and its program
    std::vector<PlannedTrace> traces;                               // trace entries (trace_program.hpp)
};

// `network` is asked which in-network operations it offers (NVLS, SHARP).
// `built`, when set, hears the graph's op count as it is built.
Workload build_workload(const scenario::ScenarioSpec& spec, const Network& network, const BuildProgressFn& built = {});

// Hands the workload's programs to `executor` (built on workload.graph); before start().
void attach_programs(Workload& workload, Executor& executor);

// The ops the workload runs: its graph's and its programs'.
std::uint64_t ops_total(const Workload& workload);

}  // namespace fabricsim::workloads
