// `algorithm: auto`: the choice NCCL's tuner makes (src/graph/tuning.cc: for each algorithm it
// estimates latency + size / bandwidth from the topology and takes the fastest). Here the
// estimates are α–β forms whose α and β come from the network model itself (its unloaded
// time of a message inside a server and across servers). Internal to src/workloads/.
#pragma once

#include "core/network.hpp"
#include "scenario/collective_spec.hpp"
#include "workloads/rank_layout.hpp"

#include <string>
#include <vector>

namespace fabricsim::workloads {

struct TunerChoice {
    scenario::CollectiveAlgorithm algorithm;
    std::string reason;  // "auto: tree (estimated 35.2us; ring 61us)"
};

// `network` null: no estimates; ring (pairwise for all_to_all) with the reason saying so.
TunerChoice choose_algorithm(scenario::CollectiveOp op, const std::vector<RankId>& group, Bytes size,
                             const RankLayout& layout, const Network* network);

// The group's ranks that one SHARP group would reduce (one per server, same local index),
// when the group has the same number of ranks on every server; empty otherwise.
std::vector<std::vector<RankId>> rail_groups(const std::vector<RankId>& group, const RankLayout& layout);

}  // namespace fabricsim::workloads
