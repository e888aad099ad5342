// `- traffic:` entries: synthetic traffic patterns as send ops (docs/models/traffic.md).
//
//   permutation  each sender sends `size` to a partner: a uniformly random derangement of the
//                senders (no self-sends, each one receives once), drawn from the entry's stream
//   incast       every sender sends `size` to `receiver`
//   all_to_all   every sender sends `size` to every other sender: n(n-1) flows, in rounds:
//                in round k sender i sends to sender i+k (mod n)
//   poisson      per sender, flows arrive as a Poisson process of rate load·R / E[size] during
//                [start, start + duration); sizes from the entry's CDF, destinations uniform
//                over the ranks of the other servers (R: traffic_sender_rate)
//   storage      rank j reads `size` from (or writes it to) storage node j mod nodes
//   gpu_pool     client k runs `concurrency` chains of `calls` calls to a GPU rank; a call is
//                request + host->GPU copy, then (both delivered) GPU->host copy + response
#pragma once

#include "core/rng.hpp"
#include "scenario/spec.hpp"
#include "workloads/op_graph.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim::workloads {

struct TrafficPlan {
    std::uint32_t entry = 0;
    std::uint32_t first_op = 0;  // the entry's ops are [first_op, end_op)
    std::uint32_t end_op = 0;
    scenario::TrafficPattern pattern = scenario::TrafficPattern::permutation;
    // poisson: load = bytes arriving in the window / (senders · sender_rate · window)
    double offered_load = 0;
    int senders = 0;
    Bandwidth sender_rate;
    Time window_start = Time::zero();
    Time window = Time::zero();
    // gpu_pool: call i is ops [call_first[i], call_first[i+1]); one more entry than calls
    std::vector<std::uint32_t> call_first;
};

// `seed`: the scenario's; each entry draws from its own stream, named after the entry.
TrafficPlan add_traffic(OpGraph& graph, std::uint32_t entry, const scenario::TrafficSpec& spec,
                        const scenario::ClusterSpec& cluster, std::uint64_t seed);

// A flow size drawn from `cdf` (HPCC's traffic generator: uniform percentile, linear
// interpolation), rounded to the nearest whole byte, at least 1.
Bytes sample_flow_size(const scenario::FlowSizeCdf& cdf, Rng& rng);

}  // namespace fabricsim::workloads
