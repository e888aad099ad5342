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
    for (std::uint32_t l = 0; l < links; ++l)
        if (unfrozen_on_[l] > 0) links_heap_.push_back({link_level(remaining_[l], load_[l]), l, 0});
    std::make_heap(links_heap_.begin(), links_heap_.end(), Higher{});
    std::make_heap(caps_heap_.begin(), caps_heap_.end(), Higher{});

    std::size_t unfrozen = flows;
    const auto freeze = [&](std::uint32_t f, double level) {
        frozen_[f] = 1;
        --unfrozen;
        const double rate = frozen_rate(s.weight[f], level, s.cap[f]);
        rates[f] = rate;
        for (std::uint32_t k = s.first[f]; k < s.first[f + 1]; ++k) {
            const std::uint32_t l = s.link_of[k];
            remaining_[l] = after_use(remaining_[l], s.share[k] * rate);
            load_[l] = --unfrozen_on_[l] == 0 ? 0.0 : std::max(0.0, load_[l] - s.share[k] * s.weight[f]);
            ++stamp_[l];
            if (unfrozen_on_[l] > 0) {
                links_heap_.push_back({link_level(remaining_[l], load_[l]), l, stamp_[l]});
                std::push_heap(links_heap_.begin(), links_heap_.end(), Higher{});
            }
        }
    };
    while (unfrozen > 0) {
        while (!links_heap_.empty() && links_heap_.front().stamp != stamp_[links_heap_.front().index]) {
            std::pop_heap(links_heap_.begin(), links_heap_.end(), Higher{});
            links_heap_.pop_back();
        }
        while (!caps_heap_.empty() && frozen_[caps_heap_.front().index]) {
            std::pop_heap(caps_heap_.begin(), caps_heap_.end(), Higher{});
            caps_heap_.pop_back();
        }
        const double by_link = links_heap_.empty() ? kInfiniteLevel : links_heap_.front().level;
        const double by_cap = caps_heap_.empty() ? kInfiniteLevel : caps_heap_.front().level;
        if (links_heap_.empty() && caps_heap_.empty()) {
            // Flows on no link and without a cap: nothing bounds them. A caller's bug.
            throw InternalError("max-min solver: a flow crosses no link and has no cap");
        }
        if (by_cap <= by_link) {
            const std::uint32_t f = caps_heap_.front().index;
            std::pop_heap(caps_heap_.begin(), caps_heap_.end(), Higher{});
            caps_heap_.pop_back();
            freeze(f, by_cap);
            continue;
        }
        const std::uint32_t l = links_heap_.front().index;
        std::pop_heap(links_heap_.begin(), links_heap_.end(), Higher{});
        links_heap_.pop_back();
        ++stamp_[l];  // its level is being spent: later entries for it are stale until re-pushed
        for (std::uint32_t j = by_link_.first[l]; j < by_link_.first[l + 1]; ++j) {
            const std::uint32_t f = by_link_.flow_of[j];
            if (!frozen_[f]) freeze(f, by_link);
        }
    }
}

}  // namespace fabricsim::flow
