// cluster.storage and cluster.clients: the hosts on the compute fabric beside the servers,
// storage nodes and the CPU-only clients of `- traffic: gpu_pool` entries
// (docs/models/traffic.md), one declaration per key, and the checks across the cluster.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/key_table.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"
#include "scenario/validate.hpp"

namespace fabricsim::scenario {

const Table<StorageSpec>& storage_table();
const Table<ClientsSpec>& clients_table();

// `node` may be null (none) or `none` (a variant removes them). Storage nodes are checked
// against the compute fabric they join and against cluster.storage_fabric, which excludes them.
StorageSpec validate_storage(const Node* node, const Node& cluster, const FabricSpec& fabric, const ServerRead& server,
                             Issues& issues);
ClientsSpec validate_clients(const Node* node, Issues& issues);

}  // namespace fabricsim::scenario
