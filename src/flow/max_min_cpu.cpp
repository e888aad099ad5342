// Progressive filling on the CPU (flow_rules.hpp has the rules and their source). Instead of
// scanning every link each round, a min-heap holds each loaded link's level, re-pushed when a
// freeze changes it (a stamp marks the stale entries), and a second heap each capped flow's
// cap level: each round pops the lowest and freezes what it binds.
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
    stamp_.assign(links, 0);
    frozen_.assign(flows, 0);
    links_heap_.clear();
    caps_heap_.clear();
    link_uses(s, by_link_);
    for (std::uint32_t f = 0; f < flows; ++f) {
        for (std::uint32_t k = s.first[f]; k < s.first[f + 1]; ++k) {
            load_[s.link_of[k]] += s.share[k] * s.weight[f];
            ++unfrozen_on_[s.link_of[k]];
        }
        if (s.cap[f] < kUncapped) caps_heap_.push_back({cap_level(s.cap[f], s.weight[f]), f, 0});
    }
    // A small system (a local re-fill: tens of links) finds its lowest link by a scan of the
    // links' levels, which costs less than keeping a heap of them; a large one by the heap.
    const bool scan = links <= kScanLinks;
    if (scan) {
        level_.assign(links, kInfiniteLevel);
        for (std::uint32_t l = 0; l < links; ++l)
            if (unfrozen_on_[l] > 0) level_[l] = link_level(remaining_[l], load_[l]);
    } else {
        for (std::uint32_t l = 0; l < links; ++l)
            if (unfrozen_on_[l] > 0) links_heap_.push_back({link_level(remaining_[l], load_[l]), l, 0});
        std::make_heap(links_heap_.begin(), links_heap_.end(), Higher{});
    }
    std::make_heap(caps_heap_.begin(), caps_heap_.end(), Higher{});

    std::size_t unfrozen = flows;
    // Freezing flows changes their links' levels; each changed link is pushed once per round,
    // after the round's freezes, not once per frozen flow: a round that freezes the n flows
    // of a shared link would otherwise push each of their other links n times (the heap was
    // half the cost of a 128-GPU all-to-all's solves, docs/BENCHMARKS.md).
    changed_.clear();
    const auto freeze = [&](std::uint32_t f, double level) {
        frozen_[f] = 1;
        --unfrozen;
        const double rate = frozen_rate(s.weight[f], level, s.cap[f]);
        rates[f] = rate;
        for (std::uint32_t k = s.first[f]; k < s.first[f + 1]; ++k) {
            const std::uint32_t l = s.link_of[k];
            remaining_[l] = after_use(remaining_[l], s.share[k] * rate);
            load_[l] = --unfrozen_on_[l] == 0 ? 0.0 : std::max(0.0, load_[l] - s.share[k] * s.weight[f]);
            if (stamp_[l] % 2 == 0) {  // even: not yet in this round's list
                ++stamp_[l];
                changed_.push_back(l);
            }
        }
    };
    const auto push_changed = [&] {
        for (std::uint32_t l : changed_) {
            ++stamp_[l];  // even again; entries pushed before are stale
            if (scan) {
                level_[l] = unfrozen_on_[l] > 0 ? link_level(remaining_[l], load_[l]) : kInfiniteLevel;
            } else if (unfrozen_on_[l] > 0) {
                links_heap_.push_back({link_level(remaining_[l], load_[l]), l, stamp_[l]});
                std::push_heap(links_heap_.begin(), links_heap_.end(), Higher{});
            }
        }
        changed_.clear();
    };
    while (unfrozen > 0) {
        // The lowest link level, the lowest index among equals (as the heap orders them).
        std::uint32_t lowest = 0;
        double by_link = kInfiniteLevel;
        if (scan)
            for (std::uint32_t l = 0; l < links; ++l)
                if (level_[l] < by_link) {
                    by_link = level_[l];
                    lowest = l;
                }
        while (!links_heap_.empty() && links_heap_.front().stamp != stamp_[links_heap_.front().index]) {
            std::pop_heap(links_heap_.begin(), links_heap_.end(), Higher{});
            links_heap_.pop_back();
        }
        while (!caps_heap_.empty() && frozen_[caps_heap_.front().index]) {
            std::pop_heap(caps_heap_.begin(), caps_heap_.end(), Higher{});
            caps_heap_.pop_back();
        }
        if (!links_heap_.empty()) {
            by_link = links_heap_.front().level;
            lowest = links_heap_.front().index;
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
            push_changed();
            continue;
        }
        const std::uint32_t l = lowest;
        if (!scan) {
            std::pop_heap(links_heap_.begin(), links_heap_.end(), Higher{});
            links_heap_.pop_back();
        }
        for (std::uint32_t j = by_link_.first[l]; j < by_link_.first[l + 1]; ++j) {
            const std::uint32_t f = by_link_.flow_of[j];
            if (!frozen_[f]) freeze(f, by_link);
        }
        // Its level is spent: every flow on it is frozen, so it is not pushed again.
        if (stamp_[l] % 2 == 0) {
            ++stamp_[l];
            changed_.push_back(l);
        }
        push_changed();
    }
}

}  // namespace fabricsim::flow
