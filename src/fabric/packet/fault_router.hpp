// Routing around failed links (docs/models/faults.md): a Router over the fabric's Routing that
// knows which links are down.
//
// Two views of a link's state, as in a real fabric:
//   physical   the link is down at once when it fails; packets sent into it are lost, and
//              adaptive routing, which weighs its own ports, avoids a dead port of its own at once;
//   routed     after the reconvergence delay (BGP/ECMP withdrawal on RoCE, the subnet manager's
//              sweep on InfiniBand) every switch's equal-cost group drops the ports whose paths
//              no longer reach the destination: the link itself, and upstream the ports towards
//              a switch that has lost its every way to it.
// A group keeps its order and the flow hash picks among the members left, so a flow whose
// group is unchanged keeps its path. When no member is left (the destination is cut off),
// the unfailed group is used: packets are lost at the dead link and RC retransmits until it
// returns. Only the routing tables' shortest up/down paths are used; no longer detour is found.
//
// With nothing down this adds one branch per query; with links down, a reachability answer
// per (switch, destination) is cached until the next reconvergence.
#pragma once

#include "fabric/packet/router.hpp"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace fabricsim::fabric {

class FaultRouter final : public Router {
public:
    // `seed`: the routing seed the Routing was built with (its ECMP hashes).
    FaultRouter(const Topology& topology, const Routing& routing, std::uint64_t seed);

    std::span<const std::uint32_t> candidates(NodeId at, const FlowKey& flow) const override;
    std::uint32_t next_port(NodeId at, const FlowKey& flow, std::uint64_t packet_seq,
                            const PortLoad* load) const override;
    std::vector<DirectedLink> path(const FlowKey& flow) const override { return routing_.path(flow); }

    // The physical state of a link: adaptive routing sees it at once.
    void set_physical(LinkId link, bool up);
    // Routing has reconverged: it now avoids exactly the links physically down.
    void reconverge();
    bool routed_out(LinkId link) const { return routed_out_[link.value()] != 0; }

private:
    bool usable(NodeId at, std::uint32_t port, const FlowKey& flow) const;
    bool reaches(NodeId at, const FlowKey& flow) const;
    // The usable ones of `base`, in scratch_; false when all of them are usable.
    bool filter(NodeId at, std::span<const std::uint32_t> base, const FlowKey& flow) const;

    const Topology& topology_;
    const Routing& routing_;
    std::uint64_t seed_;
    bool adaptive_;
    std::vector<std::uint8_t> down_;        // by link: physically down
    std::vector<std::uint8_t> routed_out_;  // by link: routing avoids it
    std::size_t down_count_ = 0, routed_count_ = 0;
    mutable std::vector<std::uint32_t> scratch_;
    mutable std::unordered_map<std::uint64_t, bool> reach_;  // (switch, destination) -> reachable
};

}  // namespace fabricsim::fabric
