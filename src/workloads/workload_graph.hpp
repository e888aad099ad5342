// Turns a scenario's `workload:` entries into one OpGraph. Each entry kind has its own
// builder file (transfer.cpp, collective.cpp, traffic.cpp, training.cpp).
#pragma once

#include "core/network.hpp"
#include "scenario/spec.hpp"
#include "workloads/collective.hpp"
#include "workloads/op_graph.hpp"
#include "workloads/traffic.hpp"
#include "workloads/training.hpp"

#include <vector>

namespace fabricsim::workloads {

struct PlannedCollective {
    std::uint32_t entry;
    CollectivePlan plan;
};

struct Workload {
    OpGraph graph;
    std::vector<PlannedCollective> collectives;
    std::vector<TrafficPlan> traffic;
    std::vector<TrainingPlan> training;
};

// `network` is asked which in-network operations it offers (NVLS, SHARP).
Workload build_workload(const scenario::ScenarioSpec& spec, const Network& network);

}  // namespace fabricsim::workloads
