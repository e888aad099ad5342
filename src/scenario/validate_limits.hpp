// Checks across keys that keep a run inside the engine's arithmetic (input_limits.hpp): each
// value is within its own limit when it is read; here, the largest message of each workload
// entry at the slowest rate it may cross must take at most kMaxTime.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

namespace fabricsim::scenario {

// A RoCE fabric with PFC on: one port's PFC headroom and reserved space, for each lossless
// priority, must fit the switch buffer (the whole switch is checked when the packet model
// builds it). `root` is the validated tree, for the keys' locations.
void check_pfc_buffers(const ScenarioSpec& spec, const Node& root, Issues& issues);

// Adds one issue per workload entry whose largest message would take longer than kMaxTime.
void check_message_times(const ScenarioSpec& spec, Issues& issues);

// Adds one issue per training entry whose iterations' compute alone, on one GPU, would take
// longer than kMaxTime.
void check_training_times(const ScenarioSpec& spec, Issues& issues);

// The slowest rate a message may cross in `cluster` (NICs, fabric links, NVLink), and what it is.
struct SlowestLink {
    Bandwidth rate;
    std::string what;  // "cluster.server.nic.line_rate"
};
SlowestLink slowest_link(const ClusterSpec& cluster);

// The largest single message an entry sends (a training job: its bf16 gradients, an upper bound).
Bytes largest_message(const WorkloadEntry& entry);

}  // namespace fabricsim::scenario
