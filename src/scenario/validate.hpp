// Located tree → ScenarioSpec, collecting every issue (validation goes on after a bad value
// so that one run reports them all). The tree has had its includes, variant overrides,
// --set overrides and presets applied; `variants` and `include` are gone from it.
//
// The schema lives in the key tables (`*_keys.cpp`: scenario_keys.cpp has the top level and
// the cluster's sections, server_keys.cpp has cluster.server, fabric_keys.cpp has cluster.fabric,
// cluster.storage_fabric and the checks across the cluster), one function per section; a
// section the models do not have yet is an unknown key.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fabricsim::scenario {

ScenarioSpec validate_scenario(const Node& root, Issues& issues);

// cluster (scenario_keys.hpp), every section read whether written or not, and whether its rank
// count can be trusted for checking the workload.
std::pair<ClusterSpec, bool> validate_cluster(const Node& node, Issues& issues);

// cluster.server (server_keys.cpp); `node` may be null (the defaults). The flags say which values were read
// without an issue, so that checks across sections do not repeat an error as another.
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

// cluster.fabric and cluster.storage_fabric, checked against the server they connect.
// `cluster` is the cluster mapping: where an issue about a section that was not written goes.
// `servers`: cluster.servers when it was read without an issue (a custom topology's NIC names).
FabricSpec validate_fabric(const Node* node, const Node& cluster, const ServerRead& server, std::optional<int> servers,
                           Issues& issues);
StorageFabricSpec validate_storage_fabric(const Node* node, const ServerRead& server, Issues& issues);
// The packet model runs every fabric with cluster.fabric's technology and MTU: a storage
// fabric that gives another one is an issue at that key (an accepted key no model reads would
// be ignored silently; a storage fabric has no routing key for that reason). `root`: the
// validated tree.
void check_storage_fabric_model(const ScenarioSpec& spec, const Node& root, Issues& issues);

// `cluster`: the validated cluster, or null when it had issues (then rank ids are not checked).
std::vector<WorkloadEntry> validate_workload(const Node& node, const ClusterSpec* cluster, Issues& issues);

// faults (faults_keys.cpp): `cluster` as for the workload; every kind but a straggler
// needs the packet model.
std::vector<FaultSpec> validate_faults(const Node& node, const ClusterSpec* cluster, bool packet_model, Issues& issues);

}  // namespace fabricsim::scenario
