#include "workloads/trace_export.hpp"

#include "core/errors.hpp"
#include "scenario/trace_spec.hpp"
#include "workloads/trace_reader.hpp"

#include <fmt/format.h>

#include <functional>
#include <memory>
#include <queue>
#include <vector>

namespace fabricsim::workloads {

ExportedTrace export_trace(const OpGraph& graph, std::uint32_t entry, const std::string& path, int ranks) {
    const auto& ops = graph.ops();
    const auto n = static_cast<std::uint32_t>(ops.size());
    std::vector<std::vector<std::uint32_t>> preds(n);
    std::vector<std::uint32_t> waiting(n, 0);
    for (std::uint32_t i = 0; i < n; ++i) {
        if (ops[i].entry != entry) continue;
        if (ops[i].kind == OpKind::group || ops[i].kind == OpKind::open)
            throw ModelError(fmt::format("op {} is an in-network collective or a stream, which a Chakra trace cannot "
                                         "hold (use a job whose collectives are point-to-point sends)",
                                         i));
        for (OpId s : graph.successors(OpId{i})) {
            if (ops[s.value()].entry != entry) continue;
            preds[s.value()].push_back(i);
            ++waiting[s.value()];
        }
    }
    const auto barrier = [&](std::uint32_t i) {
        return ops[i].kind == OpKind::compute && ops[i].duration == Time::zero();
    };
    std::vector<std::unique_ptr<TraceWriter>> files;
    for (int r = 0; r < ranks; ++r) files.push_back(std::make_unique<TraceWriter>(scenario::trace_file(path, r)));
    ExportedTrace out{ranks, 0};
    // Kahn's order, lowest id first: every node after the nodes it depends on, in every file.
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
    for (std::uint32_t i = 0; i < n; ++i)
        if (ops[i].entry == entry && waiting[i] == 0) ready.push(i);
    const std::uint64_t recv_base = n;  // a send's receive is node n + its id
    while (!ready.empty()) {
        const std::uint32_t i = ready.top();
        ready.pop();
        const Op& op = ops[i];
        const auto rank = static_cast<int>(op.src.value());
        std::vector<std::uint64_t> deps;
        for (std::uint32_t p : preds[i]) {
            const Op& q = ops[p];
            if (static_cast<int>(q.src.value()) == rank)
                deps.push_back(p);
            else if (q.kind == OpKind::send && static_cast<int>(q.dst.value()) == rank)
                deps.push_back(recv_base + p);
            else if (!barrier(i) && !barrier(p))
                throw ModelError(fmt::format("op {} on rank {} waits for op {} on rank {}, which is no message to it: "
                                             "a trace cannot say so",
                                             i, rank, p, q.src.value()));
        }
        if (rank >= ranks || (op.kind == OpKind::send && static_cast<int>(op.dst.value()) >= ranks))
            throw ModelError(fmt::format("op {} is on a rank beyond the {} exported", i, ranks));
        if (op.kind == OpKind::compute) {
            files[static_cast<std::size_t>(rank)]->compute(i, fmt::format("compute {}", i), op.duration, deps);
            ++out.nodes;
        } else {
            const auto dst = static_cast<std::int64_t>(op.dst.value());
            files[static_cast<std::size_t>(rank)]->send(i, fmt::format("send {}", i), dst, i, op.size, deps);
            files[static_cast<std::size_t>(dst)]->recv(recv_base + i, fmt::format("recv {}", i), rank, i, op.size, {});
            out.nodes += 2;
        }
        for (OpId s : graph.successors(OpId{i}))
            if (ops[s.value()].entry == entry && --waiting[s.value()] == 0) ready.push(s.value());
    }
    return out;
}

}  // namespace fabricsim::workloads
