// Fabric sizing: how many switches of which radix, and how they are wired, for a given number
// of endpoints (NIC ports) in one plane. Pure functions; topology_builder turns a plan into
// nodes and links (docs/models/topology.md).
//
//   leaf split      the most ports a leaf of R ports can give at exactly down:up (the ratio
//                   reduced first): n = R / (down + up); n·down down, n·up up, the rest spare.
//                   64 ports at 2:1: 42 / 21 / 1 spare; at 1:1: 32 / 32 / 0.
//   single switch   E <= R endpoints on one switch. Any kind collapses to one switch when
//                   the endpoints fit one leaf's downlinks (E <= down).
//   leaf-spine      L = ceil(E / down) leaves, each joined to every spine by p parallel links;
//                   p is the largest divisor of `up` with L·p <= R, spines = up / p.
//                   At most R leaves: E <= R · down.
//   rail-optimized  NIC i of every server on rail i's leaves: ceil(servers / down) leaves per
//                   rail, then spines as in leaf-spine over all rails' leaves (spines join the
//                   rails). At most R leaves: servers <= floor(R / rails) · down. With one
//                   leaf per rail holding s < down servers, each leaf cables only
//                   ceil(s · up / down) uplinks (the ratio, not the empty ports, sets them).
//   fat-tree        3 tiers with pods of R/2 leaves and `up` aggregation switches (each leaf
//                   joined once to each aggregation switch of its pod); aggregation switches
//                   split R/2 down, R/2 up; aggregation switch j of every pod joins core group
//                   j: c cores with q parallel links each, q the largest divisor of R/2 with
//                   pods·q <= R, c = (R/2) / q. At most R pods: E <= R · R/2 · down. A k-ary
//                   fat tree (R = k, 1:1) has k³/4 hosts and 5k²/4 switches at full size.
//                   When all leaves fit one pod (L <= R/2) it is built as a leaf-spine.
//
// Storage nodes (cluster.storage) and client hosts (cluster.clients) on the compute fabric are
// more endpoints of leaf-spine and fat-tree planes, after the servers' ports: the storage
// nodes' ports, then the clients'. Rail-optimized planes refuse them (they have no rail).
//
// planes: N parallel fabrics, NIC i of every server on plane i mod N; each plane is sized on
// its own. A fabric that does not fit is a ConfigError at `cluster.servers` that states the
// largest buildable size.
#pragma once

#include "scenario/spec.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace fabricsim::fabric {

struct LeafSplit {
    int down = 0;
    int up = 0;
    int spare = 0;
    bool operator==(const LeafSplit&) const = default;
};

// Throws ConfigError (cluster.fabric.oversubscription) when not even one down:up group fits.
LeafSplit leaf_split(int radix, scenario::Ratio ratio);

// The tier above `lower` switches that each have `uplinks` ports up, with switches of `radix`
// ports: every lower switch reaches every upper switch with `parallel` links.
struct UpperTier {
    int switches = 0;
    int parallel = 0;
};
UpperTier upper_tier(int lower, int uplinks, int radix);

// Ports per switch at the fabric link rate: a faster port splits into port_speed / link
// breakout ports when that divides exactly. Throws ConfigError (cluster.fabric.link_speed)
// when the link is faster than the switch's ports, or when the split makes more than
// kMaxPortsPerSwitch ports (64 800G ports at 10G make 5120; a 100 Mbps link on 400G ports
// would make 256000).
inline constexpr std::int64_t kMaxPortsPerSwitch = 65'536;
int ports_at_link_rate(const scenario::SwitchSpec& sw, Bandwidth link, const std::string& key_prefix);

// What one plane must connect: `servers` endpoint owners with `per_server` NIC ports each
// (the rails of a rail-optimized plane), then `storage_ports` NIC ports of storage nodes on
// this fabric (cluster.storage), then `client_ports` NIC ports of client hosts
// (cluster.clients); neither on rails. `planes` only shapes the error message.
struct PlaneDemand {
    int servers = 0;
    int per_server = 1;
    int planes = 1;
    int storage_ports = 0;
    int client_ports = 0;
    int endpoints() const { return servers * per_server + storage_ports + client_ports; }
};

struct FabricPlan {
    scenario::TopologyKind kind = scenario::TopologyKind::single_switch;  // as built
    int radix = 0;                                                        // ports per switch at the link rate
    LeafSplit leaf;
    int endpoints = 0;
    int leaves = 0;
    int leaf_uplinks = 0;  // uplinks cabled per leaf: leaf.up, or fewer on rails (above)
    int spines = 0;        // leaf-spine spines; fat-tree aggregation switches (all pods)
    int cores = 0;
    int leaf_spine_parallel = 0;  // links from a leaf to each spine (or agg switch) it reaches
    int spine_core_parallel = 0;  // links from an aggregation switch to each core of its group
    int pods = 1;
    int leaves_per_pod = 0;  // fat-tree: R/2 (the last pod may hold fewer)
    int spines_per_pod = 0;
    int core_groups = 0;  // fat-tree: one per aggregation switch index in a pod
    int cores_per_group = 0;
    int rails = 1;  // rail-optimized: NICs per server in the plane
    int leaves_per_rail = 0;
    int max_endpoints = 0;  // the largest this kind, radix and split can connect
    int max_servers = 0;
    int storage_ports = 0;  // storage node ports, after the servers' (PlaneDemand)
    int client_ports = 0;   // client host ports, after the storage nodes'

    // The leaf that endpoint `e` (server-major: server · per_server + rail) attaches to.
    int leaf_of(int server, int rail, int per_server) const;
    // The leaf that storage port `k` of this plane (node-major) attaches to.
    int storage_leaf_of(int k) const;
    // The leaf that client port `k` of this plane (client-major) attaches to.
    int client_leaf_of(int k) const;
};

// The largest size `kind` can connect with these switches, per plane, for servers with
// `per_server` NICs in the plane (endpoints may straddle leaves, except on rails).
struct Capacity {
    int endpoints = 0;
    int servers = 0;
};
Capacity capacity(scenario::TopologyKind kind, int radix, const LeafSplit& leaf, int per_server);

// Sizes one plane. `requested` is the scenario's topology. Throws ConfigError at
// `servers_key` when the demand does not fit, naming the largest buildable size.
FabricPlan plan_fabric(scenario::TopologyKind requested, int radix, scenario::Ratio ratio, PlaneDemand demand,
                       const std::string& servers_key = "cluster.servers");

std::string_view topology_name(scenario::TopologyKind kind);  // "leaf-spine", as in YAML

}  // namespace fabricsim::fabric
