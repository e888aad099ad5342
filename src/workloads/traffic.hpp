// `- traffic:` entries: synthetic traffic patterns as send ops (docs/models/traffic.md).
#pragma once

#include "scenario/spec.hpp"
#include "workloads/op_graph.hpp"
#include "workloads/rank_layout.hpp"

#include <cstdint>

namespace fabricsim::workloads {

struct TrafficPlan {
    std::uint32_t entry = 0;
    std::uint32_t first_op = 0;
    std::uint32_t end_op = 0;
};

// `seed`: the scenario's; each entry draws from its own stream.
TrafficPlan add_traffic(OpGraph& graph, std::uint32_t entry, const scenario::TrafficSpec& spec,
                        const scenario::ClusterSpec& cluster, std::uint64_t seed);

}  // namespace fabricsim::workloads
