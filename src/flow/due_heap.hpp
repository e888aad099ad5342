// The flow model's projected completions: a binary min-heap of (time, flow id) that knows
// where each flow's entry sits, so a flow whose rate changes moves its one entry instead of
// leaving a stale one behind. Ties go to the lower flow id. On a 128-GPU all-to-all every
// solve re-rates tens of flows, and skipping the stale entries of a heap without positions
// was an eighth of the run (docs/BENCHMARKS.md).
#pragma once

#include "core/units.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim::flow {

class DueHeap {
public:
    bool empty() const { return heap_.empty(); }
    Time top_time() const { return heap_.front().at; }
    std::uint32_t top_flow() const { return heap_.front().flow; }
    bool contains(std::uint32_t flow) const { return flow < pos_.size() && pos_[flow] != kAbsent; }

    // Puts `flow` at `at`, or moves it there.
    void set(std::uint32_t flow, Time at) {
        if (flow >= pos_.size()) pos_.resize(flow + 1, kAbsent);
        if (pos_[flow] == kAbsent) {
            pos_[flow] = static_cast<std::uint32_t>(heap_.size());
            heap_.push_back({at, flow});
            up(heap_.size() - 1);
            return;
        }
        const std::size_t i = pos_[flow];
        const Time before = heap_[i].at;
        heap_[i].at = at;
        if (at < before)
            up(i);
        else
            down(i);
    }
    void erase(std::uint32_t flow) {
        if (!contains(flow)) return;
        const std::size_t i = pos_[flow];
        pos_[flow] = kAbsent;
        const Entry last = heap_.back();
        heap_.pop_back();
        if (i == heap_.size()) return;
        heap_[i] = last;
        pos_[last.flow] = static_cast<std::uint32_t>(i);
        up(i);
        down(pos_[last.flow]);
    }
    void pop() { erase(top_flow()); }

private:
    static constexpr std::uint32_t kAbsent = UINT32_MAX;
    struct Entry {
        Time at;
        std::uint32_t flow;
    };
    static bool before(const Entry& a, const Entry& b) { return a.at < b.at || (a.at == b.at && a.flow < b.flow); }
    void place(std::size_t i, const Entry& e) {
        heap_[i] = e;
        pos_[e.flow] = static_cast<std::uint32_t>(i);
    }
    void up(std::size_t i) {
        const Entry e = heap_[i];
        while (i > 0) {
            const std::size_t parent = (i - 1) / 2;
            if (!before(e, heap_[parent])) break;
            place(i, heap_[parent]);
            i = parent;
        }
        place(i, e);
    }
    void down(std::size_t i) {
        const Entry e = heap_[i];
        const std::size_t n = heap_.size();
        for (;;) {
            std::size_t child = 2 * i + 1;
            if (child >= n) break;
            if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
            if (!before(heap_[child], e)) break;
            place(i, heap_[child]);
            i = child;
        }
        place(i, e);
    }

    std::vector<Entry> heap_;
    std::vector<std::uint32_t> pos_;  // per flow id: its index in heap_, or kAbsent
};

}  // namespace fabricsim::flow
