// A NIC (cluster.server.nic, cluster.server.storage_nic, cluster.storage_fabric.storage_node_nic,
// cluster.storage.nic, cluster.clients.nic): the key table of NicSpec, presets already expanded.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/key_table.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <optional>
#include <string>

namespace fabricsim::scenario {

// Its path is "nic": the table is read at each of the paths above.
const Table<NicSpec>& nic_table();

// `preset` first when there is one (read back, the preset loads and every key given here
// overrides it with the same value); `description` is not stored.
Value describe_nic(const NicSpec& nic);

// A PCIe generation (3, 4, 5 or 6) and link width (1 to 32 lanes), as a NIC and a server's
// PCIe switches give them.
std::optional<int> read_pcie_generation(const Node& node, const std::string& path, Issues& issues);
std::optional<int> read_pcie_lanes(const Node& node, const std::string& path, Issues& issues);

}  // namespace fabricsim::scenario
