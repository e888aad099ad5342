// Topology: the cluster's structure, shared by the packet and the flow models (docs/ARCHITECTURE.md).
//
// A graph of nodes (GPUs, NVSwitches, PCIe switches, host CPUs, NICs, fabric switches,
// storage nodes, client hosts) joined by full-duplex links. Every link has a bandwidth per
// direction, a propagation delay and a protocol efficiency (payload / wire bytes) of its link
// class (docs/models/links.md). A node's ports are numbered 0.. in the order its links were
// added; a directed link is (link, direction) so per-direction state can live in flat arrays.
//
// Ranks: every GPU is a rank (a server without GPUs is one rank, on its host CPU); rank r is
// GPU r mod G of server r div G, and knows the compute NIC that serves it (its rail).
// Endpoint ids (ClusterSpec::storage_endpoint, client_endpoint) continue after the ranks: the
// storage nodes, then the client hosts; endpoint_node() maps one to its node.
//
// Plain data: built once by build_topology() (topology_builder.hpp), then read-only.
#pragma once

#include "core/ids.hpp"
#include "core/units.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::fabric {

using NodeId = Id<struct NodeTag>;
using LinkId = Id<struct LinkTag>;

enum class NodeKind : std::uint8_t {
    gpu,
    nvswitch,
    pcie_switch,
    host,         // the server's CPU / PCIe root complex
    nic,          // a compute-fabric NIC
    storage_nic,  // a front-end / storage NIC
    leaf,         // fabric tier 1
    spine,        // fabric tier 2 (aggregation in a 3-tier fat tree)
    core,         // fabric tier 3
    storage_node,
    client,  // a CPU-only client host on the compute fabric (cluster.clients)
};
std::string_view to_string(NodeKind kind);
bool is_fabric_switch(NodeKind kind);  // leaf, spine, core

enum class LinkType : std::uint8_t { nvlink, pcie, fabric, storage_fabric };
std::string_view to_string(LinkType type);

enum class Medium : std::uint8_t { board, copper, optical };  // board: traces inside a server
std::string_view to_string(Medium medium);

// One end of a link as seen from a node.
struct Port {
    LinkId link;
    NodeId peer;
    std::uint32_t peer_port = 0;
};

struct Node {
    NodeKind kind = NodeKind::host;
    std::string name;               // unique: "s3.gpu5", "s3.nic5", "leaf12", "p1.spine4"
    ServerId server;                // invalid for fabric switches, storage nodes and clients
    std::uint32_t local_index = 0;  // index among its kind in its server / tier
    std::uint32_t plane = 0;        // fabric plane (switches and NICs)
    std::uint32_t pod = 0;          // fat-tree pod (leaf and spine tiers)
    std::uint32_t rail = 0;         // rail of a rail-optimized leaf / of a NIC
    Time forwarding_latency;        // port-to-port for switches; zero for endpoints
    Bytes buffer;                   // shared buffer of a switch; a NIC's receive buffer
    std::uint32_t radix = 0;        // a switch's ports (its preset's radix, used or not)
    bool storage_fabric = false;    // a switch of cluster.storage_fabric (not the compute fabric)
    std::vector<Port> ports;
};

struct Link {
    NodeId a, b;
    std::uint32_t a_port = 0, b_port = 0;
    LinkType type = LinkType::fabric;
    std::string link_class;   // "nvlink4", "pcie-gen5-x16", "roce-400G", "ib-ndr"
    Bandwidth bandwidth;      // line rate per direction
    double efficiency = 1.0;  // payload / wire bytes for this link class and MTU
    Time propagation;         // cable or trace delay
    Length length;
    Medium medium = Medium::board;
    std::uint8_t tier = 0;                // fabric links: 1 NIC-leaf, 2 leaf-spine, 3 spine-core
    Bandwidth payload_bandwidth() const;  // bandwidth x efficiency, rounded down
};

// A direction on a link: a -> b is forward.
struct DirectedLink {
    LinkId link;
    bool reverse = false;  // true: b -> a
    std::uint32_t index() const { return link.value() * 2 + (reverse ? 1 : 0); }
    static DirectedLink from_index(std::uint32_t i) { return {LinkId{i / 2}, (i % 2) == 1}; }
    bool operator==(const DirectedLink&) const = default;
};

struct RankInfo {
    RankId rank;
    ServerId server;
    std::uint32_t local_index = 0;  // GPU index inside the server
    NodeId gpu;                     // the GPU node (the host node for a GPU-less server)
    NodeId nic;                     // the compute NIC that serves it (its rail)
    std::uint32_t rail = 0;         // index of that NIC in its server
};

struct ServerInfo {
    NodeId host;
    std::vector<NodeId> gpus, nvswitches, pcie_switches, nics, storage_nics;
};

class Topology {
public:
    NodeId add_node(Node node);
    // Joins a's next free port to b's next free port; returns the new link.
    LinkId add_link(NodeId a, NodeId b, Link properties);

    const std::vector<Node>& nodes() const { return nodes_; }
    const std::vector<Link>& links() const { return links_; }
    const Node& node(NodeId id) const { return nodes_[id.value()]; }
    const Link& link(LinkId id) const { return links_[id.value()]; }
    std::size_t directed_link_count() const { return links_.size() * 2; }
    NodeId source(DirectedLink d) const;
    NodeId target(DirectedLink d) const;
    // The directed link leaving `node` through `port`.
    DirectedLink egress(NodeId node, std::uint32_t port) const;

    std::vector<RankInfo>& ranks() { return ranks_; }
    const std::vector<RankInfo>& ranks() const { return ranks_; }
    const RankInfo& rank(RankId r) const { return ranks_[r.value()]; }
    std::vector<ServerInfo>& servers() { return servers_; }
    const std::vector<ServerInfo>& servers() const { return servers_; }
    std::vector<NodeId>& storage_nodes() { return storage_nodes_; }
    const std::vector<NodeId>& storage_nodes() const { return storage_nodes_; }
    std::vector<NodeId>& clients() { return clients_; }
    const std::vector<NodeId>& clients() const { return clients_; }
    // The node of endpoint id `e`: rank e's GPU (host for a GPU-less server), then storage
    // node e - ranks, then client e - ranks - storage nodes. Throws ModelError past the last.
    NodeId endpoint_node(RankId e) const;

    std::size_t count(NodeKind kind) const;

private:
    std::vector<Node> nodes_;
    std::vector<Link> links_;
    std::vector<RankInfo> ranks_;
    std::vector<ServerInfo> servers_;
    std::vector<NodeId> storage_nodes_;
    std::vector<NodeId> clients_;
};

}  // namespace fabricsim::fabric
