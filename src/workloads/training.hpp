// `- training:` entries: one training iteration's compute and communication as ops
// (docs/models/training.md).
#pragma once

#include "core/network.hpp"
#include "scenario/spec.hpp"
#include "workloads/op_graph.hpp"

#include <cstdint>

namespace fabricsim::workloads {

struct TrainingPlan {
    std::uint32_t entry = 0;
    std::uint32_t first_op = 0;
    std::uint32_t end_op = 0;
};

TrainingPlan add_training(OpGraph& graph, std::uint32_t entry, const scenario::TrainingSpec& spec,
                          const scenario::ClusterSpec& cluster, const Network& network, std::uint64_t seed);

}  // namespace fabricsim::workloads
