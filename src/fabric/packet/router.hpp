// What the packet model asks of a routing: the equal-cost ports at a node for a flow, the one
// a packet takes, and a flow's whole path. `RoutingRouter` answers from the fabric's Routing
// (docs/models/routing.md); a test may answer otherwise (e.g. force a cyclic route).
#pragma once

#include "fabric/routing.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace fabricsim::fabric {

class Router {
public:
    virtual ~Router() = default;
    virtual std::span<const std::uint32_t> candidates(NodeId at, const FlowKey& flow) const = 0;
    // `load`: the queues the packet model sees, for adaptive routing (may be null).
    virtual std::uint32_t next_port(NodeId at, const FlowKey& flow, std::uint64_t packet_seq,
                                    const PortLoad* load) const = 0;
    virtual std::vector<DirectedLink> path(const FlowKey& flow) const = 0;
};

class RoutingRouter final : public Router {
public:
    explicit RoutingRouter(const Routing& routing) : routing_(routing) {}
    std::span<const std::uint32_t> candidates(NodeId at, const FlowKey& flow) const override {
        return routing_.candidates(at, flow);
    }
    std::uint32_t next_port(NodeId at, const FlowKey& flow, std::uint64_t packet_seq,
                            const PortLoad* load) const override {
        return routing_.next_port(at, flow, packet_seq, load);
    }
    std::vector<DirectedLink> path(const FlowKey& flow) const override { return routing_.path(flow); }

private:
    const Routing& routing_;
};

}  // namespace fabricsim::fabric
