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

}  // namespace

Bytes sample_flow_size(const scenario::FlowSizeCdf& cdf, Rng& rng) {
    return Bytes{std::max<std::int64_t>(1, std::llround(cdf.quantile(rng.uniform01())))};
}

TrafficFlows::TrafficFlows(const TrafficSpec& spec, const scenario::ClusterSpec& cluster, std::uint64_t seed,
                           const std::string& entry_name)
    : spec_(spec) {
    Rng rng(seed, "traffic/" + entry_name);
    const int ranks = cluster.ranks();
    switch (spec.pattern) {
        case TrafficPattern::permutation:
            ranks_ = or_all(spec.senders, ranks);
            partner_ = derangement(ranks_.size(), rng);
            count_ = ranks_.size();
            break;
        case TrafficPattern::incast:
            ranks_ = or_all(spec.senders, ranks, spec.receiver);
            count_ = ranks_.size();
            break;
        case TrafficPattern::all_to_all:
            // Round k: sender i sends to i+k (mod n). Every round is a permutation, as in a
            // pairwise all-to-all, so no receiver is hit by everyone at once; the flows are
            // numbered (and so handed to the network) round by round.
            ranks_ = or_all(spec.senders, ranks);
            count_ = ranks_.size() * (ranks_.empty() ? 0 : ranks_.size() - 1);
            break;
        case TrafficPattern::poisson: draw_poisson(cluster, rng); break;
        case TrafficPattern::storage: {
            const int nodes = cluster.storage_nodes();
            if (nodes == 0) throw InternalError("storage traffic on a cluster without storage nodes");
            for (int k = 0; k < nodes; ++k) endpoints_.push_back(cluster.storage_endpoint(k));
            ranks_ = or_all(spec.ranks, ranks);
            count_ = ranks_.size();
            break;
        }
        case TrafficPattern::gpu_pool: {
            if (cluster.clients.nodes == 0) throw InternalError("gpu_pool traffic on a cluster without clients");
            ranks_ = or_all(spec.ranks, ranks);
            const int clients = spec.clients == 0 ? cluster.clients.nodes : spec.clients;
            for (int k = 0; k < clients; ++k) endpoints_.push_back(cluster.client_endpoint(k));
            chains_ = static_cast<std::uint64_t>(clients) * static_cast<std::uint64_t>(spec.concurrency);
            in_ = spec.copy > Bytes::zero() ? 2 : 1;
            out_ = spec.copy_back > Bytes::zero() ? 2 : 1;
            count_ = chains_ * static_cast<std::uint64_t>(spec.calls) * static_cast<std::uint64_t>(in_ + out_);
            break;
        }
    }
}

void TrafficFlows::draw_poisson(const scenario::ClusterSpec& cluster, Rng& rng) {
    const RankLayout layout(cluster);
    ranks_ = or_all(spec_.senders, layout.ranks());
    sender_rate_ = scenario::traffic_sender_rate(cluster);
    // Mean gap between arrivals at one sender: E[size] / (load · rate), in picoseconds.
    const double gap_ps =
        spec_.sizes.mean() * 8.0 / (spec_.load * static_cast<double>(sender_rate_.bits_per_second())) * 1e12;
    const Time end = spec_.start + spec_.duration;
    const auto others = static_cast<std::uint64_t>(layout.ranks() - layout.ranks_per_server());
    for (RankId src : ranks_) {
        sender_first_.push_back(arrivals_.size());
        Time t = spec_.start;
        for (;;) {
            t += Time::ps(std::llround(rng.exponential(gap_ps)));
            if (t >= end) break;
            const Bytes size = sample_flow_size(spec_.sizes, rng);
            // Uniform over the ranks of the other servers: skip the sender's own server's block.
            auto dst = static_cast<int>(rng.below(others));
            if (dst >= layout.server(src) * layout.ranks_per_server()) dst += layout.ranks_per_server();
            arrivals_.push_back({src, RankId{static_cast<RankId::rep>(dst)}, size, t});
        }
    }
    sender_first_.push_back(arrivals_.size());
    arrivals_.shrink_to_fit();
    count_ = arrivals_.size();
}

TrafficFlow TrafficFlows::operator[](std::uint64_t i) const {
    switch (spec_.pattern) {
        case TrafficPattern::permutation: return {ranks_[i], ranks_[partner_[i]], spec_.size, spec_.start};
        case TrafficPattern::incast: return {ranks_[i], spec_.receiver, spec_.size, spec_.start};
        case TrafficPattern::all_to_all: {
            const std::uint64_t n = ranks_.size(), k = 1 + i / n, s = i % n;
            return {ranks_[s], ranks_[(s + k) % n], spec_.size, spec_.start};
        }
        case TrafficPattern::poisson: {
            const Arrival& a = arrivals_[i];
            return {a.src, a.dst, a.size, a.at};
        }
        case TrafficPattern::storage: {
            const RankId node = endpoints_[i % endpoints_.size()];
            if (spec_.operation == scenario::StorageOperation::read) return {node, ranks_[i], spec_.size, spec_.start};
            return {ranks_[i], node, spec_.size, spec_.start};
        }
        case TrafficPattern::gpu_pool: {
            const auto per = static_cast<std::uint64_t>(in_ + out_);
            const std::uint64_t chain = i / (per * static_cast<std::uint64_t>(spec_.calls));
            const std::uint64_t call = i / per % static_cast<std::uint64_t>(spec_.calls);
            const auto pos = static_cast<int>(i % per);
            const RankId client = endpoints_[chain / static_cast<std::uint64_t>(spec_.concurrency)];
            const RankId gpu = ranks_[chain % ranks_.size()];
            const Time not_before = spec_.start + spec_.interval * static_cast<std::int64_t>(call);
            if (pos == 0) return {client, gpu, spec_.request, not_before};
            if (pos < in_) return {client, gpu, spec_.copy, not_before};
            if (pos == in_ && out_ == 2) return {gpu, client, spec_.copy_back};
            return {gpu, client, spec_.response};
        }
    }
    throw InternalError("traffic: unknown pattern");
}

TrafficPlan TrafficFlows::plan(std::uint32_t entry, std::uint32_t first) const {
    TrafficPlan plan;
    plan.entry = entry;
    plan.pattern = spec_.pattern;
    plan.first_op = first;
    plan.end_op = first + static_cast<std::uint32_t>(count_);
    if (spec_.pattern == TrafficPattern::poisson) {
        plan.offered_load = spec_.load;
        plan.senders = static_cast<int>(ranks_.size());
        plan.sender_rate = sender_rate_;
        plan.window_start = spec_.start;
        plan.window = spec_.duration;
    }
    if (spec_.pattern == TrafficPattern::gpu_pool) {
        const std::uint64_t calls = chains_ * static_cast<std::uint64_t>(spec_.calls);
        for (std::uint64_t c = 0; c <= calls; ++c)
            plan.call_first.push_back(first + static_cast<std::uint32_t>(c * static_cast<std::uint64_t>(per_call())));
    }
    return plan;
}

TrafficPlan add_traffic(OpGraph& graph, std::uint32_t entry, const TrafficSpec& spec,
                        const scenario::ClusterSpec& cluster, std::uint64_t seed) {
    const TrafficFlows flows(spec, cluster, seed, graph.entries()[entry].name);
    const auto first = static_cast<std::uint32_t>(graph.ops().size());
    for (std::uint64_t i = 0; i < flows.count(); ++i) {
        const TrafficFlow f = flows[i];
        graph.add_send(entry, f.src, f.dst, f.size, f.not_before);
    }
    if (spec.pattern == TrafficPattern::gpu_pool) {
        // A call's flows back wait for both of its flows in; a chain's next call waits for both
        // of the call before's flows back.
        const std::uint64_t per = static_cast<std::uint64_t>(flows.per_call()),
                            in = static_cast<std::uint64_t>(flows.in_per_call());
        const std::uint64_t calls = flows.chains() * static_cast<std::uint64_t>(flows.calls());
        for (std::uint64_t c = 0; c < calls; ++c) {
            const std::uint64_t base = first + c * per;
            const bool chained = c % static_cast<std::uint64_t>(flows.calls()) > 0;
            if (chained)
                for (std::uint64_t a = base - per + in; a < base; ++a)
                    for (std::uint64_t b = base; b < base + in; ++b)
                        graph.add_dependency(OpId{static_cast<std::uint32_t>(a)}, OpId{static_cast<std::uint32_t>(b)});
            for (std::uint64_t a = base; a < base + in; ++a)
                for (std::uint64_t b = base + in; b < base + per; ++b)
                    graph.add_dependency(OpId{static_cast<std::uint32_t>(a)}, OpId{static_cast<std::uint32_t>(b)});
        }
    }
    return flows.plan(entry, first);
}

}  // namespace fabricsim::workloads
