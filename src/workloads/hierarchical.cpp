// Hierarchical all-reduce: reduce-scatter inside the server, all-reduce of each rank's 1/g
// share across servers on its own rail, all-gather inside the server — the two-level scheme
// of Horovod's hierarchical all-reduce and of NCCL's CollNet, which does the middle step by
// in-switch aggregation (SHARP). Inside the server the phases use NVLS when the network
// offers it (as NCCL pairs NVLS with CollNet/SHARP on H100 systems), ring otherwise.
//
// The buffer is cut into pieces of g·kMessageBytes (one message per ring block inside the
// server) and the three phases are pipelined piece by piece, at most kWindow pieces ahead: piece k's inter-server step
// runs while piece k+1 is reduce-scattered. A piece moves to its next phase when that phase's previous step is done on
// every server (a join), which is stricter than NCCL's per-peer flags; with a single piece the time is exactly the sum
// of the phases' α–β forms.
//
// NVLS inside and SHARP across (NCCL's NVLS algorithm on several nodes, which runs CollNet for
// the network part) is pipelined as NCCL's kernel runs it: each phase is a stage that takes
// the pieces in order, one at a time, so that piece k's NVLS reduce-scatter, piece k−1's
// aggregation and piece k−2's NVLS all-gather run at once, each phase at its own pace:
//
//   RS_k after RS_{k−1} and X_{k−kWindow};  X_k after RS_k and X_{k−1};  AG_k after X_k and AG_{k−1}
//
// (X_{k−kWindow}: NCCL_STEPS = 8 buffer slots between the reduce-scatter and the network).
// A piece is what NCCL's NVLS channels take in one step together: channels × heads × chunk,
// with NCCL's 16 NVLS channels on Hopper (NVLS_NCHANNELS_SM90), one head per rail (g), and
// NCCL's NVLS chunk size: NCCL_NVLS_CHUNKSIZE = 128 KiB, halved to 64, 32 and 16 KiB when the
// buffer is under 64, 8 and 2 × channels × heads × chunk (NVIDIA/nccl src/transport/nvls.cc,
// src/enqueue.cc). On an idle fabric with P pieces the time is the fill (one piece through
// the stages before the slowest) plus P × the slowest stage's time per piece, where the
// stages that share a port share it (RS and AG both use each GPU's NVLink).
#include "workloads/collective.hpp"
#include "workloads/collective_algorithms.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace fabricsim::workloads {

namespace {

// A zero-time op that waits for every op in [first, graph end): the end of a step.
OpId join(OpGraph& graph, std::uint32_t entry, std::uint32_t first, OpId otherwise, RankId rank) {
    const auto end = static_cast<std::uint32_t>(graph.ops().size());
    if (end == first) return otherwise;
    const OpId j = graph.add_compute(entry, rank, Time::zero());
    for (std::uint32_t i = first; i < end; ++i) graph.add_dependency(OpId{i}, j);
    return j;
}

struct Plan {
    RunContext& run;
    std::vector<std::vector<RankId>> servers;  // the group's ranks, server by server
    int channels;
    bool sharp;
    bool nvls;
};

// Reduce-scatter (or all-gather) of `size` inside every server, after `after`.
void intra_step(Plan& p, Bytes size, bool reduce_scatter, OpId after) {
    const auto g = static_cast<std::int64_t>(p.servers.front().size());
    if (g < 2) return;
    if (p.nvls) {
        const Bytes slice{(size.count() + g - 1) / g};
        for (const auto& members : p.servers) {
            GroupOp op{reduce_scatter ? Offload::nvswitch_reduce : Offload::nvswitch_multicast, members,
                       reduce_scatter ? size : slice, reduce_scatter ? slice : size};
            const OpId id = p.run.graph.add_group(p.run.entry, std::move(op), size);
            if (after.valid()) p.run.graph.add_dependency(after, id);
        }
        return;
    }
    SendChain chain(p.run.graph, p.run.entry, after, kWindow);
    for (const auto& members : p.servers)
        for (int c = 0; c < p.channels; ++c) {
            ChannelContext ctx{chain, p.run.layout, c, false};
            std::vector<RankId> order = members;
            std::rotate(order.begin(), order.begin() + c % static_cast<int>(g), order.end());
            ring_rounds(ctx, order, share(size, p.channels, c), static_cast<int>(g) - 1);
        }
}

// All-reduce of share j of `size` across servers among the ranks with local index j.
void inter_step(Plan& p, Bytes size, OpId after) {
    const std::size_t g = p.servers.front().size();
    SendChain chain(p.run.graph, p.run.entry, after, kWindow);
    for (std::size_t j = 0; j < g; ++j) {
        std::vector<RankId> peers;
        for (const auto& members : p.servers) peers.push_back(members[j]);
        const Bytes part = share(size, static_cast<std::int64_t>(g), static_cast<std::int64_t>(j));
        if (p.sharp) {
            const OpId id = p.run.graph.add_group(p.run.entry, GroupOp{Offload::switch_aggregation, peers, part, part},
                                                  part, static_cast<std::int16_t>(p.run.layout.rail(peers.front())));
            if (after.valid()) p.run.graph.add_dependency(after, id);
            continue;
        }
        const auto n = static_cast<int>(peers.size());
        for (int c = 0; c < p.channels; ++c) {
            ChannelContext ctx{chain, p.run.layout, static_cast<int>(j) * p.channels + c, false};
            ring_rounds(ctx, peers, share(part, p.channels, c), 2 * (n - 1));
        }
    }
}

// NCCL's NVLS constants (NVIDIA/nccl src/transport/nvls.cc): channels on Hopper and the
// default chunk (NCCL_NVLS_CHUNKSIZE).
constexpr std::int64_t kNvlsChannels = 16;
constexpr std::int64_t kNvlsChunkBytes = 128 * 1024;

// NCCL's NVLS chunk for a buffer of `bytes` with `concurrent` = channels × heads chunks in
// flight (src/enqueue.cc, NCCL_ALGO_NVLS).
std::int64_t nvls_chunk(std::int64_t bytes, std::int64_t concurrent) {
    std::int64_t chunk = kNvlsChunkBytes;
    if (bytes < 64 * concurrent * chunk && chunk > 65536) chunk = 65536;
    if (bytes < 8 * concurrent * chunk && chunk > 32768) chunk = 32768;
    if (bytes < 2 * concurrent * chunk && chunk > 16384) chunk = 16384;
    return chunk;
}

// Makes every op in [first, graph end) wait for `earlier` (when valid).
void after_all(OpGraph& graph, std::uint32_t first, OpId earlier) {
    if (!earlier.valid()) return;
    for (auto i = first; i < graph.ops().size(); ++i) graph.add_dependency(earlier, OpId{i});
}

// NVLS reduce-scatter, SHARP, NVLS all-gather as three stages over the pieces (see the top).
void nvls_sharp_pipeline(Plan& p, Bytes size, RankId first) {
    OpGraph& graph = p.run.graph;
    const auto g = static_cast<std::int64_t>(p.servers.front().size());
    const std::int64_t piece_bytes = kNvlsChannels * g * nvls_chunk(size.count(), kNvlsChannels * g);
    const std::int64_t pieces = std::max<std::int64_t>(1, (size.count() + piece_bytes - 1) / piece_bytes);
    std::vector<OpId> rs, x, ag;
    const UnitRange built =
        unit_range(p.run.units, static_cast<std::uint32_t>(graph.ops().size()), pieces, size.count() % pieces);
    for (std::int64_t k = 0; k < built.count; ++k) {
        const Bytes piece = share(size, pieces, built.offset + k);
        const auto at = static_cast<std::size_t>(k);
        auto mark = static_cast<std::uint32_t>(graph.ops().size());
        intra_step(p, piece, true, p.run.barrier);
        if (k > 0) after_all(graph, mark, rs[at - 1]);
        if (k >= kWindow) after_all(graph, mark, x[at - kWindow]);
        rs.push_back(join(graph, p.run.entry, mark, p.run.barrier, first));
        mark = static_cast<std::uint32_t>(graph.ops().size());
        inter_step(p, piece, rs[at]);
        if (k > 0) after_all(graph, mark, x[at - 1]);
        x.push_back(join(graph, p.run.entry, mark, rs[at], first));
        mark = static_cast<std::uint32_t>(graph.ops().size());
        intra_step(p, piece, false, x[at]);
        if (k > 0) after_all(graph, mark, ag[at - 1]);
        ag.push_back(join(graph, p.run.entry, mark, x[at], first));
    }
}

}  // namespace

void hierarchical_all_reduce(RunContext& run, const std::vector<RankId>& group, Bytes size, int channels, bool sharp,
                             const Network* network) {
    std::map<int, std::vector<RankId>> by_server;
    for (RankId r : group) by_server[run.layout.server(r)].push_back(r);
    Plan p{run, {}, channels, sharp, false};
    for (auto& [s, members] : by_server) p.servers.push_back(members);
    const std::size_t g = p.servers.front().size();
    for (const auto& members : p.servers)
        if (members.size() != g)
            throw ModelError(fmt::format("hierarchical all_reduce needs the same number of ranks on every server; "
                                         "server {} has {}, server {} has {}",
                                         run.layout.server(p.servers.front().front()), g,
                                         run.layout.server(members.front()), members.size()));
    p.nvls = g > 1 && network != nullptr;
    for (const auto& members : p.servers)
        p.nvls = p.nvls && network->offers(Offload::nvswitch_reduce, members) &&
                 network->offers(Offload::nvswitch_multicast, members);

    const RankId first = group.front();
    if (p.nvls && p.sharp) {
        nvls_sharp_pipeline(p, size, first);
        return;
    }
    const std::int64_t piece_bytes = static_cast<std::int64_t>(g) * kMessageBytes.count();
    const std::int64_t pieces = std::max<std::int64_t>(1, (size.count() + piece_bytes - 1) / piece_bytes);
    // At most kWindow pieces in flight: piece k starts once piece k − kWindow is reduced
    // across servers (NCCL's bounded buffer slots), so that the all-gather of early pieces
    // is not queued behind the reduce-scatter of every later one.
    std::vector<OpId> reduced_pieces;
    const UnitRange built =
        unit_range(run.units, static_cast<std::uint32_t>(run.graph.ops().size()), pieces, size.count() % pieces);
    for (std::int64_t k = 0; k < built.count; ++k) {
        const Bytes piece = share(size, pieces, built.offset + k);
        auto mark = static_cast<std::uint32_t>(run.graph.ops().size());
        intra_step(p, piece, true, run.barrier);
        if (k >= kWindow) {
            const OpId gate = reduced_pieces[static_cast<std::size_t>(k - kWindow)];
            for (auto i = mark; i < run.graph.ops().size(); ++i)
                if (gate.valid()) run.graph.add_dependency(gate, OpId{i});
        }
        const OpId scattered = join(run.graph, run.entry, mark, run.barrier, first);
        mark = static_cast<std::uint32_t>(run.graph.ops().size());
        inter_step(p, piece, scattered);
        const OpId reduced = join(run.graph, run.entry, mark, scattered, first);
        reduced_pieces.push_back(reduced);
        intra_step(p, piece, false, reduced);
    }
}

}  // namespace fabricsim::workloads
