#include "flow/flow_system.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

namespace fabricsim::flow {

std::uint32_t FlowSystem::add_flow(double weight_, double cap_,
                                   std::initializer_list<std::pair<std::uint32_t, double>> uses_) {
    begin_flow(weight_, cap_);
    for (const auto& [l, s] : uses_) add_use(l, s);
    end_flow();
    return static_cast<std::uint32_t>(weight.size() - 1);
}

void FlowSystem::clear() {
    capacity.clear();
    weight.clear();
    cap.clear();
    first.assign(1, 0);
    link_of.clear();
    share.clear();
}

void FlowSystem::check() const {
    if (first.size() != weight.size() + 1 || cap.size() != weight.size() || share.size() != link_of.size() ||
        first.front() != 0 || first.back() != link_of.size())
        throw InternalError("flow system: array sizes disagree");
    for (std::size_t f = 0; f < weight.size(); ++f) {
        if (!(weight[f] > 0) || !(cap[f] > 0) || first[f] > first[f + 1])
            throw InternalError(fmt::format("flow system: flow {} has weight {} and cap {}", f, weight[f], cap[f]));
    }
    for (std::size_t k = 0; k < link_of.size(); ++k)
        if (link_of[k] >= capacity.size() || !(share[k] > 0))
            throw InternalError(fmt::format("flow system: use {} names link {} of {} with share {}", k, link_of[k],
                                            capacity.size(), share[k]));
    for (std::size_t l = 0; l < capacity.size(); ++l)
        if (!(capacity[l] >= 0))
            throw InternalError(fmt::format("flow system: link {} has capacity {}", l, capacity[l]));
}

LinkUses link_uses(const FlowSystem& s) {
    LinkUses t;
    link_uses(s, t);
    return t;
}

void link_uses(const FlowSystem& s, LinkUses& t) {
    t.first.assign(s.links() + 1, 0);
    for (std::uint32_t l : s.link_of) ++t.first[l + 1];
    for (std::size_t l = 0; l < s.links(); ++l) t.first[l + 1] += t.first[l];
    t.use_of.resize(s.uses());
    t.flow_of.resize(s.uses());
    // Fill each link's range from its end down (first[l + 1] counts down to first[l]), so no
    // cursor array is needed; flows are visited backwards to keep each range in flow order.
    for (std::uint32_t f = static_cast<std::uint32_t>(s.flows()); f-- > 0;)
        for (std::uint32_t k = s.first[f + 1]; k-- > s.first[f];) {
            const std::uint32_t at = --t.first[s.link_of[k] + 1];
            t.use_of[at] = k;
            t.flow_of[at] = f;
        }
    // first[l + 1] now holds link l's start: shift back by one.
    for (std::size_t l = 0; l < s.links(); ++l) t.first[l] = t.first[l + 1];
    t.first[s.links()] = static_cast<std::uint32_t>(s.uses());
}

}  // namespace fabricsim::flow
