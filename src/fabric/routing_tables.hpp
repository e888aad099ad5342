// The data behind Routing (routing.hpp): interned port lists, per-server-layout tables and
// per-(switch, destination group) fabric tables. Internal to src/fabric/routing*.cpp.
//
// Level 1, inside a server: for every (local node, local destination) the equal-cost egress
// ports, over NVLink between GPUs that NVLink joins, over PCIe otherwise; computed once per
// server layout (servers whose nodes and links are wired alike share one table).
// Level 2, across a fabric: fabric endpoints (NICs, storage nodes, client hosts: nodes with a
// fabric link) are grouped by the set of switches they attach to (normally one leaf); a BFS
// over the fabric switches per group gives every switch its equal-cost ports towards the
// group; the attachment switch then takes its port(s) to the endpoint itself.
#pragma once

#include "fabric/dmodk.hpp"
#include "fabric/topology.hpp"
#include "scenario/spec.hpp"

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace fabricsim::fabric::routing_detail {

inline constexpr std::uint32_t none = 0xffffffffU;

inline bool is_fabric_link(LinkType t) { return t == LinkType::fabric || t == LinkType::storage_fabric; }
inline bool is_server_link(LinkType t) { return t == LinkType::nvlink || t == LinkType::pcie; }

// Port lists stored once each: list 0 is the empty list.
class PortLists {
public:
    PortLists();
    std::uint32_t intern(std::span<const std::uint32_t> ports);
    std::span<const std::uint32_t> get(std::uint32_t id) const {
        return {ports_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]};
    }
    std::size_t size() const { return offsets_.size() - 1; }
    void finish();  // after building: drops the lookup index and spare capacity
    std::size_t bytes() const;

private:
    std::vector<std::uint32_t> ports_;
    std::vector<std::uint32_t> offsets_;
    std::unordered_multimap<std::uint64_t, std::uint32_t> index_;  // content hash -> list id
};

// What routing needs to know of one node, packed.
struct NodeRoute {
    std::uint32_t server = none;    // ServerId value
    std::uint32_t local = none;     // position among its server's nodes
    std::uint32_t endpoint = none;  // index among fabric endpoints
    std::uint32_t sw = none;        // index among fabric switches
    std::uint32_t rank_nic = none;  // for a rank's GPU (or host): the NIC that serves it
    NodeKind kind = NodeKind::host;
};

struct ServerTables {
    std::vector<std::uint32_t> node_offset;     // server s: nodes[node_offset[s] .. node_offset[s+1])
    std::vector<NodeId> nodes;                  // by node id within a server
    std::vector<std::uint32_t> gateway_offset;  // server s: its fabric endpoints (NICs first)
    std::vector<NodeId> gateways;
    std::vector<std::uint32_t> layout;         // per server
    std::vector<std::uint32_t> layout_size;    // per layout: local node count L
    std::vector<std::uint32_t> layout_offset;  // per layout: start of its L x L table
    std::vector<std::uint32_t> table;          // [at_local * L + dst_local] -> list id
};

struct FabricTables {
    std::vector<NodeId> switches;  // switch index -> node
    std::uint32_t groups = 0;
    std::vector<std::uint32_t> table;          // [switch * groups + group] -> list id
    std::vector<NodeId> endpoints;             // endpoint index -> node
    std::vector<std::uint32_t> component;      // per endpoint: connected fabric
    std::vector<std::uint32_t> group;          // per endpoint
    std::vector<std::uint32_t> own_ports;      // per endpoint: list of its fabric ports
    std::vector<std::uint32_t> attach_offset;  // per endpoint: attach[attach_offset[e] ..)
    std::vector<NodeId> attach_switch;         // a switch the endpoint hangs off
    std::vector<std::uint32_t> attach_ports;   // that switch's ports to the endpoint (list id)
    std::vector<std::uint32_t> multi;          // per endpoint: row in multi_table, or none
    std::vector<std::uint32_t> multi_table;    // [row * groups + group] -> list id
    DmodkPlan dmodk;
};

struct RoutingTables {
    const Topology* topology = nullptr;
    scenario::RoutingKind policy = scenario::RoutingKind::ecmp;
    scenario::Technology technology = scenario::Technology::roce;
    std::uint64_t seed = 0;
    std::vector<std::uint64_t> node_seed;  // per node: its ECMP hash seed
    PortLists lists;
    std::vector<NodeRoute> nodes;
    ServerTables server;
    FabricTables fabric;
};

// Fills nodes[].server/local/rank_nic/kind and `server` (routing_server_tables.cpp).
void build_server_tables(RoutingTables& t);
// Fills nodes[].endpoint/sw and `fabric` (routing_fabric_tables.cpp); after the server tables.
void build_fabric_tables(RoutingTables& t);

}  // namespace fabricsim::fabric::routing_detail
