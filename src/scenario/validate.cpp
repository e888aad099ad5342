#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/field_readers.hpp"
#include "scenario/infiniband_keys.hpp"
#include "scenario/roce_keys.hpp"
#include "scenario/simulation_keys.hpp"
#include "scenario/validate_clients.hpp"
#include "scenario/validate_iwarp.hpp"
#include "scenario/validate_limits.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fabricsim::scenario {

namespace {

// With at most 1024 GPUs per server (validate_server.cpp), rank arithmetic stays far inside
// int (servers x gpus <= 2^30).
constexpr std::int64_t kMaxServers = 1'000'000;

void missing(const Node& mapping, std::string_view path, std::string_view what, Issues& issues) {
    issues.add(mapping.location, std::string(path), fmt::format("missing required {}", what));
}

constexpr std::int64_t kMaxStorageNodes = 1'000'000;
constexpr std::int64_t kMaxNicsPerStorageNode = 1'024;

// cluster.storage: storage nodes on the compute fabric. Checked against the fabric they join
// (a rail-optimized fabric has no place for them; links no faster than their NICs; their NICs
// split evenly over the planes) and against cluster.storage_fabric, which excludes it.
StorageSpec validate_storage(const Node* node, const Node& cluster, const FabricSpec& fabric, const ServerRead& server,
                             Issues& issues) {
    StorageSpec out;
    const std::string path = "cluster.storage";
    if (node == nullptr || (node->is_scalar() && node->text == "none")) return out;  // none: a variant removes it
    const Node* map = read_section(*node, path, issues);
    if (map == nullptr) return out;
    check_keys(*map, path, {"nodes", "nics_per_node", "nic"}, issues);
    if (const Node* n = map->find("nodes")) {
        if (auto v = read_int(*n, key_path(path, "nodes"), 1, kMaxStorageNodes, issues))
            out.nodes = static_cast<int>(*v);
    } else {
        missing(*map, key_path(path, "nodes"), "key", issues);
    }
    bool per_node_known = true;
    const Node* per_node = map->find("nics_per_node");
    if (per_node != nullptr) {
        auto v = read_int(*per_node, key_path(path, "nics_per_node"), 1, kMaxNicsPerStorageNode, issues);
        per_node_known = v.has_value();
        if (v) out.nics_per_node = static_cast<int>(*v);
    }
    const NicRead nic = validate_nic(map->find("nic"), key_path(path, "nic"), issues);
    out.nic = nic.spec;

    const Node* storage_fabric = cluster.find("storage_fabric");
    if (storage_fabric != nullptr && !(storage_fabric->is_scalar() && storage_fabric->text == "none")) {
        issues.add(node->location, path,
                   "cluster.storage and cluster.storage_fabric are both given; storage nodes go on the compute "
                   "fabric (cluster.storage) or on a storage fabric (cluster.storage_fabric.storage_nodes), not both");
    }
    if (fabric.topology == TopologyKind::custom) {
        issues.add(node->location, path,
                   "storage nodes on a custom compute fabric; expected none (cluster.fabric.links names server NICs "
                   "only): leave cluster.storage out or use leaf-spine or fat-tree");
    }
    if (fabric.topology == TopologyKind::rail_optimized) {
        issues.add(node->location, path,
                   "storage nodes cannot join a rail-optimized compute fabric (they have no rail); use leaf-spine "
                   "or fat-tree, or put them on cluster.storage_fabric");
    }
    if (per_node_known && out.nics_per_node % fabric.planes != 0) {
        issues.add(per_node != nullptr ? per_node->location : node->location, key_path(path, "nics_per_node"),
                   fmt::format("{} does not split evenly over the compute fabric's {} planes; every plane needs the "
                               "same number of NICs per storage node",
                               out.nics_per_node, fabric.planes));
    }
    const bool automatic = fabric.link_speed == Bandwidth::zero();
    if (nic.rate_known && (!automatic || (server.usable && server.nic_rate_known))) {
        const Bandwidth speed = automatic ? server.spec.nic.line_rate : fabric.link_speed;
        if (speed > out.nic.line_rate)
            issues.add(
                node->location, key_path(path, "nic"),
                fmt::format("the compute fabric's links run at {}{}, above the line rate of cluster.storage.nic, {}",
                            speed, automatic ? " (the line rate of cluster.server.nic)" : "", out.nic.line_rate));
    }
    return out;
}

// The cluster, and whether its rank count can be trusted for checking the workload.
std::pair<ClusterSpec, bool> validate_cluster(const Node& node, Issues& issues) {
    ClusterSpec spec;
    const Node* map = read_section(node, "cluster", issues);
    if (map == nullptr) return {spec, false};
    check_keys(*map, "cluster",
               {"servers", "server", "fabric", "storage_fabric", "storage", "clients", "roce", "infiniband", "iwarp"},
               issues);
    bool ranks_known = true;
    if (const Node* n = map->find("servers")) {
        auto v = read_int(*n, "cluster.servers", 1, kMaxServers, issues);
        ranks_known = v.has_value();
        if (v) spec.servers = static_cast<int>(*v);
    }
    const bool servers_known = ranks_known;
    const ServerRead server = validate_server(map->find("server"), issues);
    ranks_known = ranks_known && server.usable && server.gpus_known;
    spec.server = server.spec;
    spec.fabric = validate_fabric(map->find("fabric"), *map, server,
                                  servers_known ? std::optional<int>(spec.servers) : std::nullopt, issues);
    spec.storage_fabric = validate_storage_fabric(map->find("storage_fabric"), server, issues);
    spec.storage = validate_storage(map->find("storage"), *map, spec.fabric, server, issues);
    spec.clients = validate_clients(map->find("clients"), issues);
    if (spec.clients.nodes > 0 && spec.fabric.topology == TopologyKind::custom)
        issues.add(map->find("clients")->location, "cluster.clients",
                   "client hosts on a custom compute fabric; expected none (cluster.fabric.links names server NICs "
                   "only): leave cluster.clients out or use leaf-spine or fat-tree");
    // The compute fabric's link speed, for cluster.roce's `auto` ECN thresholds.
    std::optional<Bandwidth> link_speed;
    if (spec.fabric.link_speed != Bandwidth::zero())
        link_speed = spec.fabric.link_speed;
    else if (server.usable && server.nic_rate_known)
        link_speed = server.spec.nic.line_rate;
    spec.roce = validate_roce(map->find("roce"), link_speed, issues);
    spec.infiniband = validate_infiniband(map->find("infiniband"), spec.fabric.mtu, issues);
    validate_iwarp(map->find("iwarp"), *map, link_speed, spec, issues);
    return {spec, ranks_known};
}

// outputs.queues: {ports: ["from->to", ...] | top: N, interval: time > 0 (10us if absent)}.
// The names are checked against the topology when it is built (queue_sampler.cpp).
QueueOutputSpec validate_queue_output(const Node& node, Issues& issues) {
    constexpr std::int64_t kTopMax = 100'000;
    QueueOutputSpec spec;
    const Node* map = read_section(node, "outputs.queues", issues);
    if (map == nullptr) return spec;
    check_keys(*map, "outputs.queues", {"ports", "top", "interval"}, issues);
    spec.location = map->location;
    bool read = true;
    spec.interval = Time::us(10);
    if (const Node* n = map->find("interval")) {
        auto t = read_time(*n, "outputs.queues.interval", Zero::rejected, issues);
        read = read && t.has_value();
        if (t) spec.interval = *t;
    }
    const Node* ports = map->find("ports");
    const Node* top = map->find("top");
    if ((ports == nullptr) == (top == nullptr)) {
        issues.add(map->location, "outputs.queues",
                   ports == nullptr ? "names no ports; expected `ports: [\"from->to\", ...]` or `top: N`"
                                    : "has both ports and top; expected one of them");
        read = false;
    }
    if (top != nullptr) {
        auto v = read_int(*top, "outputs.queues.top", 1, kTopMax, issues);
        read = read && v.has_value();
        if (v) spec.top = static_cast<int>(*v);
    }
    if (ports != nullptr) {
        if (!ports->is_sequence() || ports->items.empty()) {
            issues.add(ports->location, "outputs.queues.ports",
                       fmt::format("expected a list of one or more ports \"from->to\" (e.g. \"leaf0->s0.nic0\"), "
                                   "found {}",
                                   describe_found(*ports)));
            read = false;
        } else {
            for (std::size_t i = 0; i < ports->items.size(); ++i) {
                const Node& item = ports->items[i];
                const std::string path = index_path("outputs.queues.ports", i);
                auto name = read_text(item, path, issues);
                if (!name) {
                    read = false;
                    continue;
                }
                const auto arrow = name->find("->");
                if (arrow == std::string::npos || arrow == 0 || arrow + 2 >= name->size() ||
                    name->find("->", arrow + 2) != std::string::npos) {
                    issues.add(item.location, path,
                               fmt::format("\"{}\" is not a port; expected \"from->to\", two node names as "
                                           "`fabricsim topo` lists them (e.g. \"leaf0->s0.nic0\")",
                                           *name));
                    read = false;
                    continue;
                }
                spec.ports.push_back(*name);
                spec.port_locations.push_back(item.location);
            }
        }
    }
    if (!read) return QueueOutputSpec{};
    return spec;
}

OutputsSpec validate_outputs(const Node& node, Issues& issues) {
    OutputsSpec spec;
    const Node* map = read_section(node, "outputs", issues);
    if (map == nullptr) return spec;
    check_keys(*map, "outputs", {"dir", "formats", "qp_rates", "queues", "timeline"}, issues);
    if (const Node* n = map->find("timeline"))
        if (auto b = read_bool(*n, "outputs.timeline", issues)) spec.timeline = *b;
    if (const Node* n = map->find("queues")) spec.queues = validate_queue_output(*n, issues);
    if (const Node* n = map->find("qp_rates")) {
        if (!(n->is_scalar() && n->text == "off"))
            if (auto t = read_time(*n, "outputs.qp_rates", Zero::rejected, issues)) spec.qp_rates = *t;
    }
    if (const Node* n = map->find("dir")) {
        if (auto s = read_text(*n, "outputs.dir", issues)) spec.dir = *s;
    }
    if (const Node* n = map->find("formats")) {
        if (!n->is_sequence()) {
            issues.add(n->location, "outputs.formats",
                       fmt::format("expected a list of formats (json, csv), found {}", describe_found(*n)));
            return spec;
        }
        spec.formats.clear();
        std::vector<std::string> seen;
        for (std::size_t i = 0; i < n->items.size(); ++i) {
            const Node& item = n->items[i];
            const std::string path = index_path("outputs.formats", i);
            auto name = read_choice(item, path, "format", {"json", "csv"}, issues);
            if (!name) continue;
            if (std::find(seen.begin(), seen.end(), *name) != seen.end()) {
                issues.add(item.location, path, fmt::format("\"{}\" is listed twice", *name));
                continue;
            }
            seen.push_back(*name);
            spec.formats.push_back(*name == "json" ? OutputFormat::json : OutputFormat::csv);
        }
    }
    return spec;
}

}  // namespace

ScenarioSpec validate_scenario(const Node& root, Issues& issues) {
    ScenarioSpec spec;
    check_keys(root, "", {"name", "description", "seed", "simulation", "cluster", "workload", "faults", "outputs"},
               issues);

    if (const Node* n = root.find("name")) {
        if (auto s = read_name(*n, "name", issues)) spec.name = *s;
    } else {
        missing(root, "name", "key", issues);
    }
    if (const Node* n = root.find("description")) {
        if (auto s = read_text(*n, "description", issues)) spec.description = *s;
    }
    if (const Node* n = root.find("seed")) {
        if (auto v = read_uint64(*n, "seed", issues)) spec.seed = *v;
    }
    if (const Node* n = root.find("simulation")) spec.simulation = validate_simulation(*n, issues);

    bool cluster_known = false;
    if (const Node* n = root.find("cluster")) {
        auto [cluster, ranks_known] = validate_cluster(*n, issues);
        spec.cluster = cluster;
        cluster_known = ranks_known;
    } else {
        missing(root, "cluster", "section", issues);
    }
    if (const Node* n = root.find("workload")) {
        spec.workload = validate_workload(*n, cluster_known ? &spec.cluster : nullptr, issues);
    } else {
        missing(root, "workload", "section", issues);
    }
    if (const Node* n = root.find("faults"))
        spec.faults = validate_faults(*n, cluster_known ? &spec.cluster : nullptr,
                                      spec.simulation.model == NetworkModel::packet, issues);
    if (const Node* n = root.find("outputs")) spec.outputs = validate_outputs(*n, issues);
    // The ideal model has no queues: outputs.queues would be read and then ignored.
    if (spec.outputs.queues.interval > Time::zero() && spec.simulation.model != NetworkModel::packet)
        issues.add(spec.outputs.queues.location, "outputs.queues",
                   "the ideal model has no queues to sample; expected simulation.model: packet (or no outputs.queues)");
    // Only a scenario whose every value was read: a message's time needs its cluster's rates.
    if (issues.empty()) {
        check_message_times(spec, issues);
        check_training_times(spec, issues);
        check_pfc_buffers(spec, root, issues);
        check_storage_fabric_model(spec, root, issues);
    }
    return spec;
}

}  // namespace fabricsim::scenario
