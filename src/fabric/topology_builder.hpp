// build_topology: a ClusterSpec becomes the Topology graph (docs/ARCHITECTURE.md, docs/models/topology.md).
//
// Inside every server (server_builder.cpp):
//   host CPU ── PCIe ── PCIe switch i ── PCIe ── GPUs and compute NICs (spread evenly: GPU g on
//   switch g·P/G, NIC n on switch n·P/N; no switches: all on the CPU's root ports)
//   GPU g ══ split[i] NVLink links ══ NVSwitch i   (one Link per NVLink link, so traffic can
//   stripe over them; switches = 0: GPUs 2k and 2k+1 bridged directly)
//   storage NICs on the CPU's root ports (only when cluster.storage_fabric is enabled)
// Ranks: rank r is GPU r mod G of server r div G, served by NIC (r mod G)·N/G, the NIC on its
// PCIe switch when GPUs and NICs pair up; a GPU-less server is one rank on its host CPU.
//
// The fabrics (fabric_builder.cpp): each plane sized by plan_fabric (fabric_plan.hpp), leaf,
// spine and core switches with SwitchSpec's latency and buffer, NIC-leaf cables of
// cable_length and switch-switch cables of uplink_cable_length (5 ns/m), copper up to the
// passive-copper reach of the rate, optical beyond (link_classes.hpp). Storage nodes
// (cluster.storage, `stor<i>`) and client hosts (cluster.clients, `client<i>`) on the compute
// fabric: one node each, cabled straight to the leaves after the servers' NICs (NIC k on plane
// k mod planes; clients may leave a plane without NICs when they have fewer NICs than planes).
// topology: custom takes its switches and cables from cluster.fabric.switches and links
// instead of a plan (custom_fabric.cpp). The storage fabric likewise, with the servers' storage NICs and the storage
// nodes as its endpoints.
#pragma once

#include "fabric/fabric_plan.hpp"
#include "fabric/topology.hpp"
#include "scenario/spec.hpp"

#include <optional>
#include <vector>

namespace fabricsim::fabric {

// Throws ConfigError for a cluster that cannot be built (key paths under `cluster.`).
Topology build_topology(const scenario::ClusterSpec& cluster);

// How many NICs of each client host sit on plane `plane` of `planes`: NICs k with
// k mod planes == plane (0 without clients).
int client_nics_on_plane(const scenario::ClientsSpec& clients, int plane, int planes);

// The fabric link rate: fabric.link_speed, or the NIC line rate when it is zero.
Bandwidth fabric_link_rate(const scenario::ClusterSpec& cluster);
Bandwidth storage_link_rate(const scenario::ClusterSpec& cluster);

// How each plane of the compute fabric is sized (one entry per plane), and the storage
// fabric's (empty when disabled). Same plans build_topology builds.
std::vector<FabricPlan> plan_compute_fabric(const scenario::ClusterSpec& cluster);
std::optional<FabricPlan> plan_storage_fabric(const scenario::ClusterSpec& cluster);

// Board traces inside a server: 200 mm (estimate), 1 ns at 5 ns/m.
inline constexpr Length kBoardTrace = Length::mm(200);

namespace detail {
void build_servers(Topology& topology, const scenario::ClusterSpec& cluster);
void build_compute_fabric(Topology& topology, const scenario::ClusterSpec& cluster);
void build_storage_fabric(Topology& topology, const scenario::ClusterSpec& cluster);
// topology: custom (custom_fabric.cpp); build_compute_fabric calls it.
void build_custom_fabric(Topology& topology, const scenario::ClusterSpec& cluster);
}  // namespace detail

}  // namespace fabricsim::fabric
