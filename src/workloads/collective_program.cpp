#include "workloads/collective_program.hpp"

#include "core/errors.hpp"

#include <algorithm>

namespace fabricsim::workloads {

using scenario::CollectiveAlgorithm;
using scenario::CollectiveOp;

namespace {

constexpr std::uint64_t kJoin = ~std::uint64_t{0};  // the run's closing join
constexpr int kChannelShift = 40;                   // local = channel << 40 | index in channel
constexpr std::uint64_t kIndexMask = (std::uint64_t{1} << kChannelShift) - 1;

// Runs that ring_rounds makes (collective.cpp's build_channel): they stream.
int ring_steps(CollectiveOp op, CollectiveAlgorithm a, int n) {
    if (a != CollectiveAlgorithm::ring) return 0;
    if (op == CollectiveOp::all_reduce) return 2 * (n - 1);
    if (op == CollectiveOp::reduce_scatter || op == CollectiveOp::all_gather) return n - 1;
    return 0;
}

std::int64_t ring_loops(Bytes channel_bytes, std::int64_t n, Bytes message_bytes) {
    const std::int64_t loop_bytes = n * message_bytes.count();
    return (channel_bytes.count() + loop_bytes - 1) / loop_bytes;
}

}  // namespace

void CollectiveProgram::build_graph(SizeRuns& s, const scenario::CollectiveSpec& spec, const RankLayout& layout,
                                    const Network* network) const {
    // Its first units (periodic_run.hpp); when that is the whole run, the run's graph.
    const auto build = [&](OpGraph& g, const UnitWindow* units) {
        const std::uint32_t entry = g.add_entry("run");
        build_run(g, entry, OpId::invalid(), spec, s.choice, group_, s.size, layout, network, message_bytes_, units);
    };
    std::vector<UnitSegment> segments;
    const UnitWindow head{PeriodicRun::kTemplateUnits, false, &segments};
    s.graph = std::make_unique<OpGraph>();
    build(*s.graph, &head);
    s.ops = s.graph->ops().size();
    const bool cut = std::any_of(segments.begin(), segments.end(),
                                 [](const UnitSegment& g) { return g.units > PeriodicRun::kTemplateUnits; });
    if (!cut) return;
    std::vector<UnitSegment> tail_segments;
    const UnitWindow tail_window{1, true, &tail_segments};
    OpGraph tail;
    build(tail, &tail_window);
    s.periodic = PeriodicRun::make(std::move(*s.graph), segments, std::move(tail), tail_segments);
    if (s.periodic) {
        s.graph.reset();
        s.ops = s.periodic->ops();
        return;
    }
    // It does not repeat unit by unit: the whole graph.
    s.graph = std::make_unique<OpGraph>();
    build(*s.graph, nullptr);
    s.ops = s.graph->ops().size();
}

std::size_t CollectiveProgram::held_ops() const {
    std::size_t held = 0;
    for (const SizeRuns& s : sizes_) held += s.periodic ? s.periodic->held_ops() : s.graph ? s.graph->ops().size() : 0;
    return held;
}

std::uint64_t CollectiveProgram::peak_counters() const {
    std::uint64_t peak = 0;
    for (const SizeRuns& s : sizes_)
        if (s.periodic) peak = std::max(peak, s.periodic->peak_counters());
    return peak;
}

CollectiveProgram::CollectiveProgram(const scenario::CollectiveSpec& spec, const RankLayout& layout,
                                     const Network* network, Bytes message_bytes)
    : layout_(layout), group_(collective_group(spec, layout)), message_bytes_(message_bytes) {
    if (message_bytes <= Bytes::zero()) throw InternalError("CollectiveProgram: message_bytes must be positive");
    check_collective(spec, group_, layout, network);
    coupled_ = network != nullptr && network->offers(Offload::ring_channel, group_);
    plan_.op = spec.op;
    plan_.ranks = static_cast<int>(group_.size());
    const auto n = static_cast<std::int64_t>(group_.size());
    for (Bytes size : spec.sizes) {
        SizeRuns s;
        s.choice = choose_for_size(spec, group_, size, layout, network, message_bytes_);
        s.size = size;
        s.steps = ring_steps(spec.op, s.choice.algorithm, static_cast<int>(n));
        s.ring = s.steps > 0;
        if (s.ring) {
            std::uint64_t channels = 0;
            s.coupled = coupled_;
            for (int c = 0; c < s.choice.channels; ++c) {
                const Bytes bytes = share(size, s.choice.channels, c);
                if (n < 2 || bytes <= Bytes::zero()) continue;
                s.ops += static_cast<std::uint64_t>(ring_loops(bytes, n, message_bytes_) * s.steps * n);
                s.coupled = s.coupled && ring_loops(bytes, n, message_bytes_) == 1;
                ++channels;
            }
            if (s.coupled) s.ops = channels;
        } else {
            build_graph(s, spec, layout, network);
        }
        for (int it = 0; it < spec.iterations; ++it) {
            CollectiveRun run;
            run.size = size;
            run.iteration = it;
            run.algorithm = s.choice.algorithm;
            run.choice = s.choice.reason;
            run.channels = s.choice.channels;
            plan_.runs.push_back(std::move(run));
            size_of_run_.push_back(sizes_.size());
            total_ += s.ops + (s.ops > 0 ? 1 : 0);
        }
        sizes_.push_back(std::move(s));
    }
    spans_.resize(plan_.runs.size());
}

void CollectiveProgram::begin(ReadyOps& ready) { start_run(ready); }

void CollectiveProgram::start_run(ReadyOps& ready) {
    for (; run_ < plan_.runs.size(); ++run_) {
        const SizeRuns& s = sizes_[size_of_run_[run_]];
        if (s.ops == 0) {  // nothing to move; the next run waits for the same join as this one
            spans_[run_] = {Time::zero(), Time::zero()};
            continue;
        }
        run_left_ = s.ops;
        run_last_ = Time::zero();
        if (s.periodic) {
            s.periodic->begin(ready);
            return;
        }
        if (!s.ring) {
            // The graph's ops that wait for nothing, in id order (its successors lists keep
            // the order in which the ops were made).
            const OpGraph& g = *s.graph;
            waits_.resize(g.ops().size());
            for (std::uint32_t i = 0; i < g.ops().size(); ++i) {
                waits_[i] = g.predecessor_count(OpId{i});
                if (waits_[i] == 0) ready.push_back(i);
            }
            return;
        }
        steps_ = s.steps;
        rings_.clear();
        rings_.resize(static_cast<std::size_t>(s.choice.channels));
        for (int c = 0; c < s.choice.channels; ++c) {
            Ring& r = rings_[static_cast<std::size_t>(c)];
            r.order = ring_order(group_, layout_, c);
            r.n = static_cast<std::int64_t>(r.order.size());
            r.bytes = share(s.size, s.choice.channels, c);
            if (r.n < 2 || r.bytes <= Bytes::zero()) continue;
            r.loops = ring_loops(r.bytes, r.n, message_bytes_);
            r.rail = static_cast<std::int16_t>(c % layout_.nics_per_server());
            if (s.coupled) {
                r.channel = ring_channel_group(r.order, r.bytes, steps_);
                ready.push_back(std::uint64_t(c) << kChannelShift);
                continue;
            }
            // Round 0 of loop 0: every rank's first block, in rank order.
            for (std::int64_t i = 0; i < r.n; ++i) {
                r.waits.released(static_cast<std::uint64_t>(i));
                ready.push_back((std::uint64_t(c) << kChannelShift) | static_cast<std::uint64_t>(i));
            }
        }
        return;
    }
}

Op CollectiveProgram::op(std::uint64_t local) const {
    Op o;
    if (local == kJoin) {
        o.kind = OpKind::compute;
        o.src = group_.front();
        o.duration = Time::zero();
        return o;
    }
    const SizeRuns& s = sizes_[size_of_run_[run_]];
    if (s.periodic) return s.periodic->op(local);
    if (!s.ring) return s.graph->ops()[local];
    const auto c = static_cast<std::size_t>(local >> kChannelShift);
    const Ring& r = rings_[c];
    if (s.coupled) {
        const bool across = std::any_of(r.order.begin(), r.order.end(),
                                        [&](RankId x) { return !layout_.same_server(x, r.order.front()); });
        return ring_channel_op(r.order, r.bytes, static_cast<std::uint32_t>(c), across ? r.rail : std::int16_t{-1});
    }
    const auto index = static_cast<std::int64_t>(local & kIndexMask);
    const std::int64_t i = index % r.n;
    const std::int64_t p = index / r.n;  // position on the rank's connection: loop·steps + round
    const std::int64_t l = p / steps_, k = p % steps_;
    // As ring_rounds: the last loops' blocks are smaller; rank i's round-k block is block
    // (i − k) mod n of the loop.
    const Bytes loop_size = share(r.bytes, r.loops, l);
    o.kind = OpKind::send;
    o.src = r.order[static_cast<std::size_t>(i)];
    o.dst = r.order[static_cast<std::size_t>((i + 1) % r.n)];
    o.size = share(loop_size, r.n, (i - k + 2 * r.n * steps_) % r.n);
    o.flow_hint = static_cast<std::uint32_t>(c);
    o.rail = layout_.same_server(o.src, o.dst) ? std::int16_t{-1} : r.rail;
    return o;
}

const GroupOp* CollectiveProgram::group(std::uint64_t local) const {
    const SizeRuns& s = sizes_[size_of_run_[run_]];
    if (local == kJoin) return nullptr;
    if (s.ring) return s.coupled ? &rings_[static_cast<std::size_t>(local >> kChannelShift)].channel : nullptr;
    if (s.periodic) return s.periodic->group(local);
    const Op& o = s.graph->ops()[local];
    return o.kind == OpKind::group ? &s.graph->groups()[o.group] : nullptr;
}

std::uint8_t CollectiveProgram::ring_predecessors(std::uint64_t index, std::int64_t n) const {
    // ring_rounds' dependencies: the block received in the round before, the same round of
    // the loop before, and SendChain's window on the connection.
    const auto p = static_cast<std::int64_t>(index) / n;
    return static_cast<std::uint8_t>((p % steps_ > 0 ? 1 : 0) + (p / steps_ > 0 ? 1 : 0) + (p >= kWindow ? 1 : 0));
}

void CollectiveProgram::ring_release(std::size_t channel, std::uint64_t index, ReadyOps& ready) {
    Ring& r = rings_[channel];
    if (r.waits.decrement(index, ring_predecessors(index, r.n)) == 0)
        ready.push_back((std::uint64_t(channel) << kChannelShift) | index);
}

void CollectiveProgram::ring_finished(std::uint64_t local, ReadyOps& ready) {
    const auto c = static_cast<std::size_t>(local >> kChannelShift);
    const Ring& r = rings_[c];
    const auto n = r.n;
    const auto index = static_cast<std::int64_t>(local & kIndexMask);
    const std::int64_t i = index % n, p = index / n;
    const std::int64_t k = p % steps_, l = p / steps_;
    const std::int64_t end = r.loops * steps_;  // positions on a connection
    const auto at = [&](std::int64_t position, std::int64_t rank) {
        return static_cast<std::uint64_t>(position * n + rank);
    };
    // Its successors in the order they were made (their ids): the next rank's next round,
    // then, by position, the window's and the next loop's same round (one op twice when
    // steps = kWindow, as the graph holds the dependency twice).
    if (k + 1 < steps_) ring_release(c, at(p + 1, (i + 1) % n), ready);
    const bool window = p + kWindow < end, next_loop = l + 1 < r.loops;
    if (kWindow <= steps_) {
        if (window) ring_release(c, at(p + kWindow, i), ready);
        if (next_loop) ring_release(c, at(p + steps_, i), ready);
    } else {
        if (next_loop) ring_release(c, at(p + steps_, i), ready);
        if (window) ring_release(c, at(p + kWindow, i), ready);
    }
}

void CollectiveProgram::finished(std::uint64_t local, Time start, Time finish, ReadyOps& ready) {
    if (run_ >= plan_.runs.size()) throw InternalError("collective program: an op finished after the last run");
    if (local == kJoin) {
        ++run_;
        start_run(ready);
        return;
    }
    RunSpan& span = spans_[run_];
    span.first = std::min(span.first, start);
    run_last_ = std::max(run_last_, finish);
    const SizeRuns& s = sizes_[size_of_run_[run_]];
    if (s.ring) {
        if (!s.coupled) ring_finished(local, ready);
    } else if (s.periodic) {
        s.periodic->finished(local, ready);
    } else {
        for (OpId next : s.graph->successors(OpId{static_cast<std::uint32_t>(local)}))
            if (--waits_[next.value()] == 0) ready.push_back(next.value());
    }
    if (--run_left_ == 0) {
        span.last = run_last_;
        ready.push_back(kJoin);
    }
}

}  // namespace fabricsim::workloads
