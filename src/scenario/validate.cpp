#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/field_readers.hpp"
#include "scenario/host_keys.hpp"
#include "scenario/infiniband_keys.hpp"
#include "scenario/iwarp_keys.hpp"
#include "scenario/outputs_keys.hpp"
#include "scenario/roce_keys.hpp"
#include "scenario/simulation_keys.hpp"
#include "scenario/validate_limits.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fabricsim::scenario {

namespace {

// With at most 1024 GPUs per server (server_keys.cpp), rank arithmetic stays far inside
// int (servers x gpus <= 2^30).
constexpr std::int64_t kMaxServers = 1'000'000;

void missing(const Node& mapping, std::string_view path, std::string_view what, Issues& issues) {
    issues.add(mapping.location, std::string(path), fmt::format("missing required {}", what));
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
