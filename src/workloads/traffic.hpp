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
//
// TrafficFlows numbers an entry's flows in the order they are made; add_traffic builds them
// whole into an OpGraph, TrafficProgram (traffic_program.hpp) makes them as the run reaches
// them. Both take the same flows from TrafficFlows, so a flow's number is the same in either.
#pragma once

#include "core/rng.hpp"
#include "scenario/spec.hpp"
#include "workloads/op_graph.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace fabricsim::workloads {

class TrafficProgram;

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
    // The entry's program, while the executor lives; its ids are then the program's flow
    // numbers (first_op = 0). Null: the ops are an OpGraph's (add_traffic).
    const TrafficProgram* program = nullptr;
};

struct TrafficFlow {
    RankId src;
    RankId dst;
    Bytes size;
    Time not_before = Time::zero();
};

// An entry's flows, numbered in the order a whole graph makes them. The patterns' flows follow
// from a list per rank (senders, partners, GPUs) in closed form; poisson's arrivals are random
// and are drawn up front, 24 bytes a flow, as they are what its results list.
class TrafficFlows {
public:
    // `seed`: the scenario's; each entry draws from its own stream, named after the entry.
    TrafficFlows(const scenario::TrafficSpec& spec, const scenario::ClusterSpec& cluster, std::uint64_t seed,
                 const std::string& entry_name);

    std::uint64_t count() const { return count_; }
    TrafficFlow operator[](std::uint64_t i) const;
    // The plan's pattern, load and (gpu_pool) calls, numbered from `first`.
    TrafficPlan plan(std::uint32_t entry, std::uint32_t first) const;

    // poisson: sender s's flows are [sender_first(s), sender_first(s + 1)), in time order.
    std::size_t senders() const { return sender_first_.empty() ? 0 : sender_first_.size() - 1; }
    std::uint64_t sender_first(std::size_t s) const { return sender_first_[s]; }
    // gpu_pool: a chain is `calls` calls of `per_call` flows; the first `in_per_call` go to the
    // GPU (request, copy), the others back (copy_back, response) once those have arrived.
    std::uint64_t chains() const { return chains_; }
    int calls() const { return spec_.calls; }
    int per_call() const { return in_ + out_; }
    int in_per_call() const { return in_; }

private:
    struct Arrival {  // poisson
        RankId src, dst;
        Bytes size;
        Time at;
    };
    void draw_poisson(const scenario::ClusterSpec& cluster, Rng& rng);

    scenario::TrafficSpec spec_;
    std::uint64_t count_ = 0;
    std::vector<RankId> ranks_;         // senders (storage, gpu_pool: the GPUs)
    std::vector<std::size_t> partner_;  // permutation
    std::vector<RankId> endpoints_;     // storage: the nodes; gpu_pool: the clients
    std::vector<Arrival> arrivals_;     // poisson
    std::vector<std::uint64_t> sender_first_;
    Bandwidth sender_rate_;
    std::uint64_t chains_ = 0;
    int in_ = 0, out_ = 0;
};

TrafficPlan add_traffic(OpGraph& graph, std::uint32_t entry, const scenario::TrafficSpec& spec,
                        const scenario::ClusterSpec& cluster, std::uint64_t seed);

// A flow size drawn from `cdf` (HPCC's traffic generator: uniform percentile, linear
// interpolation), rounded to the nearest whole byte, at least 1.
Bytes sample_flow_size(const scenario::FlowSizeCdf& cdf, Rng& rng);

}  // namespace fabricsim::workloads
