// Progressive filling on the CPU (flow_rules.hpp has the rules and their source). Each round
// finds the lowest link level — by a scan in a small system, by a min-heap whose entries are
// brought up to date only when they reach the top in a large one — and the lowest cap level
// (a second heap), and freezes what it binds.
#include "flow/flow_rules.hpp"
#include "flow/rate_backend.hpp"

#include "core/errors.hpp"

#include <algorithm>

namespace fabricsim::flow {

namespace {
struct Higher {
    template <class E>
    bool operator()(const E& a, const E& b) const {
        return a.level > b.level || (a.level == b.level && a.index > b.index);
    }
};
}  // namespace

void CpuMaxMin::solve(const FlowSystem& s, std::vector<double>& rates) {
    const std::size_t links = s.links(), flows = s.flows();
    rates.assign(flows, 0.0);
    remaining_.assign(s.capacity.begin(), s.capacity.end());
    load_.assign(links, 0.0);
    unfrozen_on_.assign(links, 0);
    changed_mark_.assign(links, 0);
    frozen_.assign(flows, 0);
    links_heap_.clear();
    caps_heap_.clear();
    link_uses(s, by_link_);
    for (std::uint32_t f = 0; f < flows; ++f) {
        for (std::uint32_t k = s.first[f]; k < s.first[f + 1]; ++k) {
            load_[s.link_of[k]] += s.share[k] * s.weight[f];
            ++unfrozen_on_[s.link_of[k]];
        }
        if (s.cap[f] < kUncapped) caps_heap_.push_back({cap_level(s.cap[f], s.weight[f]), f});
    }
    // A small system (a local re-fill: tens of links) finds its lowest link by a scan of the
    // links' levels, kept current after each round; a large one by a heap of them.
    const bool scan = links <= kScanLinks;
    if (scan) {
        level_.assign(links, kInfiniteLevel);
        for (std::uint32_t l = 0; l < links; ++l)
            if (unfrozen_on_[l] > 0) level_[l] = link_level(remaining_[l], load_[l]);
    } else {
        for (std::uint32_t l = 0; l < links; ++l)
            if (unfrozen_on_[l] > 0) links_heap_.push_back({link_level(remaining_[l], load_[l]), l});
        std::make_heap(links_heap_.begin(), links_heap_.end(), Higher{});
    }
    std::make_heap(caps_heap_.begin(), caps_heap_.end(), Higher{});

    std::size_t unfrozen = flows;
    changed_.clear();
    // Raw pointers in locals for the rounds: the flags are chars, through which the compiler
    // would otherwise reload every vector's data pointer at each use (as in
    // IncrementalMaxMin::set_rates); the arithmetic is the same.
    double *remaining = remaining_.data(), *load = load_.data(), *out = rates.data(), *level = level_.data();
    std::uint32_t* unfrozen_on = unfrozen_on_.data();
    char *frozen = frozen_.data(), *changed_mark = changed_mark_.data();
    const double *weight = s.weight.data(), *cap = s.cap.data(), *share = s.share.data();
    const std::uint32_t *first = s.first.data(), *link_of = s.link_of.data();
    const auto freeze = [&](std::uint32_t f, double at) {
        frozen[f] = 1;
        --unfrozen;
        const double rate = frozen_rate(weight[f], at, cap[f]);
        out[f] = rate;
        for (std::uint32_t k = first[f]; k < first[f + 1]; ++k) {
            const std::uint32_t l = link_of[k];
            remaining[l] = after_use(remaining[l], share[k] * rate);
            load[l] = --unfrozen_on[l] == 0 ? 0.0 : std::max(0.0, load[l] - share[k] * weight[f]);
            if (scan && !changed_mark[l]) {
                changed_mark[l] = 1;
                changed_.push_back(l);
            }
        }
    };
    // Scan: the links whose level a round moved, once each.
    const auto rescan_changed = [&] {
        for (std::uint32_t l : changed_) {
            changed_mark[l] = 0;
            level[l] = unfrozen_on[l] > 0 ? link_level(remaining[l], load[l]) : kInfiniteLevel;
        }
        changed_.clear();
    };
    while (unfrozen > 0) {
        // The lowest link level, the lowest index among equals.
        std::uint32_t lowest = 0;
        double by_link = kInfiniteLevel;
        if (scan) {
            for (std::uint32_t l = 0; l < links; ++l)
                if (level[l] < by_link) {
                    by_link = level[l];
                    lowest = l;
                }
        } else {
            // Heap: a freeze only raises the levels of the other links of what it freezes (it
            // takes at most λ* <= λ_l of each, flow_rules.hpp), so an entry is at most its
            // link's level. The top is brought up to date and sifted down until it is
            // current: then no link's level is below it. Links are never re-pushed per
            // freeze (pushing each changed link was half of a 128-GPU all-to-all's solves,
            // docs/BENCHMARKS.md).
            while (!links_heap_.empty()) {
                Entry& top = links_heap_.front();
                if (unfrozen_on[top.index] == 0) {
                    std::pop_heap(links_heap_.begin(), links_heap_.end(), Higher{});
                    links_heap_.pop_back();
                    continue;
                }
                const double now = link_level(remaining[top.index], load[top.index]);
                if (now == top.level) break;
                top.level = now;
                sift_down(links_heap_);
            }
            if (!links_heap_.empty()) {
                by_link = links_heap_.front().level;
                lowest = links_heap_.front().index;
            }
        }
        while (!caps_heap_.empty() && frozen[caps_heap_.front().index]) {
            std::pop_heap(caps_heap_.begin(), caps_heap_.end(), Higher{});
            caps_heap_.pop_back();
        }
        const double by_cap = caps_heap_.empty() ? kInfiniteLevel : caps_heap_.front().level;
        if (by_link == kInfiniteLevel && caps_heap_.empty()) {
            // Flows on no link and without a cap: nothing bounds them. A caller's bug.
            throw InternalError("max-min solver: a flow crosses no link and has no cap");
        }
        if (by_cap <= by_link) {
            const std::uint32_t f = caps_heap_.front().index;
            std::pop_heap(caps_heap_.begin(), caps_heap_.end(), Higher{});
            caps_heap_.pop_back();
            freeze(f, by_cap);
            if (scan) rescan_changed();
            continue;
        }
        const std::uint32_t l = lowest;
        for (std::uint32_t j = by_link_.first[l]; j < by_link_.first[l + 1]; ++j) {
            const std::uint32_t f = by_link_.flow_of[j];
            if (!frozen[f]) freeze(f, by_link);
        }
        // Every flow on l is frozen now: its heap entry goes at the next look at the top.
        if (scan) rescan_changed();
    }
}

void CpuMaxMin::sift_down(std::vector<Entry>& heap) {
    const std::size_t n = heap.size();
    std::size_t i = 0;
    const Entry e = heap[0];
    for (;;) {
        std::size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && Higher{}(heap[c], heap[c + 1])) ++c;
        if (!Higher{}(e, heap[c])) break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = e;
}

}  // namespace fabricsim::flow
