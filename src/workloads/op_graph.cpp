#include "workloads/op_graph.hpp"

#include "core/errors.hpp"
#include "workloads/op_program.hpp"

#include <fmt/format.h>

namespace fabricsim::workloads {

std::uint32_t OpGraph::add_entry(std::string name) {
    entries_.push_back(Entry{std::move(name)});
    return static_cast<std::uint32_t>(entries_.size() - 1);
}

void OpGraph::set_after(std::uint32_t entry, std::uint32_t must_finish_first) {
    if (entry >= entries_.size() || must_finish_first >= entries_.size() || entry == must_finish_first)
        throw InternalError(
            fmt::format("OpGraph::set_after({}, {}) with {} entries", entry, must_finish_first, entries_.size()));
    entries_[entry].after = must_finish_first;
}

OpId OpGraph::add(Op op) {
    if (op.entry >= entries_.size()) throw InternalError(fmt::format("OpGraph: op of unknown entry {}", op.entry));
    ops_.push_back(op);
    successors_.emplace_back();
    predecessors_.push_back(0);
    return OpId{static_cast<std::uint32_t>(ops_.size() - 1)};
}

std::uint32_t OpGraph::add_stream(std::uint32_t entry, std::shared_ptr<OpProgram> program) {
    if (entry >= entries_.size() || !program) throw InternalError("OpGraph: a stream without a program or entry");
    streamed_ += program->ops_total();
    streams_.push_back(Stream{std::move(program), entry, {}, OpId::invalid()});
    return static_cast<std::uint32_t>(streams_.size() - 1);
}

OpId OpGraph::add_open(std::uint32_t stream, std::uint32_t member) {
    Op op;
    op.kind = OpKind::open;
    op.entry = streams_.at(stream).entry;
    op.group = stream;
    op.member = member;
    const OpId id = add(op);
    streams_[stream].opens.push_back(id);
    ++opens_;
    return id;
}

OpId OpGraph::add_send(std::uint32_t entry, RankId src, RankId dst, Bytes size, Time not_before) {
    Op op;
    op.kind = OpKind::send;
    op.entry = entry;
    op.src = src;
    op.dst = dst;
    op.size = size;
    op.not_before = not_before;
    return add(op);
}

OpId OpGraph::add_compute(std::uint32_t entry, RankId rank, Time duration, Time not_before) {
    Op op;
    op.kind = OpKind::compute;
    op.entry = entry;
    op.src = rank;
    op.duration = duration;
    op.not_before = not_before;
    return add(op);
}

OpId OpGraph::add_group(std::uint32_t entry, GroupOp group, Bytes size, std::int16_t rail) {
    if (group.ranks.empty()) throw InternalError("OpGraph: a group operation without ranks");
    Op op;
    op.kind = OpKind::group;
    op.entry = entry;
    op.src = group.ranks.front();
    op.size = size;
    op.rail = rail;
    op.group = static_cast<std::uint32_t>(groups_.size());
    groups_.push_back(std::move(group));
    return add(op);
}

void OpGraph::add_dependency(OpId earlier, OpId later) {
    // Ops are only ever added after what they wait for, so ids give a topological order
    // and the graph cannot hold a cycle.
    if (earlier.value() >= ops_.size() || later.value() >= ops_.size() || earlier >= later)
        throw InternalError(
            fmt::format("OpGraph: dependency {} -> {} must point forward", earlier.value(), later.value()));
    successors_[earlier.value()].push_back(later);
    ++predecessors_[later.value()];
}

}  // namespace fabricsim::workloads
