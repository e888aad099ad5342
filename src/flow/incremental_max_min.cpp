#include "flow/incremental_max_min.hpp"

#include "core/errors.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::flow {

IncrementalMaxMin::IncrementalMaxMin(std::vector<double> capacity, RateBackend& backend)
    : capacity_(std::move(capacity)), link_rate_(capacity_.size(), 0.0), backend_(backend),
      on_link_(capacity_.size()), link_seen_(capacity_.size(), 0), local_(capacity_.size(), 0) {}

void IncrementalMaxMin::mark_link(std::uint32_t link) {
    if (link_seen_[link] == epoch_ + 1) return;  // already queued for the next solve
    link_seen_[link] = epoch_ + 1;
    dirty_links_.push_back(link);
}

std::uint32_t IncrementalMaxMin::add(double weight, double cap, std::span<const LinkUse> uses) {
    if (!(weight > 0) || !(cap > 0))
        throw InternalError(fmt::format("flow solver: a flow with weight {} and cap {}", weight, cap));
    std::uint32_t id;
    if (!free_.empty()) {
        id = free_.back();
        free_.pop_back();
    } else {
        id = static_cast<std::uint32_t>(flows_.size());
        flows_.emplace_back();
        flow_seen_.push_back(0);
    }
    Flow& f = flows_[id];
    f.weight = weight;
    f.cap = cap;
    f.rate = 0;
    f.active = true;
    f.uses.assign(uses.begin(), uses.end());
    f.slot.resize(uses.size());
    for (std::size_t i = 0; i < uses.size(); ++i) {
        const std::uint32_t l = uses[i].link;
        if (l >= capacity_.size() || !(uses[i].share > 0))
            throw InternalError(fmt::format("flow solver: a use of link {} of {} with share {}", l, capacity_.size(),
                                            uses[i].share));
        f.slot[i] = static_cast<std::uint32_t>(on_link_[l].size());
        on_link_[l].push_back(id);
        mark_link(l);
    }
    dirty_flows_.push_back(id);
    ++active_;
    return id;
}

void IncrementalMaxMin::remove(std::uint32_t id) {
    Flow& f = flows_[id];
    if (!f.active) throw InternalError(fmt::format("flow solver: flow {} removed twice", id));
    for (std::size_t i = 0; i < f.uses.size(); ++i) {
        const std::uint32_t l = f.uses[i].link;
        auto& list = on_link_[l];
        const std::uint32_t at = f.slot[i];
        const std::uint32_t moved = list.back();
        list[at] = moved;
        list.pop_back();
        if (moved != id) {
            // The flow moved into `at`: find which of its uses sits on this link at the end.
            Flow& m = flows_[moved];
            for (std::size_t j = 0; j < m.uses.size(); ++j)
                if (m.uses[j].link == l && m.slot[j] == list.size()) {
                    m.slot[j] = at;
                    break;
                }
        }
        mark_link(l);
    }
    f.active = false;
    f.rate = 0;
    free_.push_back(id);
    --active_;
}

const std::vector<std::uint32_t>& IncrementalMaxMin::solve() {
    solved_.clear();
    touched_links_.clear();
    if (!pending()) return solved_;
    ++epoch_;  // marks from mark_link() carry epoch_ (the old epoch_ + 1)
    // Breadth-first over links -> flows -> links from every changed link and new flow.
    component_links_.assign(dirty_links_.begin(), dirty_links_.end());
    for (std::uint32_t f : dirty_flows_)
        if (flows_[f].active && flow_seen_[f] != epoch_) {
            flow_seen_[f] = epoch_;
            solved_.push_back(f);
        }
    dirty_links_.clear();
    dirty_flows_.clear();
    std::size_t li = 0, fi = 0;
    while (li < component_links_.size() || fi < solved_.size()) {
        for (; li < component_links_.size(); ++li)
            for (std::uint32_t f : on_link_[component_links_[li]])
                if (flow_seen_[f] != epoch_) {
                    flow_seen_[f] = epoch_;
                    solved_.push_back(f);
                }
        for (; fi < solved_.size(); ++fi)
            for (const LinkUse& u : flows_[solved_[fi]].uses)
                if (link_seen_[u.link] != epoch_) {
                    link_seen_[u.link] = epoch_;
                    component_links_.push_back(u.link);
                }
    }
    // Build the component's system: local link numbers in visiting order.
    system_.clear();
    for (std::uint32_t l : component_links_) {
        local_[l] = static_cast<std::uint32_t>(system_.links());
        system_.add_link(capacity_[l]);
    }
    for (std::uint32_t f : solved_) {
        const Flow& fl = flows_[f];
        system_.begin_flow(fl.weight, fl.cap);
        for (const LinkUse& u : fl.uses) system_.add_use(local_[u.link], u.share);
        system_.end_flow();
    }
    if (!solved_.empty()) backend_.solve(system_, rates_);
    for (std::size_t i = 0; i < solved_.size(); ++i) flows_[solved_[i]].rate = rates_[i];
    for (std::uint32_t l : component_links_) link_rate_[l] = 0;
    for (std::uint32_t f : solved_)
        for (const LinkUse& u : flows_[f].uses) link_rate_[u.link] += u.share * flows_[f].rate;
    touched_links_.assign(component_links_.begin(), component_links_.end());
    largest_ = std::max(largest_, solved_.size());
    ++solves_;
    return solved_;
}

}  // namespace fabricsim::flow
