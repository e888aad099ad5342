// Hand-built topologies for the routing tests: k-ary fat trees and leaf-spine fabrics with
// plain NICs as hosts, and HGX-like servers (GPUs, NVSwitches, PCIe switches, NICs) on a
// leaf-spine, optionally split over planes or with a storage fabric.
#pragma once

#include "fabric/topology.hpp"

#include <vector>

namespace routing_test {

using fabricsim::fabric::NodeId;
using fabricsim::fabric::Topology;

struct Fabric {
    Topology topology;
    std::vector<NodeId> hosts;  // the endpoints, in leaf order
    std::vector<NodeId> leaves, spines, cores;
};

// `leaves` leaves with `hosts_per_leaf` NICs each, every leaf joined to every one of `spines`
// spines by `parallel` links.
Fabric leaf_spine(int leaves, int hosts_per_leaf, int spines, int parallel = 1);

// Full-bisection k-ary fat trees: 2 tiers (k leaves of k/2 hosts, k/2 spines) or 3 tiers
// (k pods of k/2 leaves and k/2 aggregation switches, (k/2)^2 cores, k^3/4 hosts).
Fabric fat_tree(int k, int tiers);

struct ServerShape {
    int gpus = 8;
    std::vector<int> nvlink_split{5, 4, 4, 5};  // NVLink links from each GPU to each NVSwitch
    int pcie_switches = 4;
    int nics = 8;
    int storage_nics = 0;
};

struct Cluster {
    Topology topology;
    std::vector<NodeId> leaves, spines, storage_nodes;
};

// `servers` servers of `shape`, NICs under leaves of `nics_per_leaf` (server-major order), a
// spine per leaf port; NIC n joins plane n mod `planes`. With `storage_nodes` > 0 the storage
// NICs and the storage nodes share a separate one-leaf storage fabric.
Cluster hgx_cluster(int servers, const ServerShape& shape, int nics_per_leaf, int planes = 1, int storage_nodes = 0);

}  // namespace routing_test
