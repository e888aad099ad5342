// A training job as a program (training_program.hpp; the model: docs/models/training.md).
#include "workloads/training_program.hpp"

#include "core/errors.hpp"
#include "workloads/collective.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::workloads {

namespace {
// Local ids: an op of the job is its Ref; a ring's send sets the top bit, its stream's slot in
// the next 25 bits and the send's id in the stream in the 38 below (RingStream's channel << 40
// | index, of at most 64 channels and 32-bit indices, packed as channel << 32 | index).
constexpr std::uint64_t kStreamBit = std::uint64_t{1} << 63;
constexpr int kSlotShift = 38;
constexpr std::uint64_t kStreamLocal = (std::uint64_t{1} << kSlotShift) - 1;
constexpr std::uint32_t kMaxSlots = std::uint32_t{1} << 25;
constexpr std::uint64_t kIndex = 0xFFFFFFFFu;
std::uint64_t encode(std::uint32_t slot, std::uint64_t ring_local) {
    return kStreamBit | (std::uint64_t{slot} << kSlotShift) | ((ring_local >> 40) << 32) | (ring_local & kIndex);
}
std::uint32_t slot_of(std::uint64_t local) { return static_cast<std::uint32_t>((local & ~kStreamBit) >> kSlotShift); }
std::uint64_t ring_local(std::uint64_t local) {
    const std::uint64_t l = local & kStreamLocal;
    return ((l >> 32) << 40) | (l & kIndex);
}
}  // namespace

TrainingProgram::TrainingProgram(const scenario::TrainingSpec& spec, const scenario::ClusterSpec& cluster,
                                 const Network& network, TrainingPlan plan)
    : spec_(spec),
      plan_(std::move(plan)),
      iterations_(spec.iterations),
      layout_(cluster),
      network_(network),
      job_rank_(static_cast<std::size_t>(layout_.ranks()), UINT32_MAX),
      tally_(plan_.ranks.size()),
      inside_(cluster.server.nvlink.links_per_gpu > 0 ? LinkClass::nvlink : LinkClass::pcie) {
    for (std::size_t j = 0; j < plan_.ranks.size(); ++j)
        job_rank_[plan_.ranks[j].value()] = static_cast<std::uint32_t>(j);
    for (auto& b : rank_bytes_) b.assign(plan_.ranks.size(), {});
    count_ops(spec_, layout_, network);
    TrainingSink& sink = *this;
    steps_ = std::make_unique<TrainingSteps>(spec_, plan_.ranks, layout_, network_, sink);
    // add_training's sweep: each stage as far as its inputs allow, stage after stage, until done.
    const auto& order = steps_->order();
    sweep_.resize(order.size());
    std::vector<std::size_t> next(order.size(), 0);
    std::vector<std::vector<bool>> arrived_f(order.size(),
                                             std::vector<bool>(static_cast<std::size_t>(plan_.micro_batches)));
    auto arrived_b = arrived_f;
    const int pp = static_cast<int>(order.size());
    bool progress = true;
    while (progress) {
        progress = false;
        for (int p = 0; p < pp; ++p) {
            const auto pu = static_cast<std::size_t>(p);
            while (next[pu] < order[pu].size()) {
                const TrainingStep s = order[pu][next[pu]];
                const auto ju = static_cast<std::size_t>(s.micro);
                if (!(s.forward ? (p == 0 || arrived_f[pu][ju]) : (p == pp - 1 || arrived_b[pu][ju]))) break;
                if (s.forward && p + 1 < pp) arrived_f[pu + 1][ju] = true;
                if (!s.forward && p > 0) arrived_b[pu - 1][ju] = true;
                sweep_[pu].push_back(step_of_sweep_.size());
                step_of_sweep_.emplace_back(p, next[pu]);
                ++next[pu];
                progress = true;
            }
        }
    }
    steps_per_iteration_ = step_of_sweep_.size();
    for (std::size_t p = 0; p < order.size(); ++p)
        if (next[p] != order[p].size()) throw InternalError("training: the 1F1B schedule did not complete");
}

void TrainingProgram::count_ops(const scenario::TrainingSpec& spec, const RankLayout& layout, const Network& network) {
    // The ops a run counts, in closed form: one iteration's steps are of three kinds per stage
    // (a forward, a backward, the last backward), each the same whichever micro-batch; one of
    // each is made into a sink that only counts.
    class Counter final : public TrainingSink {
    public:
        Counter(const RankLayout& layout, const Network& network) : layout_(layout), network_(network) {}
        std::uint64_t ops = 0;
        Ref compute(RankId, Time, TrainingOpKind, const Ref*, std::size_t) override { return fresh(1); }
        Ref send(RankId, RankId, Bytes, Ref) override { return fresh(1); }
        Ref stream(std::shared_ptr<MemberStream> ring, const std::vector<Ref>&, RankId, TrainingOpKind) override {
            return fresh(2 + ring->ops_total());  // its sends, its join, the barrier (no open counts)
        }
        Ref whole(const scenario::CollectiveSpec& spec, Bytes message, const std::vector<RankId>&,
                  const std::vector<Ref>&, TrainingOpKind) override {
            OpGraph scratch;
            scratch.add_entry("count");
            add_collective(scratch, 0, spec, layout_, &network_, message);
            return fresh(scratch.ops_run() + 1);
        }

    private:
        Ref fresh(std::uint64_t n) {
            ops += n;
            return next_++;
        }
        const RankLayout& layout_;
        const Network& network_;
        Ref next_ = 0;
    };
    Counter counter(layout, network);
    TrainingSteps steps(spec, plan_.ranks, layout, network, counter);
    steps.start();
    const auto& order = steps.order();
    const std::uint64_t m = static_cast<std::uint64_t>(plan_.micro_batches);
    std::uint64_t per_iteration = 1;  // its closing barrier
    for (std::size_t p = 0; p < order.size(); ++p) {
        std::uint64_t forward = 0, backward = 0, last = 0;
        for (std::size_t k = 0; k < order[p].size(); ++k) {
            const TrainingStep s = order[p][k];
            const bool first_backward = !s.forward && s.micro == 0 && m > 1;
            const bool last_backward = !s.forward && s.micro == static_cast<int>(m) - 1;
            if (!(s.forward && s.micro == 0) && !first_backward && !last_backward) continue;
            const std::uint64_t before = counter.ops;
            steps.build(static_cast<int>(p), k);
            const std::uint64_t n = counter.ops - before;
            (s.forward ? forward : last_backward ? last : backward) = n;
        }
        per_iteration += m * forward + (m - 1) * backward + last;
    }
    total_ = 1 + static_cast<std::uint64_t>(iterations_) * per_iteration;  // and the start barrier
    left_ = total_;
}

std::uint64_t TrainingProgram::step_key(int iteration, std::size_t sweep) const {
    // Steps in add_training's order: the start barrier, then per iteration its steps and its end.
    return static_cast<std::uint64_t>(iteration) * (steps_per_iteration_ + 1) + 1 + sweep;
}

// --- Making ops (TrainingSink) ---------------------------------------------------------

TrainingSink::Ref TrainingProgram::make(const Op& op, TrainingOpKind kind, std::uint32_t rank) {
    const Ref r = next_++;
    if (rank >= (1u << 29)) throw InternalError("training program: more job ranks than a record holds");
    std::uint32_t slot = 0;
    if (!free_nodes_.empty()) {
        slot = free_nodes_.back();
        free_nodes_.pop_back();
    } else {
        slot = static_cast<std::uint32_t>(nodes_.size());
        nodes_.emplace_back();
    }
    Record rec;
    rec.key = (key_step_ << 32) | key_index_++;
    rec.rank_kind = rank << 3 | static_cast<std::uint32_t>(kind);
    rec.node = slot;
    records_.push_back(rec);
    peak_records_ = std::max(peak_records_, records_.size());
    Node& n = nodes_[slot];
    n.op = op;
    n.op.entry = plan_.entry;
    n.waiting = 0;
    n.stream = UINT32_MAX;
    n.group = -1;
    peak_ops_ = std::max(peak_ops_, ++live_nodes_);
    return r;
}

void TrainingProgram::depend(Ref earlier, Ref later) {
    Node& l = node(later);
    l.predecessors.push_back(earlier);
    if (record(earlier).node == kNoNode) return;  // finished already: it waits no more
    // After every successor of the same or an earlier step: the whole graph's order, where a
    // step's dependencies are added as it is made and steps are made in the sweep's order.
    auto& s = node(earlier).successors;
    const auto pos =
        std::upper_bound(s.begin(), s.end(), key_step_,
                         [](std::uint64_t step, const std::pair<std::uint64_t, Ref>& e) { return step < e.first; });
    s.insert(pos, {key_step_, later});
    ++l.waiting;
}

TrainingSink::Ref TrainingProgram::compute(RankId rank, Time duration, TrainingOpKind kind, const Ref* after,
                                           std::size_t n) {
    Op op;
    op.kind = OpKind::compute;
    op.src = rank;
    op.duration = duration;
    const Ref r = make(op, kind, job_rank(rank));
    for (std::size_t i = 0; i < n; ++i)
        if (after[i] != kNone) depend(after[i], r);
    if (making_ready_ != nullptr && node(r).predecessors.empty()) {
        // A barrier of nothing (the reduction of a model's 0 expert bytes): the whole graph
        // starts it with the run; it is started as it is made, where it waits for nothing and
        // holds up nothing but its iteration's end.
        record(r).start = now_;
        making_ready_->push_back(r);
    }
    return r;
}

TrainingSink::Ref TrainingProgram::send(RankId src, RankId dst, Bytes size, Ref after) {
    Op op;
    op.kind = OpKind::send;
    op.src = src;
    op.dst = dst;
    op.size = size;
    const Ref r = make(op, TrainingOpKind::pp, job_rank(src));
    if (after != kNone) depend(after, r);
    const LinkClass c = layout_.same_server(src, dst) ? inside_ : LinkClass::fabric;
    link_bytes_[static_cast<std::size_t>(c)] += size;
    rank_bytes_[static_cast<std::size_t>(making_ % 2)][job_rank(src)]
               [static_cast<std::size_t>(TrainingOpKind::pp) - 1] += size;
    return r;
}

TrainingSink::Ref TrainingProgram::stream(std::shared_ptr<MemberStream> ring, const std::vector<Ref>& gates,
                                          RankId front, TrainingOpKind kind) {
    std::uint32_t slot = 0;
    if (!free_streams_.empty()) {
        slot = free_streams_.back();
        free_streams_.pop_back();
    } else {
        slot = static_cast<std::uint32_t>(streams_.size());
        if (slot >= kMaxSlots) throw InternalError("training program: more ring collectives in flight than it numbers");
        streams_.emplace_back();
    }
    StreamSlot& st = streams_[slot];
    st.ring = std::move(ring);
    st.opens.clear();
    st.kind = kind;
    st.iteration = making_;
    std::vector<Ref> all;
    for (std::size_t m = 0; m < gates.size(); ++m) {
        Op op;
        op.kind = OpKind::open;
        op.src = front;
        op.member = gates.size() == 1 ? OpProgram::kAllMembers : static_cast<std::uint32_t>(m);
        const Ref o = make(op, kind, job_rank(front));
        node(o).stream = slot;
        depend(gates[m], o);
        streams_[slot].opens.push_back(o);
        all.push_back(o);
    }
    Op join;
    join.kind = OpKind::compute;
    join.src = front;
    const Ref j = make(join, kind, job_rank(front));
    ++node(j).waiting;  // for the stream's last send
    streams_[slot].join = j;
    all.push_back(j);
    return sync(front, all);
}

TrainingSink::Ref TrainingProgram::whole(const scenario::CollectiveSpec& spec, Bytes message,
                                         const std::vector<RankId>& group, const std::vector<Ref>& gates,
                                         TrainingOpKind kind) {
    // add_collective's ops, made here in its order with its dependencies in its order.
    OpGraph scratch;
    scratch.add_entry("collective");
    add_collective(scratch, 0, spec, layout_, &network_, message);
    std::vector<Ref> all;
    all.reserve(scratch.ops().size());
    for (const Op& o : scratch.ops()) {
        const Ref r = make(o, kind, job_rank(o.src));
        if (o.kind == OpKind::group) {
            node(r).group = static_cast<std::int32_t>(groups_.size());
            groups_.push_back(scratch.groups()[o.group]);
        }
        if (o.kind == OpKind::open) throw InternalError("training program: a stream inside a collective");
        if (o.kind == OpKind::send) {
            const LinkClass c = layout_.same_server(o.src, o.dst) ? inside_ : LinkClass::fabric;
            link_bytes_[static_cast<std::size_t>(c)] += o.size;
            rank_bytes_[static_cast<std::size_t>(making_ % 2)][job_rank(o.src)][static_cast<std::size_t>(kind) - 1] +=
                o.size;
        }
        all.push_back(r);
    }
    for (std::uint32_t i = 0; i < scratch.ops().size(); ++i)
        for (OpId s : scratch.successors(OpId{i})) depend(all[i], all[s.value()]);
    for (std::uint32_t i = 0; i < scratch.ops().size(); ++i) {
        const Op& o = scratch.ops()[i];
        if (o.kind != OpKind::send) continue;
        const auto it = std::find(group.begin(), group.end(), o.src);
        depend(gates[static_cast<std::size_t>(it - group.begin())], all[i]);
    }
    for (const Ref r : all)
        if (node(r).predecessors.empty())  // the whole graph would start it with the run
            throw InternalError("training program: a collective's op that waits for nothing");
    return sync(group.front(), all);
}

// --- Making steps as the run reaches them ----------------------------------------------

void TrainingProgram::ensure(int p, std::size_t k) {
    const std::size_t at = sweep_[static_cast<std::size_t>(p)][k];
    if (made_[at]) return;
    if (k > 0) ensure(p, k - 1);
    const auto [q, kq] = steps_->input_of(p, k);
    if (q != p) ensure(q, kq);
    key_step_ = step_key(making_, at);
    key_index_ = 0;
    steps_->build(p, k);
    made_[at] = true;
    if (++made_count_ < steps_per_iteration_) return;
    key_step_ = step_key(making_, steps_per_iteration_);
    key_index_ = 0;
    ends_.push_back(steps_->end_iteration());
}

void TrainingProgram::start_iteration(int iteration) {
    making_ = iteration;
    made_.assign(steps_per_iteration_, false);
    triggered_.assign(steps_per_iteration_, false);
    made_count_ = 0;
    for (auto& b : rank_bytes_[static_cast<std::size_t>(iteration % 2)]) b = {};
    for (int p = 0; p < static_cast<int>(sweep_.size()); ++p) ensure(p, 0);
}

void TrainingProgram::begin(ReadyOps& ready) {
    making_ = -1;
    key_step_ = 0;
    key_index_ = 0;
    const Ref start = steps_->start();
    release(start, Time::zero(), ready);
}

// --- Running -----------------------------------------------------------------------------

Op TrainingProgram::op(std::uint64_t local) const {
    if ((local & kStreamBit) != 0) return streams_[slot_of(local)].ring->op(ring_local(local));
    return node(local).op;
}

const GroupOp* TrainingProgram::group(std::uint64_t local) const {
    if ((local & kStreamBit) != 0) return streams_[slot_of(local)].ring->group(ring_local(local));
    const Node& n = node(local);
    return n.group < 0 ? nullptr : &groups_[static_cast<std::size_t>(n.group)];
}

void TrainingProgram::release(Ref r, Time now, ReadyOps& ready) {
    Node* n = &node(r);
    Record& rec = record(r);
    rec.start = now;
    // The predecessor that finished last released it (ties: the lowest id), as measure_training.
    for (Ref p : n->predecessors) {
        const Record& pr = record(p);
        if (rec.by == kNone || pr.finish > record(rec.by).finish ||
            (pr.finish == record(rec.by).finish && pr.key < record(rec.by).key))
            rec.by = p;
    }
    n->predecessors.clear();
    if (rec.kind() == TrainingOpKind::compute) {
        RankTally& t = tally_[rec.rank()];
        attribute(rec, t.from, t);
        t.compute += n->op.duration;
    }
    // The step after this op's step is made now, before any op of this one can finish.
    making_ready_ = &ready;
    now_ = now;
    const std::uint64_t step = rec.key >> 32;
    const std::uint64_t per = steps_per_iteration_ + 1;
    if (step % per == 0) {  // the start or an iteration's end: the next iteration's first steps
        const auto next = static_cast<int>(step / per);
        if (next < iterations_ && making_ < next) start_iteration(next);
    } else {
        const std::size_t at = (step - 1) % per;
        if (!triggered_[at]) {
            triggered_[at] = true;
            const auto [p, k] = step_of_sweep_[at];
            if (k + 1 < steps_->order()[static_cast<std::size_t>(p)].size()) ensure(p, k + 1);
        }
    }
    making_ready_ = nullptr;
    Node& again = node(r);  // making may have moved the slots
    if (again.op.kind != OpKind::open) {
        ready.push_back(r);
        return;
    }
    // An open op takes no time: its member's first sends, then its own successors.
    rec.finish = now;
    const std::uint32_t slot = again.stream;
    scratch_.clear();
    streams_[slot].ring->open(again.op.member, now, scratch_);
    for (std::uint64_t s : scratch_) ready.push_back(encode(slot, s));
    finish(r, now, ready);
}

void TrainingProgram::finish(Ref r, Time now, ReadyOps& ready) {
    Record& rec = record(r);
    const std::uint32_t slot = rec.node;
    rec.node = kNoNode;  // done: what is made from now on does not wait for it
    rec.finish = now;
    if (rec.kind() == TrainingOpKind::compute) tally_[rec.rank()].from = now;
    std::vector<std::pair<std::uint64_t, Ref>> successors;
    successors.swap(nodes_[slot].successors);
    for (const auto& [step, s] : successors)
        if (--node(s).waiting == 0) release(s, now, ready);
    // The slot is free once its successors are released; its list keeps its capacity.
    successors.clear();
    nodes_[slot].successors.swap(successors);
    free_nodes_.push_back(slot);
    --live_nodes_;
}

void TrainingProgram::finished(std::uint64_t local, Time start, Time now, ReadyOps& ready) {
    --left_;
    if ((local & kStreamBit) != 0) {
        const std::uint32_t slot = slot_of(local);
        MemberStream& ring = *streams_[slot].ring;
        scratch_.clear();
        ring.finished(ring_local(local), start, now, scratch_);
        for (std::uint64_t s : scratch_) ready.push_back(encode(slot, s));
        if (ring.done()) stream_done(slot, now, ready);
        return;
    }
    const std::uint64_t step = record(local).key >> 32;
    if (step % (steps_per_iteration_ + 1) == 0) {  // the start barrier or an iteration's end
        record(local).finish = now;
        if (step != 0) end_of_iteration(local, now);
        iteration_start_ = now;
        for (auto& t : tally_) t = RankTally{now, Time::zero(), Time::zero(), {}};
    }
    finish(local, now, ready);
}

void TrainingProgram::stream_done(std::uint32_t slot, Time now, ReadyOps& ready) {
    StreamSlot& st = streams_[slot];
    // The critical path through the stream: from its root member's open to its last send
    // (the whole graph's executor gives the open that finish).
    const std::uint32_t root = st.opens.size() == 1 ? 0 : st.ring->root();
    record(st.opens.at(root)).finish = now;
    link_bytes_[static_cast<std::size_t>(inside_)] += st.ring->sent_inside_servers();
    link_bytes_[static_cast<std::size_t>(LinkClass::fabric)] += st.ring->sent_between_servers();
    auto& bytes = rank_bytes_[static_cast<std::size_t>(st.iteration % 2)];
    for (std::size_t m = 0; m < st.ring->members().size(); ++m)
        bytes[job_rank(st.ring->members()[m])][static_cast<std::size_t>(st.kind) - 1] += st.ring->sent_by_member()[m];
    const Ref join = st.join;
    st.ring.reset();
    free_streams_.push_back(slot);
    if (--node(join).waiting == 0) release(join, now, ready);
}

// --- The breakdown -----------------------------------------------------------------------

void TrainingProgram::attribute(const Record& x, Time from, RankTally& out) const {
    // The wait [from, start of x], along the chain of ops that released x (training_measure.cpp).
    const Time gap = x.start - from;
    if (gap <= Time::zero()) return;
    Time covered = Time::zero();
    Time upper = x.start;
    for (Ref cur = x.by; cur != kNone; cur = record(cur).by) {
        const Record& t = record(cur);
        if (t.finish <= from) break;
        const Time seg = std::min(t.finish, upper) - std::max(t.start, from);
        if (seg > Time::zero()) {
            if (t.kind() == TrainingOpKind::compute || t.kind() == TrainingOpKind::sync)
                out.bubble += seg;
            else
                out.exposed[static_cast<std::size_t>(t.kind()) - 1] += seg;
            covered += seg;
        }
        upper = std::min(upper, t.start);
        if (t.start <= from) break;
    }
    out.bubble += gap - covered;
}

void TrainingProgram::end_of_iteration(Ref end, Time now) {
    const Record& e = record(end);
    Ref cur = end;
    std::uint32_t critical = 0;
    for (; cur != kNone; cur = record(cur).by)
        if (record(cur).kind() == TrainingOpKind::compute) {
            critical = record(cur).rank();
            break;
        }
    RankTally t = tally_[critical];
    attribute(e, t.from, t);
    TrainingBreakdown b;
    b.time = now - iteration_start_;
    b.compute = t.compute;
    b.bubble = t.bubble;
    b.exposed = t.exposed;
    b.critical = plan_.ranks[critical];
    iterations_done_.push_back(b);
    critical_bytes_ = rank_bytes_[static_cast<std::size_t>((iterations_done_.size() - 1) % 2)][critical];
    // Nothing of this iteration is asked for again but its end (the next iteration's first ops
    // wait for it).
    while (record_base_ < end) {
        records_.pop_front();
        ++record_base_;
    }
}

TrainingMeasurement TrainingProgram::measurement() const {
    TrainingMeasurement out;
    out.ops = total_;
    if (static_cast<int>(iterations_done_.size()) != iterations_) return out;
    out.iterations = iterations_done_;
    out.link_bytes = link_bytes_;
    out.critical_rank_bytes = critical_bytes_;
    for (auto& bytes : out.link_bytes) bytes = Bytes{bytes.count() / iterations_};
    return out;
}

}  // namespace fabricsim::workloads
