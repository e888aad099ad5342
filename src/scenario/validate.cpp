#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/field_readers.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fabricsim::scenario {

std::pair<ClusterSpec, bool> validate_cluster(const Node& node, Issues& issues) {
    ClusterSpec spec;
    const SectionRead r = read_table(node, "cluster", cluster_table(), spec, issues);
    if (r.map == nullptr) return {spec, false};
    const Node* map = r.map;
    bool ranks_known = r.ok("servers");
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

ScenarioSpec validate_scenario(const Node& root, Issues& issues) {
    ScenarioSpec spec;
    TopLevelRead read;
    read_table(root, "", scenario_table(), spec, read, issues);
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
