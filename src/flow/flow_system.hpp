// FlowSystem: one max-min problem as flat arrays, the form both rate backends read
// (max_min_cpu.hpp, max_min_cuda.hpp; the arithmetic is flow_rules.hpp).
//
//   links   capacity[l]                      payload bytes/s a link may carry (one direction)
//   flows   weight[f] > 0, cap[f] (bytes/s; kUncapped: none)
//   uses    CSR by flow: flow f uses link link_of[k] with coefficient share[k] (> 0) for
//           k in [first[f], first[f+1]): the part of its bytes that crosses that link
//
// A flow model (flow_network.hpp) builds one per connected part of its network it re-solves;
// tests and benchmarks build them directly.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <utility>
#include <vector>

namespace fabricsim::flow {

inline constexpr double kUncapped = std::numeric_limits<double>::infinity();

struct FlowSystem {
    std::vector<double> capacity;         // per link
    std::vector<double> weight, cap;      // per flow
    std::vector<std::uint32_t> first{0};  // per flow + 1
    std::vector<std::uint32_t> link_of;   // per use
    std::vector<double> share;            // per use

    std::size_t links() const { return capacity.size(); }
    std::size_t flows() const { return weight.size(); }
    std::size_t uses() const { return link_of.size(); }

    // Inline: a local re-solve builds a system per re-fill, a call per use otherwise.
    std::uint32_t add_link(double bytes_per_s) {
        capacity.push_back(bytes_per_s);
        return static_cast<std::uint32_t>(capacity.size() - 1);
    }
    // A flow over (link, share) pairs; returns its index.
    std::uint32_t add_flow(double weight_, double cap_, std::initializer_list<std::pair<std::uint32_t, double>> uses);
    void begin_flow(double weight_, double cap_) {
        weight.push_back(weight_);
        cap.push_back(cap_);
    }
    void add_use(std::uint32_t link, double share_) {  // to the flow begun last
        link_of.push_back(link);
        share.push_back(share_);
    }
    void end_flow() { first.push_back(static_cast<std::uint32_t>(link_of.size())); }
    void clear();

    // Throws InternalError on a malformed system (a link index out of range, a weight or
    // share not positive, offsets out of order).
    void check() const;
};

// The transpose of a system's uses, by link: link l's uses are use_of[k] for k in
// [first[l], first[l+1]), each an index into link_of / share, with its flow in flow_of[k].
struct LinkUses {
    std::vector<std::uint32_t> first, use_of, flow_of;
};
LinkUses link_uses(const FlowSystem& system);
// The same into `out`, reusing its storage (a solver that runs often allocates nothing).
void link_uses(const FlowSystem& system, LinkUses& out);

}  // namespace fabricsim::flow
