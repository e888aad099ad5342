#include "workloads/collective.hpp"

#include "core/errors.hpp"
#include "workloads/collective_algorithms.hpp"
#include "workloads/collective_tuner.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

namespace fabricsim::workloads {

using scenario::CollectiveAlgorithm;
using scenario::CollectiveOp;

std::string_view to_string(CollectiveOp op) {
    switch (op) {
        case CollectiveOp::all_reduce: return "all_reduce";
        case CollectiveOp::all_gather: return "all_gather";
        case CollectiveOp::reduce_scatter: return "reduce_scatter";
        case CollectiveOp::all_to_all: return "all_to_all";
        case CollectiveOp::broadcast: return "broadcast";
        case CollectiveOp::send_recv: return "send_recv";
    }
    return "unknown";
}

std::string_view to_string(CollectiveAlgorithm a) {
    switch (a) {
        case CollectiveAlgorithm::automatic: return "auto";
        case CollectiveAlgorithm::ring: return "ring";
        case CollectiveAlgorithm::tree: return "tree";
        case CollectiveAlgorithm::halving_doubling: return "halving_doubling";
        case CollectiveAlgorithm::pairwise: return "pairwise";
        case CollectiveAlgorithm::nvls: return "nvls";
        case CollectiveAlgorithm::hierarchical: return "hierarchical";
        case CollectiveAlgorithm::sharp: return "sharp";
    }
    return "unknown";
}

double bus_factor(CollectiveOp op, int n) {
    const double dn = n;
    switch (op) {
        case CollectiveOp::all_reduce: return 2.0 * (dn - 1) / dn;
        case CollectiveOp::all_gather:
        case CollectiveOp::reduce_scatter:
        case CollectiveOp::all_to_all: return (dn - 1) / dn;
        case CollectiveOp::broadcast:
        case CollectiveOp::send_recv: return 1.0;
    }
    return 1.0;
}

std::vector<RankId> collective_group(const scenario::CollectiveSpec& spec, const RankLayout& layout) {
    std::vector<RankId> ranks = spec.ranks;
    if (ranks.empty())
        for (int r = 0; r < layout.ranks(); ++r) ranks.push_back(RankId{static_cast<RankId::rep>(r)});
    std::sort(ranks.begin(), ranks.end());
    return ranks;
}

namespace {

int servers_spanned(const std::vector<RankId>& group, const RankLayout& layout) {
    int count = 0, last = -1;
    for (RankId r : group)  // sorted: a server's ranks are adjacent
        if (layout.server(r) != last) {
            last = layout.server(r);
            ++count;
        }
    return count;
}

// NCCL's channel count is the outcome of its topology search; these defaults follow what it
// reports on HGX-class servers (two channels per NIC across servers; docs/models/collectives.md).
int default_channels(const std::vector<RankId>& group, const RankLayout& layout) {
    if (servers_spanned(group, layout) > 1) return 2 * layout.nics_per_server();
    return std::min(16, std::max(1, static_cast<int>(group.size())));
}

}  // namespace

// Channel c's ring: servers in order; inside each server the group's ranks rotated so the
// ring enters the server at the rank served by NIC c mod nics (rail-aligned, as NCCL's rings
// `NET/c GPU/x … NET/c` are). A server's ranks keep the group's order before the rotation.
// Called at every ring collective's start (once per channel): it works in the one vector it
// returns (the group is most often sorted by server already, then nothing is sorted).
std::vector<RankId> ring_order(const std::vector<RankId>& group, const RankLayout& layout, int channel) {
    std::vector<RankId> order = group;
    if (order.empty()) return order;
    const auto by_server = [&](RankId a, RankId b) { return layout.server(a) < layout.server(b); };
    if (!std::is_sorted(order.begin(), order.end(), by_server)) std::stable_sort(order.begin(), order.end(), by_server);
    const bool one_server = layout.server(order.front()) == layout.server(order.back());
    const int rail = channel % layout.nics_per_server();
    for (auto first = order.begin(); first != order.end();) {
        const int server = layout.server(*first);
        const auto last = std::find_if(first, order.end(), [&](RankId r) { return layout.server(r) != server; });
        const auto members = last - first;
        std::ptrdiff_t start = 0;
        if (!one_server)
            while (start < members && layout.rail(first[start]) != rail) ++start;
        if (one_server || start == members) start = channel % members;
        std::rotate(first, first + start, last);
        first = last;
    }
    return order;
}

namespace {

void check_supported(CollectiveOp op, CollectiveAlgorithm a, const std::vector<RankId>& group, const RankLayout& layout,
                     const Network* network) {
    const auto fail = [&](std::string why) {
        throw ModelError(fmt::format("{} with algorithm {}: {}", to_string(op), to_string(a), why));
    };
    const bool spans = servers_spanned(group, layout) > 1;
    switch (a) {
        case CollectiveAlgorithm::automatic: return;
        case CollectiveAlgorithm::ring:
            if (op == CollectiveOp::all_to_all) fail("use pairwise for all_to_all");
            return;
        case CollectiveAlgorithm::halving_doubling:
            if (op != CollectiveOp::all_reduce && op != CollectiveOp::reduce_scatter && op != CollectiveOp::all_gather)
                fail("halving-doubling runs all_reduce, reduce_scatter and all_gather");
            if (!std::has_single_bit(group.size()))
                fail(fmt::format("needs a power-of-two number of ranks, got {}", group.size()));
            return;
        case CollectiveAlgorithm::pairwise:
            if (op != CollectiveOp::all_to_all) fail("pairwise runs all_to_all only");
            return;
        case CollectiveAlgorithm::tree:
            if (op != CollectiveOp::all_reduce) fail("the double binary tree runs all_reduce only (as in NCCL)");
            return;
        case CollectiveAlgorithm::hierarchical:
            if (op != CollectiveOp::all_reduce) fail("hierarchical runs all_reduce only");
            if (!spans) fail("needs ranks on more than one server");
            if (rail_groups(group, layout).empty()) fail("needs the same number of ranks on every server");
            return;
        case CollectiveAlgorithm::nvls: {
            if (op != CollectiveOp::all_reduce && op != CollectiveOp::reduce_scatter && op != CollectiveOp::all_gather)
                fail("NVLS runs all_reduce, reduce_scatter and all_gather");
            const Offload o = op == CollectiveOp::all_gather ? Offload::nvswitch_multicast : Offload::nvswitch_reduce;
            if (network == nullptr || !network->offers(o, group))
                fail(fmt::format("the {} network does not offer {} over these {} ranks (NVLS needs every rank on one "
                                 "server whose NVSwitches multicast and reduce: NVLink4 or later)",
                                 network ? network->model_name() : "chosen", to_string(o), group.size()));
            return;
        }
        case CollectiveAlgorithm::sharp: {
            if (op != CollectiveOp::all_reduce) fail("SHARP runs all_reduce only");
            if (!spans) fail("needs ranks on more than one server");
            const auto groups = rail_groups(group, layout);
            if (groups.empty()) fail("needs the same number of ranks on every server");
            for (const auto& peers : groups)
                if (network == nullptr || !network->offers(Offload::switch_aggregation, peers))
                    fail(fmt::format("the {} network does not offer switch_aggregation over these ranks (SHARP needs "
                                     "an InfiniBand fabric of switches with sharp: true, "
                                     "and a network model that runs it: ideal today)",
                                     network ? network->model_name() : "chosen"));
            return;
        }
    }
}

void build_channel(ChannelContext& ctx, CollectiveOp op, CollectiveAlgorithm a, const std::vector<RankId>& order,
                   Bytes bytes, RankId root) {
    const int n = static_cast<int>(order.size());
    if (a == CollectiveAlgorithm::halving_doubling) {
        halving_doubling(ctx, order, bytes, op != CollectiveOp::all_gather, op != CollectiveOp::reduce_scatter);
        return;
    }
    if (a == CollectiveAlgorithm::tree) {
        double_binary_tree_all_reduce(ctx, order, bytes);
        return;
    }
    switch (op) {
        case CollectiveOp::all_reduce: ring_rounds(ctx, order, bytes, 2 * (n - 1)); return;
        case CollectiveOp::reduce_scatter:
        case CollectiveOp::all_gather: ring_rounds(ctx, order, bytes, n - 1); return;
        case CollectiveOp::all_to_all: pairwise_all_to_all(ctx, order, bytes); return;
        case CollectiveOp::send_recv: shift_send_recv(ctx, order, bytes); return;
        case CollectiveOp::broadcast: {
            std::vector<RankId> from_root = order;
            auto it = std::find(from_root.begin(), from_root.end(), root);
            std::rotate(from_root.begin(), it, from_root.end());
            ring_broadcast(ctx, from_root, bytes);
            return;
        }
    }
}

// Channels of one run: the scenario's, else NCCL's defaults for the algorithm.
int channels_for(CollectiveAlgorithm a, int requested, const std::vector<RankId>& group, const RankLayout& layout) {
    if (requested > 0) return requested;
    if (a == CollectiveAlgorithm::nvls || a == CollectiveAlgorithm::sharp) return 1;
    if (a == CollectiveAlgorithm::hierarchical) return 2;  // per ring: NCCL's two per NIC
    return default_channels(group, layout);
}

}  // namespace

void check_collective(const scenario::CollectiveSpec& spec, const std::vector<RankId>& group, const RankLayout& layout,
                      const Network* network) {
    check_supported(spec.op, spec.algorithm, group, layout, network);
    if (spec.op == CollectiveOp::broadcast && std::find(group.begin(), group.end(), spec.root) == group.end())
        throw ModelError(fmt::format("broadcast root {} is not one of the collective's ranks", spec.root.value()));
}

SizeChoice choose_for_size(const scenario::CollectiveSpec& spec, const std::vector<RankId>& group, Bytes size,
                           const RankLayout& layout, const Network* network, Bytes message_bytes) {
    // auto chooses for each size, as NCCL's tuner does for each call.
    TunerChoice choice{spec.algorithm, "", {}};
    if (spec.algorithm == CollectiveAlgorithm::automatic)
        choice = choose_algorithm(spec, group, size, layout, network, message_bytes);
    const int channels = channels_for(choice.algorithm, spec.channels, group, layout);
    return {choice.algorithm, std::move(choice.reason), channels};
}

void build_run(OpGraph& graph, std::uint32_t entry, OpId barrier, const scenario::CollectiveSpec& spec,
               const SizeChoice& choice, const std::vector<RankId>& group, Bytes size, const RankLayout& layout,
               const Network* network, Bytes message_bytes, const UnitWindow* units) {
    RunContext whole{graph, entry, barrier, layout, units};
    switch (choice.algorithm) {
        case CollectiveAlgorithm::nvls: nvls_collective(whole, spec.op, group, size); return;
        case CollectiveAlgorithm::hierarchical:
        case CollectiveAlgorithm::sharp:
            hierarchical_all_reduce(whole, group, size, choice.channels, choice.algorithm == CollectiveAlgorithm::sharp,
                                    network);
            return;
        default: {
            SendChain chain(graph, entry, barrier, kWindow);
            for (int c = 0; c < choice.channels; ++c) {
                const bool rail_aligned =
                    choice.algorithm == CollectiveAlgorithm::ring || choice.algorithm == CollectiveAlgorithm::tree;
                ChannelContext ctx{chain, layout, c, rail_aligned, message_bytes, units};
                const Bytes bytes = share(size, choice.channels, c);
                const std::vector<RankId> order =
                    choice.algorithm == CollectiveAlgorithm::halving_doubling ? group : ring_order(group, layout, c);
                build_channel(ctx, spec.op, choice.algorithm, order, bytes, spec.root);
            }
        }
    }
}

CollectivePlan add_collective(OpGraph& graph, std::uint32_t entry, const scenario::CollectiveSpec& spec,
                              const RankLayout& layout, const Network* network, Bytes message_bytes) {
    if (message_bytes <= Bytes::zero()) throw InternalError("add_collective: message_bytes must be positive");
    const std::vector<RankId> group = collective_group(spec, layout);
    check_collective(spec, group, layout, network);

    CollectivePlan plan;
    plan.op = spec.op;
    plan.ranks = static_cast<int>(group.size());
    // Runs go back to back: each waits for a zero-time join of the previous one.
    OpId barrier = OpId::invalid();
    for (Bytes size : spec.sizes) {
        const SizeChoice choice = choose_for_size(spec, group, size, layout, network, message_bytes);
        for (int it = 0; it < spec.iterations; ++it) {
            CollectiveRun run;
            run.size = size;
            run.iteration = it;
            run.algorithm = choice.algorithm;
            run.choice = choice.reason;
            run.channels = choice.channels;
            run.first_op = static_cast<std::uint32_t>(graph.ops().size());
            build_run(graph, entry, barrier, spec, choice, group, size, layout, network, message_bytes);
            run.end_op = static_cast<std::uint32_t>(graph.ops().size());
            plan.runs.push_back(std::move(run));
            if (plan.runs.back().end_op > plan.runs.back().first_op) {
                barrier = graph.add_compute(entry, group.front(), Time::zero());
                for (std::uint32_t i = plan.runs.back().first_op; i < plan.runs.back().end_op; ++i)
                    graph.add_dependency(OpId{i}, barrier);
            }
        }
    }
    return plan;
}

}  // namespace fabricsim::workloads
