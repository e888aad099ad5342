#include "workloads/trace_program.hpp"

#include "core/errors.hpp"
#include "workloads/collective.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fabricsim::workloads {

namespace {

// A collective's network op: the top bit, its instance, its op in the instance's graph.
constexpr std::uint64_t kCollectiveOp = std::uint64_t{1} << 63;
std::uint64_t encode(std::uint32_t instance, std::uint32_t op) {
    return kCollectiveOp | (std::uint64_t{instance} << 32) | op;
}

// A free slot of `pool` (one from `free` when there is one), for a node or an instance.
template <class T>
std::uint32_t take(std::vector<T>& pool, std::vector<std::uint32_t>& free) {
    if (free.empty()) {
        pool.emplace_back();
        return static_cast<std::uint32_t>(pool.size() - 1);
    }
    const std::uint32_t s = free.back();
    free.pop_back();
    return s;
}

}  // namespace

TraceProgram::TraceProgram(TraceIndex index, const scenario::ClusterSpec& cluster, const Network& network,
                           bool timeline)
    : index_(std::move(index)), layout_(cluster), network_(network), record_timeline_(timeline) {
    const std::size_t groups = index_.groups.size();
    ranks_.resize(index_.ranks.size());
    for (auto& r : ranks_) {
        r.seq.assign(groups, 0);
        r.exposed.assign(groups + 1, Time::zero());
    }
    member_pos_.assign(groups, std::vector<int>(index_.ranks.size(), -1));
    for (std::size_t g = 0; g < groups; ++g)
        for (std::size_t m = 0; m < index_.groups[g].members.size(); ++m)
            member_pos_[g][static_cast<std::size_t>(index_.groups[g].members[m])] = static_cast<int>(m);
    pending_.resize(groups);
}

TraceProgram::~TraceProgram() = default;

void TraceProgram::begin(ReadyOps& ready) {
    for (std::uint32_t r = 0; r < ranks_.size(); ++r) {
        ranks_[r].reader = std::make_unique<TraceReader>(index_.files[r], index_.key_path);
        fill(r, Time::zero(), ready);
    }
    drain(ready);
}

void TraceProgram::fill(std::uint32_t rank, Time now, ReadyOps& ready) {
    Rank& r = ranks_[rank];
    while (!r.eof && r.live.size() < kWindow) {
        const std::uint32_t s = take(slots_, free_slots_);
        Slot& x = slots_[s];
        if (!r.reader->next(x.node)) {
            r.eof = true;
            free_slots_.push_back(s);
            break;
        }
        peak_nodes_ = std::max(peak_nodes_, ++live_slots_);
        x.rank = rank;
        x.waiting = 0;
        x.successors.clear();
        x.by = kNoClass;
        x.by_time = Time::zero();
        x.group = -1;
        if (x.node.kind == TraceNodeKind::collective) {
            x.group = index_.group_of(x.node.group);
            x.seq = r.seq[static_cast<std::size_t>(x.group)]++;
        }
        r.live.emplace(x.node.id, s);
        // A dep not held is done: the index checked every dep is an earlier node of the file.
        for (std::uint64_t d : x.node.deps) {
            const auto it = r.live.find(d);
            if (it == r.live.end() || it->second == s) continue;
            slots_[it->second].successors.push_back(s);
            ++x.waiting;
        }
        if (x.waiting == 0) make_ready(s, now, ready);
    }
}

int TraceProgram::class_of(const Slot& x) const {
    switch (x.node.kind) {
        case TraceNodeKind::compute: return 0;
        case TraceNodeKind::collective: return 1 + x.group;
        case TraceNodeKind::send:
        case TraceNodeKind::recv: return 1 + static_cast<int>(index_.groups.size());
        case TraceNodeKind::skipped: return x.by;  // passes on what released it
    }
    return kNoClass;
}

TraceProgram::Channel& TraceProgram::channel(std::uint32_t src, std::uint32_t dst, std::int64_t tag) {
    return channels_[{src, dst, tag}];
}

void TraceProgram::make_ready(std::uint32_t s, Time now, ReadyOps& ready) {
    Slot& x = slots_[s];
    x.ready = now;
    switch (x.node.kind) {
        case TraceNodeKind::compute: ready.push_back(s); return;
        case TraceNodeKind::send:
            if (x.node.size > Bytes::zero()) {
                ready.push_back(s);
                return;
            }
            {  // an empty message arrives as it is sent
                const auto peer = static_cast<std::uint32_t>(index_.index_of(x.node.peer));
                Channel& c = channel(x.rank, peer, x.node.tag);
                if (!c.waiting.empty()) {
                    completing_.emplace_back(c.waiting.front(), now);
                    c.waiting.pop_front();
                } else {
                    c.arrived.push_back(now);
                }
                completing_.emplace_back(s, now);
            }
            return;
        case TraceNodeKind::recv: {
            const auto peer = static_cast<std::uint32_t>(index_.index_of(x.node.peer));
            Channel& c = channel(peer, x.rank, x.node.tag);
            if (c.arrived.empty()) {
                c.waiting.push_back(s);
            } else {
                c.arrived.pop_front();
                completing_.emplace_back(s, now);  // it arrived before the receive was ready
            }
            return;
        }
        case TraceNodeKind::collective: arrive(s, now, ready); return;
        case TraceNodeKind::skipped: completing_.emplace_back(s, now); return;
    }
}

void TraceProgram::arrive(std::uint32_t s, Time now, ReadyOps& ready) {
    const Slot& x = slots_[s];
    const auto g = static_cast<std::size_t>(x.group);
    const auto& members = index_.groups[g].members;
    Pending& p = pending_[g][x.seq];
    if (p.slots.empty()) p.slots.assign(members.size(), UINT32_MAX);
    p.slots[static_cast<std::size_t>(member_pos_[g][x.rank])] = s;
    if (++p.arrived < members.size()) return;
    std::vector<std::uint32_t> slots = std::move(p.slots);
    pending_[g].erase(x.seq);
    const std::uint32_t id = take(instances_, free_instances_);
    auto inst = std::make_unique<Instance>();
    inst->members = std::move(slots);
    inst->start = now;
    inst->group = x.group;
    if (members.size() >= 2 && x.node.size > Bytes::zero()) {
        inst->graph.add_entry("trace collective");
        add_collective(inst->graph, 0, index_.collective(x.group, x.node.op, x.node.size), layout_, &network_);
        const auto n = static_cast<std::uint32_t>(inst->graph.ops().size());
        inst->waiting.resize(n);
        inst->left = n;
        for (std::uint32_t i = 0; i < n; ++i) {
            inst->waiting[i] = inst->graph.predecessor_count(OpId{i});
            if (inst->graph.ops()[i].kind == OpKind::open)
                throw InternalError("trace: a collective made a stream, which a trace cannot run");
        }
        for (std::uint32_t i = 0; i < n; ++i)
            if (inst->waiting[i] == 0) ready.push_back(encode(id, i));
    }
    TraceCollectiveTimes& t = collective_times_[{x.group, static_cast<int>(x.node.op), x.node.size.count()}];
    t.group = x.group;
    t.op = x.node.op;
    t.size = x.node.size;
    t.ranks = static_cast<int>(members.size());
    const bool empty = inst->left == 0;
    instances_[id] = std::move(inst);
    if (empty) {  // nothing to send: the members are done as they meet
        ++t.count;
        for (std::uint32_t m : instances_[id]->members) completing_.emplace_back(m, now);
        instances_[id].reset();
        free_instances_.push_back(id);
    }
}

Op TraceProgram::op(std::uint64_t local) const {
    if ((local & kCollectiveOp) != 0) {
        const auto& inst = *instances_[static_cast<std::uint32_t>((local & ~kCollectiveOp) >> 32)];
        return inst.graph.ops()[static_cast<std::uint32_t>(local)];
    }
    const Slot& x = slots_[static_cast<std::uint32_t>(local)];
    Op op;
    op.src = RankId{cluster_rank(x.rank)};
    if (x.node.kind == TraceNodeKind::compute) {
        op.kind = OpKind::compute;
        op.duration = x.node.duration;
    } else {
        op.kind = OpKind::send;
        op.dst = RankId{static_cast<RankId::rep>(x.node.peer)};
        op.size = x.node.size;
    }
    return op;
}

const GroupOp* TraceProgram::group(std::uint64_t local) const {
    if ((local & kCollectiveOp) == 0) return nullptr;
    const auto& inst = *instances_[static_cast<std::uint32_t>((local & ~kCollectiveOp) >> 32)];
    const Op& op = inst.graph.ops()[static_cast<std::uint32_t>(local)];
    return op.kind == OpKind::group ? &inst.graph.groups()[op.group] : nullptr;
}

void TraceProgram::finished(std::uint64_t local, Time start, Time finish, ReadyOps& ready) {
    first_ = std::min(first_, start);
    if ((local & kCollectiveOp) != 0) {
        const auto id = static_cast<std::uint32_t>((local & ~kCollectiveOp) >> 32);
        Instance& inst = *instances_[id];
        for (OpId next : inst.graph.successors(OpId{static_cast<std::uint32_t>(local)}))
            if (--inst.waiting[next.value()] == 0) ready.push_back(encode(id, next.value()));
        if (--inst.left == 0) {
            const Slot& any = slots_[inst.members.front()];
            TraceCollectiveTimes& t =
                collective_times_[{inst.group, static_cast<int>(any.node.op), any.node.size.count()}];
            ++t.count;
            t.total += finish - inst.start;
            for (std::uint32_t m : inst.members) completing_.emplace_back(m, finish);
            instances_[id].reset();
            free_instances_.push_back(id);
        }
        drain(ready);
        return;
    }
    const auto s = static_cast<std::uint32_t>(local);
    Slot& x = slots_[s];
    x.ready = start;
    if (x.node.kind == TraceNodeKind::send) {
        Channel& c = channel(x.rank, static_cast<std::uint32_t>(index_.index_of(x.node.peer)), x.node.tag);
        if (!c.waiting.empty()) {
            completing_.emplace_back(c.waiting.front(), finish);
            c.waiting.pop_front();
        } else {
            c.arrived.push_back(finish);
        }
    }
    completing_.emplace_back(s, finish);
    drain(ready);
}

void TraceProgram::drain(ReadyOps& ready) {
    while (!completing_.empty()) {
        const auto [s, t] = completing_.front();
        completing_.pop_front();
        complete(s, t, ready);
    }
}

void TraceProgram::note(const Slot& x, const char* category, Time start, Time finish) {
    if (!record_timeline_) return;
    timeline_.push_back(TimelineEvent{cluster_rank(x.rank),
                                      x.node.name.empty() ? fmt::format("{} {}", category, x.node.id) : x.node.name,
                                      category, start, finish});
}

void TraceProgram::complete(std::uint32_t s, Time now, ReadyOps& ready) {
    Slot& x = slots_[s];
    Rank& r = ranks_[x.rank];
    ++nodes_done_;
    if (r.from == Time::max()) r.from = std::min(x.ready, now);
    first_ = std::min(first_, x.ready);
    const int cls = class_of(x);
    switch (x.node.kind) {
        case TraceNodeKind::compute: {
            // The wait since the rank's compute before is charged to what released this one.
            if (x.ready > r.from) {
                const Time gap = x.ready - r.from;
                if (x.by > 0)
                    r.exposed[static_cast<std::size_t>(x.by - 1)] += gap;
                else
                    r.idle += gap;
            }
            const Time busy_from = std::max(x.ready, r.from);
            if (now > busy_from) r.compute += now - busy_from;
            r.from = std::max(r.from, now);
            note(x, "compute", x.ready, now);
            break;
        }
        case TraceNodeKind::send: note(x, "send", x.ready, now); break;
        case TraceNodeKind::recv: note(x, "recv", x.ready, now); break;
        case TraceNodeKind::collective: note(x, "collective", x.ready, now); break;
        case TraceNodeKind::skipped: break;
    }
    if (now >= r.last) {
        r.last = now;
        r.last_class = cls;
    }
    // Its successors: the dep that ended last (ties: the first) is what released each.
    for (std::uint32_t next : x.successors) {
        Slot& y = slots_[next];
        if (y.by == kNoClass || now > y.by_time) {
            y.by = cls;
            y.by_time = now;
        }
        if (--y.waiting == 0) make_ready(next, now, ready);
    }
    r.live.erase(x.node.id);
    free_slots_.push_back(s);
    --live_slots_;
    fill(x.rank, now, ready);
}

std::vector<TraceCollectiveTimes> TraceProgram::collectives() const {
    std::vector<TraceCollectiveTimes> out;
    for (const auto& [key, t] : collective_times_) out.push_back(t);
    return out;
}

TraceBreakdown TraceProgram::breakdown() const {
    TraceBreakdown b;
    b.exposed.assign(index_.groups.size() + 1, Time::zero());
    if (ranks_.empty() || first_ == Time::max()) return b;
    std::size_t c = 0;
    for (std::size_t r = 1; r < ranks_.size(); ++r)
        if (ranks_[r].last > ranks_[c].last) c = r;
    const Rank& r = ranks_[c];
    b.critical = index_.ranks[c];
    b.time = r.last - first_;
    b.compute = r.compute;
    b.exposed = r.exposed;
    // After its last compute the rank waits for its last node: charged to that node's kind.
    Time tail = r.from == Time::max() ? r.last - first_ : r.last - std::max(r.from, first_);
    if (r.last < r.from) tail = Time::zero();
    if (r.last_class > 0) b.exposed[static_cast<std::size_t>(r.last_class - 1)] += tail;
    Time accounted = b.compute;
    for (Time e : b.exposed) accounted += e;
    b.idle = b.time > accounted ? b.time - accounted : Time::zero();
    return b;
}

}  // namespace fabricsim::workloads
