// Max-min fair rates of a changing set of flows, re-solved incrementally: after flows arrive
// or leave, only the connected part of the network they touch is solved again — the links
// they cross, the flows on those links, those flows' links, and so on — as SimGrid's lmm
// solver re-solves only the constraints a change reaches ("selective update": Casanova et
// al., "Versatile, scalable, and accurate simulation of distributed applications and
// platforms", JPDC 74(10), 2014, §4.1; SimGrid 3.18 documentation, "SURF Linear MaxMin").
// A component that no change reaches keeps its rates, which max-min guarantees are still
// the fair ones: the allocations of unconnected parts are independent.
//
// Changes accumulate until solve(), so a batch of arrivals at one instant (a collective's
// step) costs one solve of their component. The component is gathered into a FlowSystem and
// handed to a RateBackend (CPU or CUDA).
#pragma once

#include "flow/flow_system.hpp"
#include "flow/rate_backend.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace fabricsim::flow {

struct LinkUse {
    std::uint32_t link;
    double share;  // part of the flow's bytes on this link, in (0, 1]
};

class IncrementalMaxMin {
public:
    static constexpr std::uint32_t kNone = UINT32_MAX;

    IncrementalMaxMin(std::vector<double> capacity, RateBackend& backend);

    // A new flow; its rate is 0 until the next solve(). Returns its id (ids of departed
    // flows are reused).
    std::uint32_t add(double weight, double cap, std::span<const LinkUse> uses);
    void remove(std::uint32_t flow);
    bool pending() const { return !dirty_links_.empty() || !dirty_flows_.empty(); }
    // Re-solves every component a change since the last solve reached; returns the flows
    // whose rate was recomputed (valid until the next call).
    const std::vector<std::uint32_t>& solve();

    double rate(std::uint32_t flow) const { return flows_[flow].rate; }
    std::span<const LinkUse> uses(std::uint32_t flow) const { return flows_[flow].uses; }
    bool active(std::uint32_t flow) const { return flow < flows_.size() && flows_[flow].active; }
    std::size_t links() const { return capacity_.size(); }
    double capacity(std::uint32_t link) const { return capacity_[link]; }
    // Σ share·rate of the flows on a link, as of the last solve.
    double link_rate(std::uint32_t link) const { return link_rate_[link]; }
    std::size_t flows_on(std::uint32_t link) const { return on_link_[link].size(); }
    // Links whose link_rate changed in the last solve (valid until the next call).
    const std::vector<std::uint32_t>& touched_links() const { return touched_links_; }
    std::size_t active_flows() const { return active_; }
    // Size of the largest component solved so far (flows), for reports and tests.
    std::size_t largest_component() const { return largest_; }
    std::uint64_t solves() const { return solves_; }

private:
    struct Flow {
        double weight = 1, cap = kUncapped, rate = 0;
        std::vector<LinkUse> uses;
        std::vector<std::uint32_t> slot;  // its position in on_link_[uses[i].link]
        bool active = false;
    };
    void mark_link(std::uint32_t link);

    std::vector<double> capacity_, link_rate_;
    RateBackend& backend_;
    std::vector<Flow> flows_;
    std::vector<std::uint32_t> free_;
    std::vector<std::vector<std::uint32_t>> on_link_;  // active flows per link
    std::vector<std::uint32_t> dirty_links_, dirty_flows_;
    std::vector<std::uint64_t> link_seen_, flow_seen_;  // epoch of the last visit
    std::vector<std::uint32_t> local_;                  // link -> its index in system_
    std::uint64_t epoch_ = 0;
    FlowSystem system_;
    std::vector<double> rates_;
    std::vector<std::uint32_t> solved_, component_links_, touched_links_;
    std::size_t active_ = 0, largest_ = 0;
    std::uint64_t solves_ = 0;
};

}  // namespace fabricsim::flow
