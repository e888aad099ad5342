// Located tree → ScenarioSpec, collecting every issue (validation goes on after a bad value
// so that one run reports them all). The tree has had its includes, variant overrides,
// --set overrides and presets applied; `variants` and `include` are gone from it.
//
// The schema lives in the key tables (key_table.hpp), one per section, each in its
// `*_keys.cpp` with the checks across its keys and its section's reader declared here; a
// section the models do not have yet is an unknown key.
#pragma once

#include "core/units.hpp"
#include "scenario/issues.hpp"
#include "scenario/key_table.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fabricsim::scenario {

ScenarioSpec validate_scenario(const Node& root, Issues& issues);

// The top level and `cluster` (scenario_keys.cpp): each key reads its section with that
// section's reader, in the table's order, since a section is checked against the ones before
// it (the workload against the cluster). TopLevelRead: whether the cluster was read without an
// issue (the workload's and the faults' ranks are then checked against it).
struct TopLevelRead {
    bool cluster_known = false;
};
const Table<ScenarioSpec, TopLevelRead>& scenario_table();
const Table<ClusterSpec>& cluster_table();

// cluster, every section read whether written or not, and whether its rank count can be
// trusted for checking the workload.
std::pair<ClusterSpec, bool> validate_cluster(const Node& node, Issues& issues);

// simulation (simulation_keys.cpp) and outputs (outputs_keys.cpp).
const Table<SimulationSpec>& simulation_table();
const Table<OutputsSpec>& outputs_table();

// cluster.server (server_keys.cpp): the GPUs, NVLink/NVSwitch, the PCIe tree, the NICs, the
// GPUDirect paths and the host. `node` may be null (the defaults). The
// flags say which values were read without an issue, so that checks across sections do not
// repeat an error as another.
const Table<ServerSpec>& server_table();
struct ServerRead {
    ServerSpec spec;
    bool usable = true;  // resolved and a mapping
    bool gpus_known = true;
    bool nics_known = true;
    bool storage_nics_known = true;
    bool nic_rate_known = true;
    bool storage_nic_rate_known = true;
};
ServerRead validate_server(const Node* node, Issues& issues);

// A NIC (nic_keys.cpp), read at each of the paths that hold one (its table's path is "nic"),
// presets already expanded; a PCIe generation (3, 4, 5 or 6) and link width (1 to 32 lanes), as
// a NIC and a server's PCIe tree give them.
const Table<NicSpec>& nic_table();
Field<int> pcie_generation();
Field<int> pcie_lanes();

// cluster.fabric, cluster.storage_fabric and a switch model (fabric_keys.cpp), checked
// against the server they connect. `cluster` is the cluster mapping: where an issue about a
// section that was not written goes. `servers`: cluster.servers when it was read without an
// issue (a custom topology's NIC names).
const Table<SwitchSpec>& switch_table();
const Table<FabricSpec>& fabric_table();
const Table<StorageFabricSpec>& storage_fabric_table();
FabricSpec validate_fabric(const Node* node, const Node& cluster, const ServerRead& server, std::optional<int> servers,
                           Issues& issues);
StorageFabricSpec validate_storage_fabric(const Node* node, const ServerRead& server, Issues& issues);
// The packet model runs every fabric with cluster.fabric's technology and MTU: a storage
// fabric that gives another one is an issue at that key (an accepted key no model reads would
// be ignored silently; a storage fabric has no routing key for that reason). `root`: the
// validated tree.
void check_storage_fabric_model(const ScenarioSpec& spec, const Node& root, Issues& issues);

// A switch as far as it was read without an issue, so that the checks across sections do not
// repeat an error as another.
struct SwitchRead {
    SwitchSpec spec;
    const Node* node = nullptr;
    bool usable = true;
    bool technology_known = true;
    bool port_speed_known = true;
};

// cluster.fabric.switches and cluster.fabric.links (validate_custom_fabric.cpp): reads the two
// keys of `map` (the fabric's mapping, or null) into spec.custom. With another topology they
// are an issue each; with topology: custom every link must name known ends, run no faster than
// either end's port, appear once, leave no switch with more links than its radix and no server
// NIC without a link. Whether the graph is connected is checked when it is built
// (fabric/custom_fabric.cpp, Boost.Graph). `servers`: cluster.servers when it was read.
void validate_custom_fabric(const Node* map, const std::string& path, FabricSpec& spec, const SwitchRead& base,
                            const ServerRead& server, std::optional<int> servers, Issues& issues);
const Table<CustomSwitchSpec>& custom_switch_table();
const Table<CustomLinkSpec>& custom_link_table();

// cluster.storage and cluster.clients (host_keys.cpp): `node` may be null (none) or `none` (a
// variant removes them). Storage nodes are checked against the compute fabric they join and
// against cluster.storage_fabric, which excludes them.
const Table<StorageSpec>& storage_table();
const Table<ClientsSpec>& clients_table();
StorageSpec validate_storage(const Node* node, const Node& cluster, const FabricSpec& fabric, const ServerRead& server,
                             Issues& issues);
ClientsSpec validate_clients(const Node* node, Issues& issues);

// cluster.roce (roce_keys.cpp), read whatever the fabric's technology. `node` may be null (all
// defaults). `link_speed`: the compute fabric's link speed when known (for `auto` ECN
// thresholds), nullopt otherwise.
const Table<RoceSpec>& roce_table();
RoceSpec validate_roce(const Node* node, std::optional<Bandwidth> link_speed, Issues& issues);

// cluster.infiniband (infiniband_keys.cpp), read whatever the fabric's technology. Lanes: what
// the keys learn from virtual_lanes, read first: the data VLs a VL may name. `node` may be null
// (all defaults). `mtu`: the compute fabric's MTU (payload bytes).
struct Lanes {
    int count = 2;
    bool known = true;
};
const Table<InfinibandSpec, Lanes>& infiniband_table();
InfinibandSpec validate_infiniband(const Node* node, Bytes mtu, Issues& issues);

// cluster.iwarp (iwarp_keys.cpp): `node` may be null; `cluster`: the mapping cluster (for the
// keys the fabric replaces). Changes `spec` when spec.fabric.iwarp.
const Table<IwarpSpec>& iwarp_table();
void validate_iwarp(const Node* node, const Node& cluster, std::optional<Bandwidth> link_speed, ClusterSpec& spec,
                    Issues& issues);

// `cluster`: the validated cluster, or null when it had issues (then rank ids are not checked).
std::vector<WorkloadEntry> validate_workload(const Node& node, const ClusterSpec* cluster, Issues& issues);

// faults (faults_keys.cpp): every key a fault entry may have, with the kinds that take it at
// the head of its doc; each kind takes the ones it lists. `cluster` as for the workload; every
// kind but a straggler needs the packet model.
const Table<FaultSpec>& faults_table();
std::vector<FaultSpec> validate_faults(const Node& node, const ClusterSpec* cluster, bool packet_model, Issues& issues);
// The faults: section as the user writes it.
Value describe_faults(const std::vector<FaultSpec>& faults);

// validate_limits.cpp: checks across keys that keep a run inside the engine's arithmetic
// (input_limits.hpp): each value is within its own limit when it is read; here, the largest
// message of each workload entry at the slowest rate it may cross must take at most kMaxTime.
//
// A RoCE fabric with PFC on: one port's PFC headroom and reserved space, for each lossless
// priority, must fit the switch buffer (the whole switch is checked when the packet model
// builds it). `root` is the validated tree, for the keys' locations.
void check_pfc_buffers(const ScenarioSpec& spec, const Node& root, Issues& issues);

// Adds one issue per workload entry whose largest message would take longer than kMaxTime.
void check_message_times(const ScenarioSpec& spec, Issues& issues);

// Adds one issue per training entry whose iterations' compute alone, on one GPU, would take
// longer than kMaxTime.
void check_training_times(const ScenarioSpec& spec, Issues& issues);

}  // namespace fabricsim::scenario
