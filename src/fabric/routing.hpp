// Routing: which way a packet or a flow goes, one interface for the packet and flow models.
//
// The routing tables give, at every node and for every destination endpoint, the set of
// equal-cost egress ports on shortest paths (inside a server: NVLink or PCIe; across the
// fabric: up/down through the switch tiers). A policy picks one:
//   ecmp      hash of the flow key (5-tuple: one QP = one UDP source port) with a
//             per-switch seed, so all packets of a QP follow one path (RoCE default); on
//             InfiniBand, QPs spread over several paths as LMC gives several LIDs: a hash of
//             (destination, QP) only
//   static    IB-style D-mod-K: going up at tier t takes candidate (dst / Π lower fan-outs)
//             mod (up-ports), a linear forwarding table that is fixed per destination
//             (IB default; Zahavi et al., "Optimized InfiniBand fat-tree routing", 2010)
//   adaptive  per packet, the least-loaded candidate by the queue occupancy the packet model
//             reports through PortLoad (ties by hash)
//   spray     per packet, a hash of (flow key, packet sequence)
// Inside a server every policy stripes: a packet (segment) takes one of the equal-cost NVLink
// or PCIe ports by a hash of (flow, packet sequence), as NVLink spreads a GPU's traffic over
// all its links; the least-loaded one under `adaptive` with a PortLoad.
//
// A flow between GPUs of two servers goes GPU -> its rank's NIC (PCIe) -> fabric -> the
// destination rank's NIC -> destination GPU; never through the fabric inside one server.
// Where the two NICs sit on different fabrics (planes, a separate storage fabric) the
// destination side enters through its NIC on the source NIC's fabric, the same rail if it has
// one there (docs/models/routing.md).
//
// Tables are two-level so they scale to thousands of GPUs: per server layout (computed once
// for all servers wired alike) and per (fabric switch, destination leaf group) across the
// fabric; memory O(switches x leaves), not O(nodes^2). The Topology must outlive the Routing.
#pragma once

#include "fabric/topology.hpp"
#include "scenario/spec.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace fabricsim::fabric {

namespace routing_detail {
struct RoutingTables;
}

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

// The share of a flow's bytes that crosses one directed link.
struct LinkShare {
    DirectedLink link;
    double share = 0.0;
};

class Routing {
public:
    // Builds the tables for every endpoint (GPUs, hosts, NICs, storage nodes, client hosts).
    // `policy` automatic resolves by fabric.technology (RoCE: ecmp, IB: static).
    Routing(const Topology& topology, scenario::RoutingKind policy, scenario::Technology technology,
            std::uint64_t seed);
    ~Routing();
    Routing(Routing&&) noexcept;
    Routing& operator=(Routing&&) noexcept;

    scenario::RoutingKind policy() const;  // never automatic
    scenario::Technology technology() const;

    // Equal-cost egress ports of `at` towards endpoint `dst` (empty when at == dst), as for a
    // flow that starts at `at`. Sorted by (peer node, port).
    std::span<const std::uint32_t> candidates(NodeId at, NodeId dst) const;
    // The equal-cost egress ports of `at` for this flow (which NIC a GPU leaves by depends on
    // the flow's source). Empty at the destination and at nodes off the flow's paths.
    std::span<const std::uint32_t> candidates(NodeId at, const FlowKey& flow) const;

    // The port a packet takes at `at`. `packet_seq` matters for spray (and for striping inside
    // a server); `load` for adaptive (may be nullptr: adaptive then falls back to ecmp).
    // Throws ModelError when `at` has no route to flow.dst.
    std::uint32_t next_port(NodeId at, const FlowKey& flow, std::uint64_t packet_seq = 0,
                            const PortLoad* load = nullptr) const;

    // The whole path of a flow, as directed links from src to dst (ecmp/static; adaptive and
    // spray give their ecmp path: the flow model spreads such traffic by rate instead, see
    // spread()). Packet 0's path: inside a server, the QP's stripe.
    std::vector<DirectedLink> path(const FlowKey& flow) const;
    // The path between two endpoints by id: ranks' GPUs (host for a GPU-less server), storage
    // nodes and client hosts after them (Topology::endpoint_node).
    std::vector<DirectedLink> path(RankId from, RankId to, std::uint32_t qp = 0) const;

    // The long-run share of a flow's bytes on each directed link it may cross, hop by hop
    // from src: split evenly over the candidates where traffic is striped (inside a server,
    // and everywhere under spray and adaptive at zero load), one link per hop elsewhere.
    // At every hop the shares sum to 1.
    std::vector<LinkShare> spread(const FlowKey& flow) const;

    // Bytes held by the tables (for sizing reports and tests).
    std::size_t table_bytes() const;

private:
    std::unique_ptr<routing_detail::RoutingTables> tables_;
};

}  // namespace fabricsim::fabric
