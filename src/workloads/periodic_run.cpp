#include "workloads/periodic_run.hpp"

#include <algorithm>
#include <utility>

namespace fabricsim::workloads {

namespace {

constexpr int kSegmentShift = 48;  // local = segment << 48 | index in the segment
constexpr std::uint64_t kIndexMask = (std::uint64_t{1} << kSegmentShift) - 1;

std::uint64_t local_of(std::size_t segment, std::int64_t index) {
    return (std::uint64_t{segment} << kSegmentShift) | static_cast<std::uint64_t>(index);
}

// Two ops are the same op of two units: all but their sizes agree.
bool same_shape(const OpGraph& a, std::uint32_t x, const OpGraph& b, std::uint32_t y) {
    const Op& p = a.ops()[x];
    const Op& q = b.ops()[y];
    if (p.kind != q.kind || p.entry != q.entry || p.src != q.src || p.dst != q.dst || p.duration != q.duration ||
        p.not_before != q.not_before || p.flow_hint != q.flow_hint || p.rail != q.rail)
        return false;
    if (p.kind != OpKind::group) return true;
    const GroupOp& g = a.groups()[p.group];
    const GroupOp& h = b.groups()[q.group];
    return g.offload == h.offload && g.ranks == h.ranks;
}

}  // namespace

UnitRange unit_range(const UnitWindow* window, std::uint32_t first, std::int64_t units, std::int64_t larger) {
    if (window == nullptr) return {units, 0};
    if (window->segments != nullptr) window->segments->push_back({first, units, larger});
    const std::int64_t count = std::min(units, window->cap);
    return {count, window->last ? units - count : 0};
}

std::unique_ptr<PeriodicRun> PeriodicRun::make(OpGraph head, const std::vector<UnitSegment>& head_segments,
                                               OpGraph tail, const std::vector<UnitSegment>& tail_segments) {
    const std::size_t n = head_segments.size();
    if (n == 0 || n != tail_segments.size() || n >= (std::size_t{1} << 16)) return nullptr;
    std::unique_ptr<PeriodicRun> run(new PeriodicRun(std::move(head), std::move(tail)));
    const OpGraph& h = run->head_;
    const OpGraph& t = run->tail_;
    const auto end_of = [n](const std::vector<UnitSegment>& v, std::size_t i, const OpGraph& g) -> std::int64_t {
        return i + 1 < n ? v[i + 1].first : static_cast<std::int64_t>(g.ops().size());
    };
    // The segments: contiguous, covering both graphs, each unit of the same number of ops.
    std::vector<std::uint32_t> segment_of(h.ops().size());
    for (std::size_t i = 0; i < n; ++i) {
        const UnitSegment& hs = head_segments[i];
        const UnitSegment& ts = tail_segments[i];
        if (hs.first != (i == 0 ? 0 : end_of(head_segments, i - 1, h)) ||
            ts.first != (i == 0 ? 0 : end_of(tail_segments, i - 1, t)) || hs.units != ts.units ||
            hs.larger != ts.larger || hs.units <= 0)
            return nullptr;
        Segment s;
        s.first = hs.first;
        s.tail_first = ts.first;
        s.units = hs.units;
        s.larger = hs.larger;
        s.per_unit = end_of(tail_segments, i, t) - ts.first;
        s.built = std::min(s.units, kTemplateUnits);
        if (s.per_unit <= 0 || end_of(head_segments, i, h) - hs.first != s.built * s.per_unit) return nullptr;
        std::fill(segment_of.begin() + hs.first, segment_of.begin() + end_of(head_segments, i, h),
                  static_cast<std::uint32_t>(i));
        run->ops_ += static_cast<std::uint64_t>(s.units * s.per_unit);
        run->segments_.push_back(std::move(s));
    }
    if (end_of(head_segments, n - 1, h) != static_cast<std::int64_t>(h.ops().size()) ||
        end_of(tail_segments, n - 1, t) != static_cast<std::int64_t>(t.ops().size()))
        return nullptr;

    // Every op's predecessors, in id order; none in another segment.
    std::vector<std::vector<std::uint32_t>> predecessors(h.ops().size());
    for (std::uint32_t a = 0; a < h.ops().size(); ++a)
        for (OpId b : h.successors(OpId{a})) {
            if (segment_of[a] != segment_of[b.value()]) return nullptr;
            predecessors[b.value()].push_back(a);
        }

    for (Segment& s : run->segments_) {
        if (s.units <= s.built) continue;  // the head is the whole segment
        const std::int64_t J = s.per_unit;
        const auto id = [&](std::int64_t u, std::int64_t j) { return static_cast<std::uint32_t>(s.first + u * J + j); };
        const auto unit = [&](std::uint32_t op) { return (static_cast<std::int64_t>(op) - s.first) / J; };
        const auto within = [&](std::uint32_t op) { return (static_cast<std::int64_t>(op) - s.first) % J; };
        for (std::int64_t index = 0; index < s.built * J; ++index)
            for (std::uint32_t a : predecessors[static_cast<std::size_t>(s.first + index)])
                s.reach = std::max(s.reach, index / J - unit(a));
        const std::int64_t last = s.built - 1, steady = last - s.reach;
        if (steady < s.reach) return nullptr;
        for (std::int64_t j = 0; j < J; ++j) {
            if (!same_shape(t, static_cast<std::uint32_t>(s.tail_first + j), h, id(0, j))) return nullptr;
            const auto& model = predecessors[id(last, j)];
            if (model.empty()) return nullptr;  // a unit beyond the head would have to start at once
            for (std::int64_t u = 0; u < s.built; ++u) {
                if (!same_shape(h, id(u, j), h, id(0, j))) return nullptr;
                if (u < s.reach) continue;
                // From unit `reach` on, the same predecessors, as many units back.
                const auto& mine = predecessors[id(u, j)];
                if (mine.size() != model.size()) return nullptr;
                for (std::size_t k = 0; k < mine.size(); ++k)
                    if (u - unit(mine[k]) != last - unit(model[k]) || within(mine[k]) != within(model[k]))
                        return nullptr;
                // Up to `steady`, whose successors all lie in the head: the same successors.
                if (u > steady) continue;
                const auto& next = h.successors(OpId{id(u, j)});
                const auto& like = h.successors(OpId{id(steady, j)});
                if (next.size() != like.size()) return nullptr;
                for (std::size_t k = 0; k < next.size(); ++k)
                    if (unit(next[k].value()) - u != unit(like[k].value()) - steady ||
                        within(next[k].value()) != within(like[k].value()))
                        return nullptr;
            }
        }
    }
    return run;
}

std::pair<const OpGraph*, std::uint32_t> PeriodicRun::source(const Segment& s, std::int64_t index) const {
    const std::int64_t u = index / s.per_unit, j = index % s.per_unit;
    if (u < s.built) return {&head_, static_cast<std::uint32_t>(s.first + index)};
    if (u < s.larger) return {&head_, static_cast<std::uint32_t>(s.first + j)};  // a larger unit: the first's sizes
    return {&tail_, static_cast<std::uint32_t>(s.tail_first + j)};
}

void PeriodicRun::begin(ReadyOps& ready) {
    for (std::size_t i = 0; i < segments_.size(); ++i) {
        Segment& s = segments_[i];
        s.waits.restart();
        for (std::int64_t index = 0; index < s.built * s.per_unit; ++index)
            if (head_.predecessor_count(OpId{static_cast<std::uint32_t>(s.first + index)}) == 0) {
                s.waits.released(static_cast<std::uint64_t>(index));
                ready.push_back(local_of(i, index));
            }
    }
}

std::uint64_t PeriodicRun::peak_counters() const {
    std::uint64_t sum = 0;
    for (const Segment& s : segments_) sum += s.waits.peak_span();
    return sum;
}

Op PeriodicRun::op(std::uint64_t local) const {
    const auto [graph, id] = source(segments_[local >> kSegmentShift], static_cast<std::int64_t>(local & kIndexMask));
    return graph->ops()[id];
}

const GroupOp* PeriodicRun::group(std::uint64_t local) const {
    const auto [graph, id] = source(segments_[local >> kSegmentShift], static_cast<std::int64_t>(local & kIndexMask));
    const Op& o = graph->ops()[id];
    return o.kind == OpKind::group ? &graph->groups()[o.group] : nullptr;
}

void PeriodicRun::release(std::size_t segment, std::int64_t index, ReadyOps& ready) {
    Segment& s = segments_[segment];
    const std::int64_t u = index / s.per_unit;
    const std::int64_t model = u < s.built ? index : (s.built - 1) * s.per_unit + index % s.per_unit;
    const std::uint32_t waits = head_.predecessor_count(OpId{static_cast<std::uint32_t>(s.first + model)});
    if (s.waits.decrement(static_cast<std::uint64_t>(index), waits) == 0) ready.push_back(local_of(segment, index));
}

void PeriodicRun::finished(std::uint64_t local, ReadyOps& ready) {
    const auto segment = static_cast<std::size_t>(local >> kSegmentShift);
    const Segment& s = segments_[segment];
    const auto index = static_cast<std::int64_t>(local & kIndexMask);
    const std::int64_t u = index / s.per_unit;
    if (s.units <= s.built || u + s.reach < s.built) {  // every successor is in the head
        for (OpId next : head_.successors(OpId{static_cast<std::uint32_t>(s.first + index)}))
            release(segment, static_cast<std::int64_t>(next.value()) - s.first, ready);
        return;
    }
    // The successors of the same op `u − steady` units before, that many units on.
    const std::int64_t steady = s.built - 1 - s.reach;
    const auto model = static_cast<std::uint32_t>(s.first + steady * s.per_unit + index % s.per_unit);
    for (OpId next : head_.successors(OpId{model})) {
        const std::int64_t at = static_cast<std::int64_t>(next.value()) - s.first;
        const std::int64_t to = u + at / s.per_unit - steady;
        if (to < s.units) release(segment, to * s.per_unit + at % s.per_unit, ready);
    }
}

}  // namespace fabricsim::workloads
