// A NIC (cluster.server.nic, cluster.server.storage_nic, cluster.storage_fabric.storage_node_nic,
// cluster.storage.nic, cluster.clients.nic): the key table of NicSpec, presets already expanded.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/key_table.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

namespace fabricsim::scenario {

// Its path is "nic": the table is read at each of the paths above.
const Table<NicSpec>& nic_table();

// A PCIe generation (3, 4, 5 or 6) and link width (1 to 32 lanes), as a NIC and a server's
// PCIe tree give them.
Field<int> pcie_generation();
Field<int> pcie_lanes();

}  // namespace fabricsim::scenario
