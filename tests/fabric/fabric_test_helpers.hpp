// Servers and clusters built in C++ for the fabric tests, with the real boards' figures
// (the same values, with sources, as configs/servers/).
#pragma once

#include "fabric/topology.hpp"
#include "scenario/spec.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace fabricsim::test {

// HGX H100: 8 H100 SXM, 18 NVLink4 links per GPU at 25 GB/s to 4 NVSwitch chips split
// 5,4,4,5; PCIe Gen5 x16 through 4 PCIe switches; 8 ConnectX-7 at 400G (Gen5 x16).
scenario::ServerSpec hgx_h100();
// HGX A100: 12 NVLink3 links to 6 NVSwitch chips (2 each); PCIe Gen4; 8 x 200G HDR NICs.
scenario::ServerSpec hgx_a100();
// HGX B200: 18 NVLink5 links at 50 GB/s to 2 NVSwitch chips (9 each); 8 x 400G NICs.
scenario::ServerSpec hgx_b200();
// Two PCIe H100 joined by an NVLink bridge (12 NVLink4 links, no NVSwitch), 2 x 400G NICs.
scenario::ServerSpec h100_pcie_bridge();
// 8 L40S on 2 PCIe Gen4 switches with 2 x 200G NICs, no NVLink.
scenario::ServerSpec pcie_l40s();
// A plain host: no GPU, one 400G NIC.
scenario::ServerSpec host_1nic(Bandwidth rate = Bandwidth::Gbps(400));

// `servers` servers on a fabric of `radix`-port switches at `port_speed`.
scenario::ClusterSpec cluster(int servers, scenario::ServerSpec server, scenario::TopologyKind kind, int radix,
                              Bandwidth port_speed = Bandwidth::Gbps(400), scenario::Ratio ratio = {1, 1});

// Links between two nodes.
std::vector<fabric::LinkId> links_between(const fabric::Topology& t, fabric::NodeId a, fabric::NodeId b);
// Nodes of a kind (in id order), optionally only the compute fabric's switches.
std::vector<fabric::NodeId> nodes_of(const fabric::Topology& t, fabric::NodeKind kind);
// The leaf a NIC (or storage node port) is cabled to; invalid if none.
fabric::NodeId leaf_of(const fabric::Topology& t, fabric::NodeId endpoint);

// The one issue build_topology reports for `c` ("(no error)" when it builds).
std::string error_of(const scenario::ClusterSpec& c);

}  // namespace fabricsim::test
