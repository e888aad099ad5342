#include "workloads/executor.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::workloads {

namespace {
// Event args: the low bit says what the event is, the rest is the op id.
constexpr std::uint64_t kIssue = 0;       // not_before reached
constexpr std::uint64_t kComputeDone = 1;
std::uint64_t encode(OpId id, std::uint64_t what) { return (std::uint64_t{id.value()} << 1) | what; }
}  // namespace

Executor::Executor(OpGraph graph, Network& network)
    : graph_(std::move(graph)),
      network_(network),
      timings_(graph_.ops().size()),
      waiting_(graph_.ops().size()),
      entry_left_(graph_.entries().size(), 0),
      gated_(graph_.entries().size()),
      entry_open_(graph_.entries().size(), Time::zero()),
      entry_ops_(graph_.entries().size()) {
    for (std::uint32_t e = 0; e < graph_.entries().size(); ++e) {
        const auto after = graph_.entries()[e].after;
        if (after != Entry::kNoEntry) gated_[after].push_back(e);
    }
    for (std::uint32_t i = 0; i < graph_.ops().size(); ++i) {
        const Op& op = graph_.ops()[i];
        const OpId id{i};
        const bool gated = graph_.entries()[op.entry].after != Entry::kNoEntry;
        waiting_[i] = graph_.predecessor_count(id) + (gated ? 1 : 0);
        ++entry_left_[op.entry];
        entry_ops_[op.entry].push_back(id);
    }
}

void Executor::start(Simulator& sim) {
    for (std::uint32_t i = 0; i < graph_.ops().size(); ++i)
        if (waiting_[i] == 0) release(sim, OpId{i});
    // An entry with no ops finishes at once and opens its gates.
    for (std::uint32_t e = 0; e < entry_left_.size(); ++e)
        if (entry_ops_[e].empty())
            for (std::uint32_t g : gated_[e])
                for (OpId id : entry_ops_[g])  // entry_open_[g] stays 0: it opens now
                    if (--waiting_[id.value()] == 0) release(sim, id);
}

void Executor::release(Simulator& sim, OpId id) {
    const Op& op = graph_.ops()[id.value()];
    // An entry's times count from when the entry it waits for finished (docs/SCENARIO.md).
    const Time at = op.not_before + entry_open_[op.entry];
    if (at > sim.now())
        sim.at(at, *this, encode(id, kIssue));
    else
        issue(sim, id);
}

void Executor::issue(Simulator& sim, OpId id) {
    const Op& op = graph_.ops()[id.value()];
    timings_[id.value()].start = sim.now();
    if (op.kind == OpKind::compute) {
        if (stragglers_.empty())
            sim.after(op.duration, *this, encode(id, kComputeDone));
        else
            sim.at(compute_finish(sim.now(), op.duration, op.src, stragglers_), *this, encode(id, kComputeDone));
        return;
    }
    if (op.kind == OpKind::group) {
        const GroupOp& g = graph_.groups()[op.group];
        network_.start_group(sim, GroupOperation{MessageId{id.value()}, g.offload, g.ranks, op.size, g.egress, g.ingress, op.rail},
                             *this);
        return;
    }
    Message m;
    m.id = MessageId{id.value()};
    m.src = op.src;
    m.dst = op.dst;
    m.size = op.size;
    m.priority = graph_.entries()[op.entry].priority;
    m.flow_hint = op.flow_hint;
    m.rail = op.rail;
    network_.send(sim, m, *this);
}

void Executor::on_event(Simulator& sim, std::uint64_t arg) {
    const OpId id{static_cast<std::uint32_t>(arg >> 1)};
    if ((arg & 1) == kComputeDone)
        finish(sim, id);
    else
        issue(sim, id);
}

void Executor::on_delivered(Simulator& sim, MessageId id) {
    if (id.value() >= graph_.ops().size())
        throw InternalError(fmt::format("executor: delivery of unknown message {}", id.value()));
    finish(sim, OpId{static_cast<std::uint32_t>(id.value())});
}

void Executor::finish(Simulator& sim, OpId id) {
    OpTiming& t = timings_[id.value()];
    if (t.done()) throw InternalError(fmt::format("executor: op {} finished twice", id.value()));
    t.finish = sim.now();
    ++done_;
    for (OpId next : graph_.successors(id))
        if (--waiting_[next.value()] == 0) release(sim, next);
    const std::uint32_t entry = graph_.ops()[id.value()].entry;
    if (--entry_left_[entry] == 0)
        for (std::uint32_t g : gated_[entry]) {
            entry_open_[g] = sim.now();
            for (OpId gated_op : entry_ops_[g])
                if (--waiting_[gated_op.value()] == 0) release(sim, gated_op);
        }
}

std::vector<EntryTiming> Executor::entry_timings() const {
    // An entry finishes with its last op; an unfinished op (finish = max) keeps it unfinished.
    std::vector<EntryTiming> out(graph_.entries().size(), EntryTiming{Time::max(), Time::zero(), Bytes::zero()});
    for (std::uint32_t i = 0; i < graph_.ops().size(); ++i) {
        const Op& op = graph_.ops()[i];
        EntryTiming& e = out[op.entry];
        e.start = std::min(e.start, timings_[i].start);
        e.finish = std::max(e.finish, timings_[i].finish);
        if (op.kind == OpKind::send) e.bytes += op.size;
    }
    return out;
}

}  // namespace fabricsim::workloads
