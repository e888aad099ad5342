// Routing: which way a packet or a flow goes, one interface for the packet and flow models.
//
// The routing tables give, at every node and for every destination endpoint, the set of
// equal-cost egress ports on shortest paths (inside a server: NVLink or PCIe; across the
// fabric: up/down through the switch tiers). A policy picks one:
//   ecmp      hash of the flow key (5-tuple: one QP = one UDP source port) with a
//             per-switch seed, so all packets of a QP follow one path (RoCE default)
//   static    IB-style D-mod-K: going up at tier t takes candidate (dst / Π lower fan-outs)
//             mod (up-ports), a linear forwarding table that is fixed per destination
//             (IB default; Zahavi et al., "Optimized InfiniBand fat-tree routing", 2010)
//   adaptive  per packet, the least-loaded candidate by the queue occupancy the packet model
//             reports through PortLoad (ties by hash)
//   spray     per packet, a hash of (flow key, packet sequence)
// Inside a server the same tables stripe a GPU's traffic over its NVLink links.
#pragma once

#include "fabric/topology.hpp"
#include "scenario/spec.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace fabricsim::fabric {

// What identifies a flow for hashing: the RoCEv2 5-tuple reduces to the endpoints and the
// QP's UDP source port.
struct FlowKey {
    NodeId src;
    NodeId dst;
    std::uint32_t qp = 0;
};

// Queue occupancy per directed link, reported by the packet model for adaptive routing.
class PortLoad {
public:
    virtual Bytes queued(DirectedLink link) const = 0;

protected:
    ~PortLoad() = default;
};

class Routing {
public:
    // Builds the tables for every endpoint (GPUs, hosts, NICs, storage nodes).
    // `policy` automatic resolves by fabric.technology (RoCE: ecmp, IB: static).
    Routing(const Topology& topology, scenario::RoutingKind policy, scenario::Technology technology,
            std::uint64_t seed);
    ~Routing();
    Routing(Routing&&) noexcept;

    scenario::RoutingKind policy() const;

    // Equal-cost egress ports of `at` towards endpoint `dst` (empty when at == dst).
    std::span<const std::uint32_t> candidates(NodeId at, NodeId dst) const;

    // The port a packet takes at `at`. `packet_seq` matters for spray; `load` for adaptive
    // (may be nullptr: adaptive then falls back to ecmp).
    std::uint32_t next_port(NodeId at, const FlowKey& flow, std::uint64_t packet_seq = 0,
                            const PortLoad* load = nullptr) const;

    // The whole path of a flow, as directed links from src to dst (ecmp/static; adaptive and
    // spray give their ecmp path: the flow model spreads such traffic by rate instead).
    std::vector<DirectedLink> path(const FlowKey& flow) const;

private:
    struct Tables;
    std::unique_ptr<Tables> tables_;
};

}  // namespace fabricsim::fabric
