#include "workloads/traffic.hpp"

#include "core/errors.hpp"
#include "scenario/traffic_sender_rate.hpp"
#include "workloads/rank_layout.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fabricsim::workloads {

namespace {

using scenario::TrafficPattern;
using scenario::TrafficSpec;

std::vector<RankId> or_all(const std::vector<RankId>& list, int ranks, std::optional<RankId> skip = std::nullopt) {
    if (!list.empty()) return list;
    std::vector<RankId> all;
    for (int r = 0; r < ranks; ++r)
        if (!skip || skip->value() != static_cast<RankId::rep>(r)) all.emplace_back(static_cast<RankId::rep>(r));
    return all;
}

// A uniformly random derangement: shuffle (Fisher–Yates) until no one is its own partner;
// about e tries on average.
std::vector<std::size_t> derangement(std::size_t n, Rng& rng) {
    std::vector<std::size_t> p(n);
    for (;;) {
        std::iota(p.begin(), p.end(), std::size_t{0});
        for (std::size_t i = n - 1; i > 0; --i) std::swap(p[i], p[rng.below(i + 1)]);
        bool fixed = false;
        for (std::size_t i = 0; i < n && !fixed; ++i) fixed = p[i] == i;
        if (!fixed) return p;
    }
}

void add_poisson(OpGraph& graph, std::uint32_t entry, const TrafficSpec& spec, const scenario::ClusterSpec& cluster,
                 Rng& rng, TrafficPlan& plan) {
    const RankLayout layout(cluster);
    const std::vector<RankId> senders = or_all(spec.senders, layout.ranks());
    const Bandwidth rate = scenario::traffic_sender_rate(cluster);
    // Mean gap between arrivals at one sender: E[size] / (load · rate), in picoseconds.
    const double gap_ps = spec.sizes.mean() * 8.0 / (spec.load * static_cast<double>(rate.bits_per_second())) * 1e12;
    const Time end = spec.start + spec.duration;
    const auto others = static_cast<std::uint64_t>(layout.ranks() - layout.ranks_per_server());
    for (RankId src : senders) {
        Time t = spec.start;
        for (;;) {
            t += Time::ps(std::llround(rng.exponential(gap_ps)));
            if (t >= end) break;
            const Bytes size = sample_flow_size(spec.sizes, rng);
            // Uniform over the ranks of the other servers: skip the sender's own server's block.
            auto dst = static_cast<int>(rng.below(others));
            if (dst >= layout.server(src) * layout.ranks_per_server()) dst += layout.ranks_per_server();
            graph.add_send(entry, src, RankId{static_cast<RankId::rep>(dst)}, size, t);
        }
    }
    plan.offered_load = spec.load;
    plan.senders = static_cast<int>(senders.size());
    plan.sender_rate = rate;
    plan.window_start = spec.start;
    plan.window = spec.duration;
}

void add_gpu_pool(OpGraph& graph, std::uint32_t entry, const TrafficSpec& spec, const scenario::ClusterSpec& cluster,
                  TrafficPlan& plan) {
    const std::vector<RankId> gpus = or_all(spec.ranks, cluster.ranks());
    const int clients = spec.clients == 0 ? cluster.clients.nodes : spec.clients;
    std::size_t chain_index = 0;
    for (int k = 0; k < clients; ++k) {
        const RankId client = cluster.client_endpoint(k);
        for (int c = 0; c < spec.concurrency; ++c, ++chain_index) {
            const RankId gpu = gpus[chain_index % gpus.size()];
            std::vector<OpId> last;  // the previous call's final messages
            for (int i = 0; i < spec.calls; ++i) {
                plan.call_first.push_back(static_cast<std::uint32_t>(graph.ops().size()));
                const Time not_before = spec.start + spec.interval * i;
                std::vector<OpId> in{graph.add_send(entry, client, gpu, spec.request, not_before)};
                if (spec.copy > Bytes::zero()) in.push_back(graph.add_send(entry, client, gpu, spec.copy, not_before));
                std::vector<OpId> out;
                if (spec.copy_back > Bytes::zero()) out.push_back(graph.add_send(entry, gpu, client, spec.copy_back));
                out.push_back(graph.add_send(entry, gpu, client, spec.response));
                for (OpId a : last)
                    for (OpId b : in) graph.add_dependency(a, b);
                for (OpId a : in)
                    for (OpId b : out) graph.add_dependency(a, b);
                last = out;
            }
        }
    }
    plan.call_first.push_back(static_cast<std::uint32_t>(graph.ops().size()));
}

}  // namespace

Bytes sample_flow_size(const scenario::FlowSizeCdf& cdf, Rng& rng) {
    return Bytes{std::max<std::int64_t>(1, std::llround(cdf.quantile(rng.uniform01())))};
}

TrafficPlan add_traffic(OpGraph& graph, std::uint32_t entry, const TrafficSpec& spec,
                        const scenario::ClusterSpec& cluster, std::uint64_t seed) {
    TrafficPlan plan;
    plan.entry = entry;
    plan.pattern = spec.pattern;
    plan.first_op = static_cast<std::uint32_t>(graph.ops().size());
    Rng rng(seed, "traffic/" + graph.entries()[entry].name);
    const int ranks = cluster.ranks();
    switch (spec.pattern) {
        case TrafficPattern::permutation: {
            const auto senders = or_all(spec.senders, ranks);
            const auto partner = derangement(senders.size(), rng);
            for (std::size_t i = 0; i < senders.size(); ++i)
                graph.add_send(entry, senders[i], senders[partner[i]], spec.size, spec.start);
            break;
        }
        case TrafficPattern::incast:
            for (RankId s : or_all(spec.senders, ranks, spec.receiver))
                graph.add_send(entry, s, spec.receiver, spec.size, spec.start);
            break;
        case TrafficPattern::all_to_all: {
            // Round k: sender i sends to i+k (mod n). Every round is a permutation, as in a
            // pairwise all-to-all, so no receiver is hit by everyone at once; the ops are made
            // (and so handed to the network) round by round.
            const auto senders = or_all(spec.senders, ranks);
            const std::size_t n = senders.size();
            for (std::size_t k = 1; k < n; ++k)
                for (std::size_t i = 0; i < n; ++i)
                    graph.add_send(entry, senders[i], senders[(i + k) % n], spec.size, spec.start);
            break;
        }
        case TrafficPattern::poisson: add_poisson(graph, entry, spec, cluster, rng, plan); break;
        case TrafficPattern::storage: {
            const int nodes = cluster.storage_nodes();
            if (nodes == 0) throw InternalError("storage traffic on a cluster without storage nodes");
            const auto gpus = or_all(spec.ranks, ranks);
            for (std::size_t j = 0; j < gpus.size(); ++j) {
                const RankId node = cluster.storage_endpoint(static_cast<int>(j % static_cast<std::size_t>(nodes)));
                if (spec.operation == scenario::StorageOperation::read)
                    graph.add_send(entry, node, gpus[j], spec.size, spec.start);
                else
                    graph.add_send(entry, gpus[j], node, spec.size, spec.start);
            }
            break;
        }
        case TrafficPattern::gpu_pool:
            if (cluster.clients.nodes == 0) throw InternalError("gpu_pool traffic on a cluster without clients");
            add_gpu_pool(graph, entry, spec, cluster, plan);
            break;
    }
    plan.end_op = static_cast<std::uint32_t>(graph.ops().size());
    return plan;
}

}  // namespace fabricsim::workloads
