// The figures a person planning a cluster asks of a topology (`fabricsim topo`, README.md's "Using it"):
// counts, links per type, cables and transceivers (the bill of materials), bisection
// bandwidth, oversubscription per tier, diameter and worst-case zero-load NIC-to-NIC latency.
//
//   bisection   max flow (Boost.Graph push-relabel) from the compute NICs of the first half of
//               the servers to those of the second half, over the compute fabric's links at
//               their line rate per direction. By max-flow/min-cut this is the smallest cut
//               between the halves; for the Clos fabrics built here (every leaf reaches every
//               spine, every pod every core group, all links of a tier equal) the servers'
//               index halves are a worst balanced cut, so it is the bisection bandwidth
//               (docs/models/topology.md). One direction, bits/s.
//   diameter    links on the longest shortest path between two NICs of one plane
//               (NIC-leaf-NIC = 2, leaf-spine = 4, 3-tier = 6).
//   latency     the largest, over NIC pairs, of the smallest sum of cable propagation and
//               switch port-to-port latencies on a path (zero load, no serialisation).
//
// Writers: console text, JSON (the README.md's "Using it" keys), GraphViz dot.
#pragma once

#include "fabric/topology.hpp"
#include "scenario/spec.hpp"

#include <map>
#include <string>
#include <vector>

namespace fabricsim::fabric {

struct SwitchCounts {
    int leaf = 0, spine = 0, core = 0;
    int total() const { return leaf + spine + core; }
};

struct CableCounts {
    int copper = 0, optical = 0;
    int transceivers = 0;                // one per end of an optical cable
    std::map<std::string, int> by_tier;  // "nic-leaf", "leaf-spine", "spine-core"
    int total() const { return copper + optical; }
};

// Downlink : uplink bandwidth of the busiest switch of a tier (leaves; spines of a fat tree).
struct TierOversubscription {
    std::string tier;    // "leaf", "spine"
    double ratio = 0.0;  // down / up
};

struct TopologySummary {
    std::string topology;            // as built: "single-switch", "leaf-spine", ...
    std::string requested_topology;  // as asked
    std::string technology;          // "roce", "infiniband"
    int planes = 1;
    int servers = 0, ranks = 0;
    int gpus = 0, nics = 0, storage_nics = 0, storage_nodes = 0;
    int clients = 0, client_nics = 0;  // client hosts on the compute fabric and their fabric links
    int nvswitches = 0, pcie_switches = 0;
    SwitchCounts switches;  // compute fabric, all planes
    SwitchCounts storage_switches;
    std::map<std::string, int> links;                // by LinkType name
    std::map<std::string, int> link_classes;         // by link class name
    CableCounts cables;                              // compute and storage fabrics
    Bandwidth link_speed;                            // compute fabric switch-switch rate
    int radix = 0;                                   // switch ports at link_speed
    int leaf_down = 0, leaf_up = 0, leaf_spare = 0;  // design split of a leaf
    int spare_ports = 0;                             // unused compute-fabric switch ports, all switches
    int max_servers = 0;                             // the largest cluster these switches and kind can build
    std::vector<TierOversubscription> oversubscription;
    Bandwidth bisection;  // compute fabric, one direction
    int diameter_hops = 0;
    Time max_nic_to_nic_latency;
    Bandwidth nvlink_per_gpu;  // NVLink line rate per direction of one GPU
};

// `cluster` must be the spec `topology` was built from.
TopologySummary summarize(const Topology& topology, const scenario::ClusterSpec& cluster);

// Max flow in one direction between two sets of nodes over links of `types` (Boost.Graph).
Bandwidth max_flow(const Topology& topology, const std::vector<NodeId>& from, const std::vector<NodeId>& to,
                   const std::vector<LinkType>& types);

// GraphViz: servers collapsed to one vertex each unless `expand_servers`; parallel links
// drawn once with their count.
std::string to_dot(const Topology& topology, bool expand_servers = false);

}  // namespace fabricsim::fabric
