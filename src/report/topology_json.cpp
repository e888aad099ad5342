#include "report/topology_json.hpp"

#include <cstdint>
#include <map>
#include <tuple>
#include <utility>

namespace fabricsim::report {

using Json = nlohmann::ordered_json;

Json topology_json(const fabric::TopologySummary& s) {
    Json j;
    j["topology"] = s.topology;
    j["requested_topology"] = s.requested_topology;
    j["technology"] = s.technology;
    j["planes"] = s.planes;
    j["servers"] = s.servers;
    j["ranks"] = s.ranks;
    j["gpus"] = s.gpus;
    j["nics"] = s.nics;
    j["storage_nics"] = s.storage_nics;
    j["storage_nodes"] = s.storage_nodes;
    j["clients"] = s.clients;
    j["client_nics"] = s.client_nics;
    j["switches"] = Json{{"leaf", s.switches.leaf},
                         {"spine", s.switches.spine},
                         {"core", s.switches.core},
                         {"nvswitch", s.nvswitches},
                         {"pcie", s.pcie_switches}};
    j["storage_switches"] =
        Json{{"leaf", s.storage_switches.leaf}, {"spine", s.storage_switches.spine}, {"core", s.storage_switches.core}};
    j["links"] = s.links;
    j["link_classes"] = s.link_classes;
    j["cables"] = Json{{"total", s.cables.total()},
                       {"copper", s.cables.copper},
                       {"optical", s.cables.optical},
                       {"transceivers", s.cables.transceivers},
                       {"by_tier", s.cables.by_tier}};
    j["link_speed_bps"] = s.link_speed.bits_per_second();
    j["switch_ports"] =
        Json{{"radix", s.radix}, {"leaf_down", s.leaf_down}, {"leaf_up", s.leaf_up}, {"leaf_spare", s.leaf_spare}};
    j["spare_ports"] = s.spare_ports;
    j["max_servers"] = s.max_servers;
    Json over = Json::object();
    for (const auto& o : s.oversubscription) over[o.tier] = o.ratio;
    j["oversubscription"] = std::move(over);
    j["bisection_bandwidth_bps"] = s.bisection.bits_per_second();
    j["diameter_hops"] = s.diameter_hops;
    j["max_nic_to_nic_latency_s"] = s.max_nic_to_nic_latency.seconds();
    j["nvlink_per_gpu_GBps"] = s.nvlink_per_gpu.bytes_per_second() / 1e9;
    return j;
}

Json custom_fabric_json(const fabric::Topology& t, const std::vector<std::string>& cycle) {
    Json switches = Json::array();
    for (const fabric::Node& n : t.nodes()) {
        if (!fabric::is_fabric_switch(n.kind) || n.storage_fabric) continue;
        switches.push_back(Json{{"name", n.name},
                                {"tier", std::string(fabric::to_string(n.kind))},
                                {"radix", n.radix},
                                {"ports_used", n.ports.size()}});
    }
    std::map<std::tuple<std::string, std::string, std::int64_t, std::int64_t>, std::pair<const fabric::Link*, int>>
        cables;
    for (const fabric::Link& l : t.links()) {
        if (l.type != fabric::LinkType::fabric) continue;
        auto& entry =
            cables[{t.node(l.a).name, t.node(l.b).name, l.bandwidth.bits_per_second(), l.length.millimetres()}];
        entry.first = &l;
        ++entry.second;
    }
    Json links = Json::array();
    for (const auto& [key, value] : cables) {
        const fabric::Link& l = *value.first;
        links.push_back(Json{{"from", std::get<0>(key)},
                             {"to", std::get<1>(key)},
                             {"count", value.second},
                             {"speed_bps", l.bandwidth.bits_per_second()},
                             {"length_m", static_cast<double>(l.length.millimetres()) / 1000.0},
                             {"class", l.link_class},
                             {"medium", std::string(fabric::to_string(l.medium))}});
    }
    return Json{{"switches", std::move(switches)}, {"links", std::move(links)}, {"channel_dependency_cycle", cycle}};
}

}  // namespace fabricsim::report
