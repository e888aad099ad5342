// The compute fabric (every plane, with the storage nodes and client hosts it carries) and the
// storage fabric: switches from the plans of fabric_plan.hpp, NIC-leaf and switch-switch
// cables. See topology_builder.hpp.
#include "fabric/link_classes.hpp"
#include "fabric/topology_builder.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace fabricsim::fabric {

namespace {

using scenario::TopologyKind;

[[noreturn]] void bad(std::string key_path, std::string message) {
    throw_config_error(std::move(key_path), std::move(message));
}

Link cable(const LinkClass& c, scenario::Technology technology, Length length, std::uint8_t tier) {
    Link l;
    l.type = c.type;
    l.link_class = c.name;
    l.bandwidth = c.bandwidth;
    l.efficiency = c.efficiency;
    l.length = length;
    l.propagation = propagation_delay(length);
    l.medium = cable_medium(technology, c.bandwidth, length);
    l.tier = tier;
    return l;
}

// One fabric (a plane of the compute fabric, or the storage fabric) being built.
struct FabricBuild {
    const FabricPlan& plan;
    const scenario::FabricSpec& spec;
    LinkClass uplink;    // switch-switch links
    std::string prefix;  // "", "pl1.", "st."
    std::uint32_t plane = 0;
    std::uint32_t planes = 1;  // rail of leaf l: plane + (l / leaves_per_rail) · planes
    bool storage = false;
    std::vector<NodeId> leaves, spines, cores;
};

NodeId add_switch(Topology& t, const FabricBuild& f, NodeKind kind, std::string name, int index, int pod = 0,
                  std::uint32_t rail = 0) {
    Node n;
    n.kind = kind;
    n.name = f.prefix + std::move(name);
    n.local_index = static_cast<std::uint32_t>(index);
    n.plane = f.plane;
    n.forwarding_latency = f.spec.switch_spec.latency;
    n.buffer = f.spec.switch_spec.buffer;
    n.radix = static_cast<std::uint32_t>(f.spec.switch_spec.radix);
    n.storage_fabric = f.storage;
    n.pod = static_cast<std::uint32_t>(pod);
    n.rail = rail;
    return t.add_node(std::move(n));
}

void add_leaves(Topology& t, FabricBuild& f) {
    for (int l = 0; l < f.plan.leaves; ++l) {
        const int pod = f.plan.kind == TopologyKind::fat_tree ? l / f.plan.leaves_per_pod : 0;
        const std::uint32_t rail = f.plan.kind == TopologyKind::rail_optimized
                                       ? f.plane + static_cast<std::uint32_t>(l / f.plan.leaves_per_rail) * f.planes
                                       : 0;
        f.leaves.push_back(add_switch(t, f, NodeKind::leaf, fmt::format("leaf{}", l), l, pod, rail));
    }
}

// Spines (aggregation switches in a fat tree) and cores, and the links between the tiers.
void add_upper_tiers(Topology& t, FabricBuild& f) {
    const FabricPlan& p = f.plan;
    const scenario::Technology tech = f.spec.technology;
    const Link up2 = cable(f.uplink, tech, f.spec.uplink_cable_length, 2);
    const Link up3 = cable(f.uplink, tech, f.spec.uplink_cable_length, 3);
    if (p.kind == TopologyKind::leaf_spine || p.kind == TopologyKind::rail_optimized) {
        for (int s = 0; s < p.spines; ++s)
            f.spines.push_back(add_switch(t, f, NodeKind::spine, fmt::format("spine{}", s), s));
        for (NodeId leaf : f.leaves)
            for (NodeId spine : f.spines)
                for (int k = 0; k < p.leaf_spine_parallel; ++k) t.add_link(leaf, spine, up2);
        return;
    }
    if (p.kind != TopologyKind::fat_tree) return;
    for (int pod = 0; pod < p.pods; ++pod) {
        for (int j = 0; j < p.spines_per_pod; ++j) {
            f.spines.push_back(
                add_switch(t, f, NodeKind::spine, fmt::format("p{}.spine{}", pod, j), pod * p.spines_per_pod + j, pod));
        }
    }
    for (int c = 0; c < p.cores; ++c) f.cores.push_back(add_switch(t, f, NodeKind::core, fmt::format("core{}", c), c));
    for (int l = 0; l < p.leaves; ++l) {
        const int pod = l / p.leaves_per_pod;
        for (int j = 0; j < p.spines_per_pod; ++j)
            t.add_link(f.leaves[static_cast<std::size_t>(l)],
                       f.spines[static_cast<std::size_t>(pod * p.spines_per_pod + j)], up2);
    }
    // Aggregation switch j of every pod joins core group j.
    for (int pod = 0; pod < p.pods; ++pod)
        for (int j = 0; j < p.spines_per_pod; ++j)
            for (int c = 0; c < p.cores_per_group; ++c)
                for (int k = 0; k < p.spine_core_parallel; ++k)
                    t.add_link(f.spines[static_cast<std::size_t>(pod * p.spines_per_pod + j)],
                               f.cores[static_cast<std::size_t>(j * p.cores_per_group + c)], up3);
}

}  // namespace

int client_nics_on_plane(const scenario::ClientsSpec& clients, int plane, int planes) {
    if (clients.nodes <= 0 || planes <= 0) return 0;
    return (clients.nics_per_node - plane + planes - 1) / planes;  // NICs i with i mod planes == plane
}

Bandwidth fabric_link_rate(const scenario::ClusterSpec& cluster) {
    return cluster.fabric.link_speed != Bandwidth::zero() ? cluster.fabric.link_speed : cluster.server.nic.line_rate;
}

Bandwidth storage_link_rate(const scenario::ClusterSpec& cluster) {
    const scenario::StorageFabricSpec& st = cluster.storage_fabric;
    if (st.fabric.link_speed != Bandwidth::zero()) return st.fabric.link_speed;
    return cluster.server.storage_nics > 0 ? cluster.server.storage_nic.line_rate : st.storage_node_nic.line_rate;
}

std::vector<FabricPlan> plan_compute_fabric(const scenario::ClusterSpec& cluster) {
    std::vector<FabricPlan> plans;
    const int nics = cluster.server.nics;
    if (nics <= 0 && cluster.storage.nodes > 0)
        bad("cluster.storage", "storage nodes on the compute fabric need servers with NICs (cluster.server.nics is 0)");
    if (nics <= 0 && cluster.clients.nodes > 0)
        bad("cluster.clients", "client hosts on the compute fabric need servers with NICs (cluster.server.nics is 0)");
    if (nics <= 0 || cluster.fabric.topology == TopologyKind::custom) return plans;  // custom: no plan
    const int planes = cluster.fabric.planes;
    if (planes < 1 || planes > nics)
        bad("cluster.fabric.planes",
            fmt::format("{} planes for servers with {} NICs; every plane needs at least one NIC of every server",
                        planes, nics));
    const scenario::StorageSpec& st = cluster.storage;
    if (st.nodes > 0 && cluster.storage_fabric.enabled)
        bad("cluster.storage", "cluster.storage and cluster.storage_fabric are both given; storage nodes go on the "
                               "compute fabric (cluster.storage) or on a storage fabric "
                               "(cluster.storage_fabric.storage_nodes), not both");
    if (st.nodes > 0 && st.nics_per_node % planes != 0)
        bad("cluster.storage.nics_per_node",
            fmt::format("{} does not split evenly over the compute fabric's {} planes; every plane needs the same "
                        "number of NICs per storage node",
                        st.nics_per_node, planes));
    // Routing takes an endpoint on several planes to be on all of them (routing_fabric_tables.cpp).
    const scenario::ClientsSpec& cl = cluster.clients;
    if (cl.nodes > 0 && cl.nics_per_node > 1 && cl.nics_per_node < planes)
        bad("cluster.clients.nics_per_node",
            fmt::format("{} NICs per client on the compute fabric's {} planes would put a client on some planes but "
                        "not all; give each client 1 NIC or at least {} (NIC k on plane k mod {})",
                        cl.nics_per_node, planes, planes, planes));
    const int radix = ports_at_link_rate(cluster.fabric.switch_spec, fabric_link_rate(cluster), "cluster.fabric");
    for (int p = 0; p < planes; ++p) {
        const int per_server = (nics - p + planes - 1) / planes;  // NICs i < nics with i mod planes == p
        const int storage_ports = st.nodes * (st.nics_per_node / planes);
        const int client_ports = cl.nodes * client_nics_on_plane(cl, p, planes);
        plans.push_back(plan_fabric(cluster.fabric.topology, radix, cluster.fabric.oversubscription,
                                    PlaneDemand{cluster.servers, per_server, planes, storage_ports, client_ports}));
    }
    return plans;
}

std::optional<FabricPlan> plan_storage_fabric(const scenario::ClusterSpec& cluster) {
    const scenario::StorageFabricSpec& st = cluster.storage_fabric;
    if (!st.enabled) return std::nullopt;
    if (st.fabric.planes != 1)
        bad("cluster.storage_fabric.planes", fmt::format("a storage fabric has one plane, found {}", st.fabric.planes));
    const int server_ports = cluster.servers * cluster.server.storage_nics;
    const int node_ports = st.storage_nodes * st.nics_per_storage_node;
    const int endpoints = server_ports + node_ports;
    const TopologyKind kind =
        st.fabric.topology == TopologyKind::rail_optimized ? TopologyKind::leaf_spine : st.fabric.topology;
    const int radix = ports_at_link_rate(st.fabric.switch_spec, storage_link_rate(cluster), "cluster.storage_fabric");
    const LeafSplit split =
        kind == TopologyKind::single_switch ? LeafSplit{radix, 0, 0} : leaf_split(radix, st.fabric.oversubscription);
    const Capacity cap = capacity(kind, radix, split, 1);
    if (endpoints > cap.endpoints)
        bad("cluster.storage_fabric",
            fmt::format("{} servers with {} storage NIC{} each and {} storage node{} with {} NIC{} each need {} "
                        "endpoints; {} holds at most {} endpoints",
                        cluster.servers, cluster.server.storage_nics, cluster.server.storage_nics == 1 ? "" : "s",
                        st.storage_nodes, st.storage_nodes == 1 ? "" : "s", st.nics_per_storage_node,
                        st.nics_per_storage_node == 1 ? "" : "s", endpoints,
                        kind == TopologyKind::single_switch
                            ? fmt::format("a single switch of {} ports", radix)
                            : fmt::format("a {} fabric of {}-port switches at {}:{}", topology_name(kind), radix,
                                          st.fabric.oversubscription.down, st.fabric.oversubscription.up),
                        cap.endpoints));
    return plan_fabric(kind, radix, st.fabric.oversubscription, PlaneDemand{endpoints, 1, 1}, "cluster.storage_fabric");
}

namespace detail {

void build_compute_fabric(Topology& t, const scenario::ClusterSpec& cluster) {
    if (cluster.fabric.topology == TopologyKind::custom) {
        build_custom_fabric(t, cluster);
        return;
    }
    const std::vector<FabricPlan> plans = plan_compute_fabric(cluster);
    const int planes = static_cast<int>(plans.size());
    const scenario::FabricSpec& spec = cluster.fabric;
    const Bandwidth rate = fabric_link_rate(cluster);
    const std::int64_t headers = header_bytes(cluster, spec.technology);
    const LinkClass uplink = fabric_class(spec.technology, rate, spec.mtu, LinkType::fabric, headers);
    const LinkClass nic_link = fabric_class(spec.technology, std::min(rate, cluster.server.nic.line_rate), spec.mtu,
                                            LinkType::fabric, headers);
    const Link down = cable(nic_link, spec.technology, spec.cable_length, 1);
    // Endpoint hosts on the compute fabric, NIC k of each on plane k mod planes: storage nodes
    // (cluster.storage), then client hosts (cluster.clients); their cables run at the slower of
    // their NIC and the fabric.
    const auto down_cable = [&](Bandwidth nic_rate) {
        return cable(fabric_class(spec.technology, std::min(rate, nic_rate), spec.mtu, LinkType::fabric, headers),
                     spec.technology, spec.cable_length, 1);
    };
    const auto add_hosts = [&](NodeKind kind, std::string_view prefix, int count, std::vector<NodeId>& registry) {
        std::vector<NodeId> nodes;
        for (int i = 0; planes > 0 && i < count; ++i) {
            Node n;
            n.kind = kind;
            n.name = fmt::format("{}{}", prefix, i);
            n.local_index = static_cast<std::uint32_t>(i);
            nodes.push_back(t.add_node(std::move(n)));
            registry.push_back(nodes.back());
        }
        return nodes;
    };
    const scenario::StorageSpec& st = cluster.storage;
    const Link storage_down = down_cable(st.nic.line_rate);
    const std::vector<NodeId> storage_nodes = add_hosts(NodeKind::storage_node, "stor", st.nodes, t.storage_nodes());
    const scenario::ClientsSpec& cl = cluster.clients;
    const Link client_down = down_cable(cl.nic.line_rate);
    const std::vector<NodeId> clients = add_hosts(NodeKind::client, "client", cl.nodes, t.clients());
    for (int p = 0; p < planes; ++p) {
        const FabricPlan& plan = plans[static_cast<std::size_t>(p)];
        FabricBuild f{plan,
                      spec,
                      uplink,
                      planes > 1 ? fmt::format("pl{}.", p) : std::string(),
                      static_cast<std::uint32_t>(p),
                      static_cast<std::uint32_t>(planes),
                      false,
                      {},
                      {},
                      {}};
        add_leaves(t, f);
        const int per_server = (cluster.server.nics - p + planes - 1) / planes;
        for (int s = 0; s < cluster.servers; ++s) {
            const ServerInfo& server = t.servers()[static_cast<std::size_t>(s)];
            for (int j = 0; j < per_server; ++j) {
                const NodeId nic = server.nics[static_cast<std::size_t>(p + j * planes)];
                t.add_link(nic, f.leaves[static_cast<std::size_t>(plan.leaf_of(s, j, per_server))], down);
            }
        }
        const int storage_per_node = st.nics_per_node / planes;
        for (int i = 0; i < st.nodes; ++i)
            for (int j = 0; j < storage_per_node; ++j)
                t.add_link(storage_nodes[static_cast<std::size_t>(i)],
                           f.leaves[static_cast<std::size_t>(plan.storage_leaf_of(i * storage_per_node + j))],
                           storage_down);
        const int client_per_node = client_nics_on_plane(cl, p, planes);
        for (int i = 0; i < cl.nodes; ++i)
            for (int j = 0; j < client_per_node; ++j)
                t.add_link(clients[static_cast<std::size_t>(i)],
                           f.leaves[static_cast<std::size_t>(plan.client_leaf_of(i * client_per_node + j))],
                           client_down);
        add_upper_tiers(t, f);
    }
}

void build_storage_fabric(Topology& t, const scenario::ClusterSpec& cluster) {
    const std::optional<FabricPlan> plan = plan_storage_fabric(cluster);
    if (!plan) return;
    const scenario::StorageFabricSpec& st = cluster.storage_fabric;
    const scenario::FabricSpec& spec = st.fabric;
    const Bandwidth rate = storage_link_rate(cluster);
    // An iWARP storage fabric beside another compute fabric takes iWARP's headers (cluster.roce's
    // are the compute fabric's; on an iWARP cluster they are iWARP's already).
    const std::int64_t headers =
        spec.iwarp && !cluster.fabric.iwarp ? scenario::kIwarpHeaderBytes : header_bytes(cluster, spec.technology);
    const LinkClass uplink = fabric_class(spec.technology, rate, spec.mtu, LinkType::storage_fabric, headers);
    const Link server_down = cable(fabric_class(spec.technology, std::min(rate, cluster.server.storage_nic.line_rate),
                                                spec.mtu, LinkType::storage_fabric, headers),
                                   spec.technology, spec.cable_length, 1);
    const Link node_down = cable(fabric_class(spec.technology, std::min(rate, st.storage_node_nic.line_rate), spec.mtu,
                                              LinkType::storage_fabric, headers),
                                 spec.technology, spec.cable_length, 1);

    FabricBuild f{*plan, spec, uplink, "st.", 0, 1, true, {}, {}, {}};
    add_leaves(t, f);
    int e = 0;
    for (const ServerInfo& server : t.servers())
        for (NodeId nic : server.storage_nics)
            t.add_link(nic, f.leaves[static_cast<std::size_t>(plan->leaf_of(e++, 0, 1))], server_down);
    for (int i = 0; i < st.storage_nodes; ++i) {
        Node n;
        n.kind = NodeKind::storage_node;
        n.name = fmt::format("stor{}", i);
        n.local_index = static_cast<std::uint32_t>(i);
        const NodeId id = t.add_node(std::move(n));
        t.storage_nodes().push_back(id);
        for (int k = 0; k < st.nics_per_storage_node; ++k)
            t.add_link(id, f.leaves[static_cast<std::size_t>(plan->leaf_of(e++, 0, 1))], node_down);
    }
    add_upper_tiers(t, f);
}

}  // namespace detail

}  // namespace fabricsim::fabric
