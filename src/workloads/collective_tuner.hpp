// `algorithm: auto`: the choice NCCL's tuner makes (src/graph/tuning.cc: for each algorithm it
// estimates latency + size / bandwidth from the topology and takes the fastest), for each size.
// Here each candidate is run, alone, on the network's tuning model (Network::tuning_model: an
// idle α–β model of the same cluster), so the estimate is the ideal model's own time and the
// choice is right on it by construction. Without a tuning model the estimates are closed
// α–β forms whose α and β come from the network's unloaded times. Internal to src/workloads/.
#pragma once

#include "core/network.hpp"
#include "scenario/collective_spec.hpp"
#include "workloads/rank_layout.hpp"

#include <string>
#include <utility>
#include <vector>

namespace fabricsim::workloads {

struct TunerChoice {
    scenario::CollectiveAlgorithm algorithm;
    std::string reason;  // "auto: tree (estimated 35.2us; ring 61us)"
    // Each candidate's estimate, the fastest first (the times the reason gives).
    std::vector<std::pair<scenario::CollectiveAlgorithm, Time>> estimates;
};

// `network` null: no estimates; ring (pairwise for all_to_all) with the reason saying so.
// `spec` gives the op, ranks, channels and root; `message_bytes` as for add_collective.
TunerChoice choose_algorithm(const scenario::CollectiveSpec& spec, const std::vector<RankId>& group, Bytes size,
                             const RankLayout& layout, const Network* network, Bytes message_bytes);

// The group's ranks that one SHARP group would reduce (one per server, same local index),
// when the group has the same number of ranks on every server; empty otherwise.
std::vector<std::vector<RankId>> rail_groups(const std::vector<RankId>& group, const RankLayout& layout);

}  // namespace fabricsim::workloads
