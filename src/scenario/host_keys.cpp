// cluster.storage and cluster.clients: the hosts on the compute fabric beside the servers,
// storage nodes and the CPU-only clients of `- traffic: gpu_pool` entries
// (docs/models/traffic.md), one declaration per key, and the checks across the cluster.
#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/key_types.hpp"

namespace fabricsim::scenario {

namespace {

constexpr std::int64_t kMaxNodes = 1'000'000;

// The three keys of a group of hosts, each with `max_nics` NICs at most.
template <class S>
std::vector<Key<S>> host_keys(const char* nodes_doc, std::int64_t max_nics, const char* nics_doc, const char* nic_doc) {
    return {key("nodes", &S::nodes, integer(1, kMaxNodes), kAllModels, nodes_doc).required(),
            key("nics_per_node", &S::nics_per_node, integer(1, max_nics), kAllModels, nics_doc),
            section("nic", &S::nic, nic_table(), nic_doc)};
}

bool removed(const Node* node) { return node == nullptr || (node->is_scalar() && node->text == "none"); }

}  // namespace

const Table<StorageSpec>& storage_table() {
    static const Table<StorageSpec> t{
        "cluster.storage",
        host_keys<StorageSpec>("Storage nodes on the compute fabric.", 1'024,
                               "NICs of each node; NIC i on plane i mod `cluster.fabric.planes`, so a multiple of "
                               "the planes.",
                               "The nodes' NICs: a preset name (folder `nics/`) or a mapping; no slower than the "
                               "compute fabric's links.")};
    return t;
}

const Table<ClientsSpec>& clients_table() {
    static const Table<ClientsSpec> t{
        "cluster.clients",
        host_keys<ClientsSpec>("CPU-only client hosts on the compute fabric.", 64,
                               "NICs of each client: 1, or at least `cluster.fabric.planes` (NIC k on plane k mod "
                               "planes).",
                               "The clients' NICs: a preset name (folder `nics/`) or a mapping.")};
    return t;
}

StorageSpec validate_storage(const Node* node, const Node& cluster, const FabricSpec& fabric, const ServerRead& server,
                             Issues& issues) {
    StorageSpec out;
    const std::string path = "cluster.storage";
    if (removed(node)) return out;
    const SectionRead r = read_table(*node, path, storage_table(), out, issues);
    if (r.map == nullptr) return out;
    if (!removed(cluster.find("storage_fabric")))
        issues.add(node->location, path,
                   "cluster.storage and cluster.storage_fabric are both given; storage nodes go on the compute "
                   "fabric (cluster.storage) or on a storage fabric (cluster.storage_fabric.storage_nodes), not both");
    if (fabric.topology == TopologyKind::custom)
        issues.add(node->location, path,
                   "storage nodes on a custom compute fabric; expected none (cluster.fabric.links names server NICs "
                   "only): leave cluster.storage out or use leaf-spine or fat-tree");
    if (fabric.topology == TopologyKind::rail_optimized)
        issues.add(node->location, path,
                   "storage nodes cannot join a rail-optimized compute fabric (they have no rail); use leaf-spine "
                   "or fat-tree, or put them on cluster.storage_fabric");
    if (r.ok("nics_per_node") && out.nics_per_node % fabric.planes != 0) {
        const Node* per_node = r.given("nics_per_node");
        issues.add(per_node != nullptr ? per_node->location : node->location, key_path(path, "nics_per_node"),
                   "{} does not split evenly over the compute fabric's {} planes; every plane needs the "
                   "same number of NICs per storage node",
                   out.nics_per_node, fabric.planes);
    }
    const bool automatic = fabric.link_speed == Bandwidth::zero();
    if (r.ok("nic") && r.ok("nic.line_rate") && (!automatic || (server.usable && server.nic_rate_known))) {
        const Bandwidth speed = automatic ? server.spec.nic.line_rate : fabric.link_speed;
        if (speed > out.nic.line_rate)
            issues.add(node->location, key_path(path, "nic"),
                       "the compute fabric's links run at {}{}, above the line rate of cluster.storage.nic, {}", speed,
                       automatic ? " (the line rate of cluster.server.nic)" : "", out.nic.line_rate);
    }
    return out;
}

ClientsSpec validate_clients(const Node* node, Issues& issues) {
    ClientsSpec out;
    if (removed(node)) return out;
    read_table(*node, "cluster.clients", clients_table(), out, issues);
    return out;
}

}  // namespace fabricsim::scenario
