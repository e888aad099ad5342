// SHARP on the packet model: reductions computed by the InfiniBand switches on the way up an
// aggregation tree, the result multicast back down it (docs/models/sharp.md).
//
// What the hardware does. SHARP (Graham et al., "Scalable Hierarchical Aggregation Protocol
// (SHArP): A Hardware Architecture for Efficient Data Reduction", COMHPC 2016) organises the
// group's switches into a tree: the end nodes send their data to their leaf switch, every
// switch combines what its children send and passes the result to its parent, and the root's
// result is sent back down the same tree. "A SHARP tree defines a set of switches and their
// connected links"; a job on several rails uses one tree per rail (NVIDIA SHARP Rev 3.11.0,
// "Operating NVIDIA SHARP in Dynamic Trees Allocation Mode"), and NCCL's SHARP plugin runs
// "an aggregation streaming flow (NCCL Ring/Channel) per HCA rail", with every server's NIC of
// one rail cabled to the same leaf switches (NVIDIA HPC-X 2.25.1, "NCCL-RDMA-SHARP Plugins").
// Quantum and Quantum-2 switches run SHARP's streaming aggregation for large messages;
// Quantum-2 (SHARPv3) may run several streaming trees at once, "one active tree per port",
// where Quantum allows one per switch (NVIDIA SHARP Rev 3.13.0, "General Information").
// NVIDIA publishes no aggregation throughput finer than the ports' rate.
//
// The model. Offered when the fabric is InfiniBand built of switches with `sharp: true`
// (PacketModelSpec::sharp), for two or more ranks, each on a different server (as the ideal
// network offers it). Each member enters the fabric by one NIC: the operation's rail
// (GroupOperation::rail, NIC rail mod the server's NICs, as NCCL's rail-per-tree), or its own
// NIC when the rail is -1. The tree:
//
//   fabric part  the union of the routes from every member's NIC to member 0's NIC
//                (Routing::path). InfiniBand forwards by destination (D-mod-K, and the
//                (destination, QP) hash of ecmp/adaptive), so these routes form a tree; its
//                root is the highest-tier switch on it (lowest node id on a tie), and each
//                node's parent is its neighbour towards the root (breadth-first from the
//                root; a branch without a member below it is dropped). A single switch is
//                its own root.
//   server part  every member's own route from its GPU (the host of a GPU-less server) to
//                that NIC, hop by hop (GPU -> PCIe switch -> NIC on an HGX): packet 0's
//                route where the server stripes.
//
// Every tree edge is an adjacent pair of nodes; it carries the member's egress bytes up
// (child -> parent) and its ingress bytes down (parent -> child), once per direction however
// many members lie below it: the switch forwards one combined stream. Each direction is one
// direct message (start_message with direct = true: over every link between the two nodes),
// all started at once, as SHARP streams: a switch reduces and forwards slices as they arrive,
// the root turns them round, at the ports' rate. The operation completes when the last part
// is delivered (the group bookkeeping of group_ops.cpp). On an idle fabric a part of B bytes over
// a hop of payload rate R ends at B/R + propagation + the next node's forwarding latency, so
//
//   T = max over the tree's directed edges e of  bytes_e / R_e + propagation_e + latency(next_e)
//
// which for a large S is S / (the slowest payload rate on the tree) (tests/packet/test_sharp.cpp).
//
// What it leaves out (pipeline fill, tree causality, limits on concurrent trees):
// docs/models/sharp.md. Parts move in MTU packets on fabric links, in segments inside servers.
#include "fabric/packet/packet_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/dmodk.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace fabricsim::fabric {

namespace {

// The NIC by which rank `r` enters the fabric for an operation on `rail` (-1: its own NIC);
// invalid when its server has none.
NodeId entry_nic(const Topology& t, RankId r, std::int16_t rail) {
    const RankInfo& info = t.rank(r);
    if (rail < 0) return info.nic;
    const auto& nics = t.servers()[info.server.value()].nics;
    if (nics.empty()) return NodeId::invalid();
    return nics[static_cast<std::size_t>(rail) % nics.size()];
}

}  // namespace

bool PacketNetwork::offers_sharp(std::span<const RankId> ranks) const {
    if (!spec_.sharp || spec_.technology != scenario::Technology::infiniband || ranks.size() < 2) return false;
    const auto total = static_cast<std::uint32_t>(topology_.ranks().size());
    std::set<std::uint32_t> servers;
    for (RankId r : ranks) {
        if (r.value() >= total) return false;
        const RankInfo& info = topology_.rank(r);
        if (!info.nic.valid() || !servers.insert(info.server.value()).second) return false;
    }
    return true;
}

void PacketNetwork::start_sharp(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) {
    // The members' NICs, and the fabric part of the tree: the union of the routes to member 0.
    std::vector<NodeId> nics;
    for (RankId r : op.ranks) {
        const NodeId nic = entry_nic(topology_, r, op.rail);
        if (!nic.valid()) throw ModelError(fmt::format("packet model: SHARP: rank {} has no NIC", r.value()));
        nics.push_back(nic);
    }
    std::vector<std::pair<NodeId, NodeId>> links;  // undirected, (lower id, higher id)
    for (std::size_t i = 1; i < nics.size(); ++i)
        for (DirectedLink d : routing_.path(FlowKey{nics[i], nics[0], 0})) {
            const NodeId a = topology_.source(d), b = topology_.target(d);
            links.emplace_back(std::min(a, b), std::max(a, b));
        }
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());

    // The root: the highest-tier switch on it.
    NodeId root = NodeId::invalid();
    int root_tier = 0;
    for (const auto& [a, b] : links)
        for (NodeId n : {a, b}) {
            const NodeKind kind = topology_.node(n).kind;
            if (!is_fabric_switch(kind)) continue;
            const int tier = fabric_tier(kind);
            if (tier > root_tier || (tier == root_tier && n < root)) {
                root = n;
                root_tier = tier;
            }
        }
    if (!root.valid())
        throw ModelError(fmt::format("packet model: SHARP: no fabric switch between {} and {}",
                                     topology_.node(nics[1]).name, topology_.node(nics[0]).name));

    // The tree's nodes (sorted, so a node's index is a binary search) and their neighbours.
    std::vector<NodeId> nodes;
    for (const auto& [a, b] : links) {
        nodes.push_back(a);
        nodes.push_back(b);
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    const auto index_of = [&](NodeId n) {
        return static_cast<std::size_t>(std::lower_bound(nodes.begin(), nodes.end(), n) - nodes.begin());
    };
    std::vector<std::vector<std::size_t>> next(nodes.size());
    for (const auto& [a, b] : links) {
        next[index_of(a)].push_back(index_of(b));
        next[index_of(b)].push_back(index_of(a));
    }
    // Breadth-first from the root: each node's parent, and the visiting order.
    constexpr std::size_t kUnseen = SIZE_MAX;
    std::vector<std::size_t> parent(nodes.size(), kUnseen), order{index_of(root)};
    parent[order[0]] = order[0];
    for (std::size_t k = 0; k < order.size(); ++k)
        for (std::size_t n : next[order[k]])
            if (parent[n] == kUnseen) {
                parent[n] = order[k];
                order.push_back(n);
            }
    // Keep the edges with a member below them (in reverse visiting order: children first).
    std::vector<int> below(nodes.size(), 0);
    for (NodeId nic : nics) {
        const std::size_t k = index_of(nic);
        if (k == nodes.size() || nodes[k] != nic || parent[k] == kUnseen)
            throw InternalError("packet model: SHARP: a member's NIC is off its own tree");
        ++below[k];
    }
    std::vector<std::pair<NodeId, NodeId>> up;  // (child, parent)
    for (std::size_t k = order.size(); k-- > 1;) {
        const std::size_t n = order[k];
        if (below[n] == 0) continue;
        below[parent[n]] += below[n];
        up.emplace_back(nodes[n], nodes[parent[n]]);
    }
    // The server part: each member's route from its GPU to its NIC.
    for (std::size_t i = 0; i < nics.size(); ++i) {
        const NodeId gpu = topology_.rank(op.ranks[i]).gpu;
        if (gpu == nics[i]) continue;
        for (DirectedLink d : routing_.path(FlowKey{gpu, nics[i], 0}))
            up.emplace_back(topology_.source(d), topology_.target(d));
    }

    std::vector<GroupPart> parts;
    for (const auto& [child, up_to] : up) {
        if (op.egress > Bytes::zero()) parts.push_back({child, up_to, op.egress});
        if (op.ingress > Bytes::zero()) parts.push_back({up_to, child, op.ingress});
    }
    start_parts(sim, op, listener, parts);
}

}  // namespace fabricsim::fabric
