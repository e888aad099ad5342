#include "report/bill_of_materials.hpp"

#include "fabric/fabric_plan.hpp"
#include "fabric/topology_builder.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

namespace fabricsim::report {

namespace {

std::string tier_name(const fabric::Link& l) {
    const char* base = l.tier == 1 ? "nic-leaf" : l.tier == 2 ? "leaf-spine" : l.tier == 3 ? "spine-core" : "other";
    return (l.type == fabric::LinkType::storage_fabric ? std::string("storage-") : std::string()) + base;
}

// Whole metres, rounded up: cables are sold by the metre.
std::string copper_class(Length length) {
    const std::int64_t mm = length.millimetres();
    return fmt::format("{}m", (mm + 999) / 1000);
}

}  // namespace

std::string reach_class(Length length) {
    if (length <= Length::m(50)) return "SR";
    if (length <= Length::m(500)) return "DR";
    if (length <= Length::m(2000)) return "FR";
    return "LR";
}

int BillOfMaterials::switch_count() const {
    int n = 0;
    for (const auto& s : switches) n += s.switches;
    return n;
}
int BillOfMaterials::cable_count() const {
    int n = 0;
    for (const auto& c : cables) n += c.count;
    return n;
}
int BillOfMaterials::transceiver_count() const {
    int n = 0;
    for (const auto& t : transceivers) n += t.count;
    return n;
}

BillOfMaterials bill_of_materials(const fabric::Topology& t, const scenario::ClusterSpec& cluster) {
    BillOfMaterials b;
    b.servers = static_cast<int>(t.servers().size());
    b.gpus = static_cast<int>(t.count(fabric::NodeKind::gpu));
    b.server_preset = cluster.server.preset;
    b.gpu_model = cluster.server.gpu_model;
    b.nics = static_cast<int>(t.count(fabric::NodeKind::nic));
    b.storage_nics = static_cast<int>(t.count(fabric::NodeKind::storage_nic));
    b.nic_preset = cluster.server.nic.preset;
    b.storage_nic_preset = cluster.server.storage_nic.preset;
    b.storage_nodes = static_cast<int>(t.storage_nodes().size());
    b.clients = static_cast<int>(t.clients().size());
    b.nvswitches = static_cast<int>(t.count(fabric::NodeKind::nvswitch));

    // Ports per switch at the link rate each fabric runs (a 800G port split into two 400G
    // ports counts two), as the fabric plan sized them.
    const int compute_ports =
        fabric::ports_at_link_rate(cluster.fabric.switch_spec, fabric::fabric_link_rate(cluster), "cluster.fabric");
    const int storage_ports =
        cluster.storage_fabric.enabled
            ? fabric::ports_at_link_rate(cluster.storage_fabric.fabric.switch_spec, fabric::storage_link_rate(cluster),
                                         "cluster.storage_fabric")
            : 0;

    std::map<std::tuple<int, int, int>, SwitchGroup> groups;  // (storage, tier, plane)
    for (const fabric::Node& n : t.nodes()) {
        if (!fabric::is_fabric_switch(n.kind)) continue;
        const int tier = n.kind == fabric::NodeKind::leaf ? 1 : n.kind == fabric::NodeKind::spine ? 2 : 3;
        SwitchGroup& g = groups[{n.storage_fabric ? 1 : 0, tier, static_cast<int>(n.plane)}];
        g.fabric = n.storage_fabric ? "storage" : "compute";
        g.tier = std::string(fabric::to_string(n.kind));
        g.plane = static_cast<int>(n.plane);
        g.preset =
            n.storage_fabric ? cluster.storage_fabric.fabric.switch_spec.preset : cluster.fabric.switch_spec.preset;
        ++g.switches;
        g.ports += n.storage_fabric ? storage_ports : compute_ports;
        g.ports_used += static_cast<int>(n.ports.size());
    }
    for (auto& [key, g] : groups) b.switches.push_back(std::move(g));

    std::map<std::tuple<std::string, std::string, std::string, std::int64_t>, CableGroup> cables;
    std::map<std::tuple<std::string, std::string, std::int64_t>, TransceiverGroup> optics;
    for (const fabric::Link& l : t.links()) {
        if (l.type != fabric::LinkType::fabric && l.type != fabric::LinkType::storage_fabric) continue;
        const bool optical = l.medium == fabric::Medium::optical;
        const std::string tier = tier_name(l);
        const std::string cls = optical ? reach_class(l.length) : copper_class(l.length);
        CableGroup& c = cables[{tier, optical ? "optical" : "copper", cls, l.bandwidth.bits_per_second()}];
        c.tier = tier;
        c.medium = optical ? "optical" : "copper";
        c.length_class = cls;
        c.speed = l.bandwidth;
        c.longest = std::max(c.longest, l.length);
        ++c.count;
        if (!optical) continue;
        TransceiverGroup& x = optics[{tier, cls, l.bandwidth.bits_per_second()}];
        x.tier = tier;
        x.reach = cls;
        x.speed = l.bandwidth;
        x.count += 2;
    }
    for (auto& [key, c] : cables) b.cables.push_back(std::move(c));
    for (auto& [key, x] : optics) b.transceivers.push_back(std::move(x));
    return b;
}

}  // namespace fabricsim::report
