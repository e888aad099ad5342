#include "workloads/executor.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::workloads {

namespace {
// Event args: the low bit says what the event is, the next whether the rest is a graph op id
// or a program op's slot.
constexpr std::uint64_t kIssue = 0;  // not_before reached
constexpr std::uint64_t kComputeDone = 1;
constexpr std::uint64_t kSlot = 2;
std::uint64_t encode(OpId id, std::uint64_t what) { return (std::uint64_t{id.value()} << 2) | what; }
std::uint64_t encode_slot(std::uint32_t slot, std::uint64_t what) { return (std::uint64_t{slot} << 2) | kSlot | what; }
// A program op's MessageId: its slot with the top bit set (graph ops: their op id).
constexpr std::uint64_t kSlotMessage = std::uint64_t{1} << 63;
}  // namespace

Executor::Executor(OpGraph graph, Network& network)
    : graph_(std::move(graph)),
      network_(network),
      timings_(graph_.ops().size()),
      waiting_(graph_.ops().size()),
      entry_left_(graph_.entries().size(), 0),
      gated_(graph_.entries().size()),
      entry_open_(graph_.entries().size(), Time::zero()),
      entry_ops_(graph_.entries().size()),
      programs_(graph_.entries().size()),
      issue_hooks_(graph_.entries().size(), false),
      total_(graph_.ops_run()) {
    for (std::uint32_t e = 0; e < graph_.entries().size(); ++e) {
        const auto after = graph_.entries()[e].after;
        if (after != Entry::kNoEntry) gated_[after].push_back(e);
    }
    for (std::uint32_t i = 0; i < graph_.ops().size(); ++i) {
        const Op& op = graph_.ops()[i];
        const OpId id{i};
        const bool gated = graph_.entries()[op.entry].after != Entry::kNoEntry;
        waiting_[i] = graph_.predecessor_count(id) + (gated ? 1 : 0);
        if (op.kind != OpKind::open) ++entry_left_[op.entry];  // an open op takes no time
        entry_ops_[op.entry].push_back(id);
    }
    // A stream's join also waits for its last op; the stream's ops are its entry's.
    for (const Stream& s : graph_.streams()) {
        if (!s.join.valid()) throw InternalError("executor: a stream without its join");
        ++waiting_[s.join.value()];
        entry_left_[s.entry] += static_cast<std::uint32_t>(s.program->ops_total());
    }
}

void Executor::set_program(std::uint32_t entry, std::unique_ptr<OpProgram> program) {
    if (entry >= programs_.size() || !entry_ops_[entry].empty() || programs_[entry] || !program)
        throw InternalError(fmt::format("executor: a program for entry {}, which has ops or a program", entry));
    total_ += program->ops_total();
    issue_hooks_[entry] = program->wants_issued();
    programs_[entry] = std::move(program);
    streams_ = true;
}

const OpProgram* Executor::program(std::uint32_t entry) const {
    return entry < programs_.size() ? programs_[entry].get() : nullptr;
}

void Executor::start(Simulator& sim) {
    if (!streams_) {
        for (std::uint32_t i = 0; i < graph_.ops().size(); ++i)
            if (waiting_[i] == 0) release(sim, OpId{i});
    } else {
        // Entry by entry, which is id order for a graph built entry after entry.
        for (std::uint32_t e = 0; e < entry_ops_.size(); ++e) {
            if (programs_[e]) {
                if (graph_.entries()[e].after == Entry::kNoEntry) begin_program(sim, e);
                continue;
            }
            for (OpId id : entry_ops_[e])
                if (waiting_[id.value()] == 0) release(sim, id);
        }
    }
    // An entry with no ops finishes at once and opens its gates.
    for (std::uint32_t e = 0; e < entry_left_.size(); ++e) {
        const bool empty = programs_[e] ? programs_[e]->ops_total() == 0 : entry_ops_[e].empty();
        if (!empty) continue;
        for (std::uint32_t g : gated_[e]) {  // entry_open_[g] stays 0: it opens now
            if (programs_[g]) begin_program(sim, g);
            for (OpId id : entry_ops_[g])
                if (--waiting_[id.value()] == 0) release(sim, id);
        }
    }
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
    if (op.kind == OpKind::open) {
        open_stream(sim, id);
        return;
    }
    timings_[id.value()].start = sim.now();
    start_op(sim, op, graph_.entries()[op.entry].priority, MessageId{id.value()}, encode(id, kComputeDone),
             op.kind == OpKind::group ? &graph_.groups()[op.group] : nullptr);
}

void Executor::start_op(Simulator& sim, const Op& op, std::uint8_t priority, MessageId id, std::uint64_t compute_arg,
                        const GroupOp* group) {
    if (op.kind == OpKind::compute) {
        if (stragglers_.empty())
            sim.after(op.duration, *this, compute_arg);
        else
            sim.at(compute_finish(sim.now(), op.duration, op.src, stragglers_), *this, compute_arg);
        return;
    }
    if (op.kind == OpKind::group) {
        if (group == nullptr) throw InternalError("executor: a group op without its group");
        network_.start_group(sim,
                             GroupOperation{id, group->offload, group->ranks, op.size, group->egress, group->ingress,
                                            op.rail, op.flow_hint, group->steps},
                             *this);
        return;
    }
    Message m;
    m.id = id;
    m.src = op.src;
    m.dst = op.dst;
    m.size = op.size;
    m.priority = priority;
    m.flow_hint = op.flow_hint;
    m.rail = op.rail;
    network_.send(sim, m, *this);
}

void Executor::on_event(Simulator& sim, std::uint64_t arg) {
    const bool compute_done = (arg & 1) == kComputeDone;
    if ((arg & kSlot) != 0) {
        const auto slot = static_cast<std::uint32_t>(arg >> 2);
        if (compute_done)
            finish_local(sim, slot);
        else
            issue_local(sim, slot, program_of(live_[slot]).op(live_[slot].local));
        return;
    }
    const OpId id{static_cast<std::uint32_t>(arg >> 2)};
    if (compute_done)
        finish(sim, id);
    else
        issue(sim, id);
}

void Executor::on_delivered(Simulator& sim, MessageId id) {
    if ((id.value() & kSlotMessage) != 0) {
        const std::uint64_t slot = id.value() & ~kSlotMessage;
        if (slot >= live_.size() || live_[slot].start == Time::max())
            throw InternalError(fmt::format("executor: delivery of unknown message {}", id.value()));
        finish_local(sim, static_cast<std::uint32_t>(slot));
        return;
    }
    if (id.value() >= graph_.ops().size())
        throw InternalError(fmt::format("executor: delivery of unknown message {}", id.value()));
    finish(sim, OpId{static_cast<std::uint32_t>(id.value())});
}

void Executor::finish(Simulator& sim, OpId id) {
    OpTiming& t = timings_[id.value()];
    if (t.done()) throw InternalError(fmt::format("executor: op {} finished twice", id.value()));
    t.finish = sim.now();
    last_finish_ = std::max(last_finish_, t.finish);
    ++done_;
    for (OpId next : graph_.successors(id))
        if (--waiting_[next.value()] == 0) release(sim, next);
    const std::uint32_t entry = graph_.ops()[id.value()].entry;
    if (--entry_left_[entry] == 0) open_gates(sim, entry);
}

OpProgram& Executor::program_of(const Live& live) const {
    return live.stream == kNoStream ? *programs_[live.entry] : *graph_.streams()[live.stream].program;
}

void Executor::open_stream(Simulator& sim, OpId id) {
    // Where a whole graph releases the member's first sends, in the gate's successors' order.
    const Op& op = graph_.ops()[id.value()];
    const Stream& s = graph_.streams()[op.group];
    OpTiming& t = timings_[id.value()];
    t.start = t.finish = sim.now();  // the root's finish becomes the stream's last (stream_done)
    ReadyOps& ready = ready_buffer();
    s.program->open(op.member, sim.now(), ready);
    release_ready(sim, s.entry, ready, op.group);
    for (OpId next : graph_.successors(id))
        if (--waiting_[next.value()] == 0) release(sim, next);
}

void Executor::stream_done(Simulator& sim, std::uint32_t stream) {
    // The critical path through the stream: from its root member's open to its last send, as
    // one op (training_measure.cpp walks it as the whole graph's chain of sends).
    const Stream& s = graph_.streams()[stream];
    const std::uint32_t root = s.opens.size() == 1 ? 0 : s.program->root();
    timings_[s.opens.at(root).value()].finish = sim.now();
    if (--waiting_[s.join.value()] == 0) release(sim, s.join);
}

void Executor::open_gates(Simulator& sim, std::uint32_t entry) {
    for (std::uint32_t g : gated_[entry]) {
        entry_open_[g] = sim.now();
        if (programs_[g]) begin_program(sim, g);
        for (OpId gated_op : entry_ops_[g])
            if (--waiting_[gated_op.value()] == 0) release(sim, gated_op);
    }
}

ReadyOps& Executor::ready_buffer() {
    // finish() may nest (a network that delivers inside send()): each level has its own.
    if (depth_ == ready_.size()) ready_.emplace_back();
    ReadyOps& ready = ready_[depth_];
    ready.clear();
    return ready;
}

void Executor::begin_program(Simulator& sim, std::uint32_t entry) {
    ReadyOps& ready = ready_buffer();
    programs_[entry]->begin(ready);
    release_ready(sim, entry, ready);
}

void Executor::release_ready(Simulator& sim, std::uint32_t entry, ReadyOps& ready, std::uint32_t stream) {
    ++depth_;
    for (std::uint64_t local : ready) release_local(sim, entry, local, stream);
    --depth_;
}

void Executor::release_local(Simulator& sim, std::uint32_t entry, std::uint64_t local, std::uint32_t stream) {
    std::uint32_t slot = 0;
    if (!free_.empty()) {
        slot = free_.back();
        free_.pop_back();
    } else {
        slot = static_cast<std::uint32_t>(live_.size());
        live_.emplace_back();
    }
    live_[slot] = Live{entry, stream, local, Time::max()};
    const Op op = program_of(live_[slot]).op(local);
    const Time at = op.not_before + entry_open_[entry];
    if (at > sim.now())
        sim.at(at, *this, encode_slot(slot, kIssue));
    else
        issue_local(sim, slot, op);
}

void Executor::issue_local(Simulator& sim, std::uint32_t slot, const Op& op) {
    Live& live = live_[slot];
    live.start = sim.now();
    const OpProgram& program = program_of(live);
    // Copied first: a network that delivers inside send() frees (and may reuse) the slot.
    const std::uint32_t entry = live.entry;
    const std::uint64_t local = live.local;
    const bool hook = live.stream == kNoStream && issue_hooks_[entry];
    start_op(sim, op, graph_.entries()[entry].priority, MessageId{kSlotMessage | slot}, encode_slot(slot, kComputeDone),
             op.kind == OpKind::group ? program.group(local) : nullptr);
    if (!hook) return;
    ReadyOps& ready = ready_buffer();
    programs_[entry]->issued(local, sim.now(), ready);
    release_ready(sim, entry, ready);
}

void Executor::finish_local(Simulator& sim, std::uint32_t slot) {
    const Live live = live_[slot];
    live_[slot].start = Time::max();
    free_.push_back(slot);
    last_finish_ = std::max(last_finish_, sim.now());
    ++done_;
    OpProgram& program = program_of(live);
    ReadyOps& ready = ready_buffer();
    program.finished(live.local, live.start, sim.now(), ready);
    release_ready(sim, live.entry, ready, live.stream);
    if (live.stream == kNoStream) {
        if (program.done()) open_gates(sim, live.entry);
        return;
    }
    // As a whole graph's send: its successors, then its entry's count (its join comes later).
    if (program.done()) stream_done(sim, live.stream);
    if (--entry_left_[live.entry] == 0) open_gates(sim, live.entry);
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
