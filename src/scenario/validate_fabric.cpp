// cluster.fabric and cluster.storage_fabric: the network the NICs plug into and its switch
// model, and the checks that look across the cluster: a switch of the fabric's technology,
// links no faster than the switch ports or the NICs, an MTU the technology allows, and planes
// that split every endpoint's NICs evenly.
#include "scenario/describe.hpp"
#include "scenario/field_readers.hpp"
#include "scenario/validate.hpp"
#include "scenario/validate_custom_fabric.hpp"
#include "scenario/validate_switch.hpp"

#include "core/units_format.hpp"

#include <fmt/format.h>

namespace fabricsim::scenario {

namespace {

const std::vector<std::string> kTechnologies{"roce", "infiniband", "iwarp"};
const std::vector<std::string> kTopologies{"single-switch", "leaf-spine", "fat-tree", "rail-optimized", "custom"};
const std::vector<std::string> kRoutings{"auto", "ecmp", "adaptive", "spray", "static"};
const std::vector<std::string> kFabricKeys{"technology",       "topology",     "link_speed",          "switch",
                                           "oversubscription", "cable_length", "uplink_cable_length", "mtu",
                                           "routing",          "planes"};

constexpr std::int64_t kMaxRadix = 4'096;
constexpr std::int64_t kMaxPlanes = 64;
constexpr std::int64_t kMaxStorageNodes = 1'000'000;
constexpr std::int64_t kMaxNicsPerNode = 1'024;

// MTU, as payload bytes per packet (docs/SCENARIO.md). Ethernet jumbo frames carry up to 9 KiB; an
// InfiniBand path MTU is one of the powers of two from 256 B to 4 KiB (IBA Vol. 1, the
// PMTU encodings 1..5); RoCE uses the same RDMA MTUs but the Ethernet range is accepted here.
constexpr Bytes kMinMtu{256};
constexpr Bytes kMaxMtu{9 * 1024};
constexpr Bytes kMaxIbMtu{4 * 1024};

Technology technology_of(const std::string& s) { return s == "infiniband" ? Technology::infiniband : Technology::roce; }
std::string_view switch_kind(Technology t) {
    return t == Technology::infiniband ? "an InfiniBand switch" : "an Ethernet (RoCE) switch";
}

TopologyKind topology_of(const std::string& s) {
    if (s == "single-switch") return TopologyKind::single_switch;
    if (s == "fat-tree") return TopologyKind::fat_tree;
    if (s == "rail-optimized") return TopologyKind::rail_optimized;
    if (s == "custom") return TopologyKind::custom;
    return TopologyKind::leaf_spine;
}

RoutingKind routing_of(const std::string& s) {
    if (s == "ecmp") return RoutingKind::ecmp;
    if (s == "adaptive") return RoutingKind::adaptive;
    if (s == "spray") return RoutingKind::spray;
    if (s == "static") return RoutingKind::static_;
    return RoutingKind::automatic;
}

struct FabricRead {
    FabricSpec spec;
    const Node* link_speed_node = nullptr;
    const Node* mtu_node = nullptr;
    const Node* planes_node = nullptr;
    bool technology_known = true;
    bool link_speed_known = true;
    bool mtu_known = true;
    bool planes_known = true;
    SwitchRead sw;
};

// The keys of FabricSpec in `map` (null: all defaults); unknown keys are the caller's to check.
FabricRead read_fabric(const Node* map, const std::string& path, Issues& issues) {
    FabricRead out;
    FabricSpec& s = out.spec;
    const auto at = [&](const char* key) { return map == nullptr ? nullptr : map->find(key); };
    if (const Node* n = at("technology")) {
        auto v = read_choice(*n, key_path(path, "technology"), "technology", kTechnologies, issues);
        out.technology_known = v.has_value();
        if (v) s.technology = technology_of(*v);
        s.iwarp = v && *v == "iwarp";  // Ethernet switches; the NICs run TCP (validate_iwarp.hpp)
    }
    if (const Node* n = at("topology"))
        if (auto v = read_choice(*n, key_path(path, "topology"), "topology", kTopologies, issues))
            s.topology = topology_of(*v);
    if (const Node* n = at("link_speed")) {
        out.link_speed_node = n;
        auto v = read_bandwidth_or_auto(*n, key_path(path, "link_speed"), issues);
        out.link_speed_known = v.has_value();
        if (v) s.link_speed = *v;
    }
    const auto tech = out.technology_known ? std::optional<Technology>(s.technology) : std::nullopt;
    if (const Node* n = at("switch")) {
        out.sw = validate_switch(*n, key_path(path, "switch"), tech, issues);
    } else {
        out.sw.technology_known = out.technology_known;
        out.sw.spec.technology = s.technology;
    }
    s.switch_spec = out.sw.spec;
    if (const Node* n = at("oversubscription"))
        if (auto v = read_ratio(*n, key_path(path, "oversubscription"), issues)) s.oversubscription = *v;
    if (const Node* n = at("cable_length"))
        if (auto v = read_length(*n, key_path(path, "cable_length"), Zero::rejected, issues)) s.cable_length = *v;
    if (const Node* n = at("uplink_cable_length"))
        if (auto v = read_length(*n, key_path(path, "uplink_cable_length"), Zero::rejected, issues))
            s.uplink_cable_length = *v;
    if (const Node* n = at("mtu")) {
        out.mtu_node = n;
        auto v = read_bytes(*n, key_path(path, "mtu"), Zero::rejected, issues);
        out.mtu_known = v.has_value();
        if (v) s.mtu = *v;
    }
    if (const Node* n = at("routing"))
        if (auto v = read_choice(*n, key_path(path, "routing"), "routing", kRoutings, issues))
            s.routing = routing_of(*v);
    if (const Node* n = at("planes")) {
        out.planes_node = n;
        auto v = read_int(*n, key_path(path, "planes"), 1, kMaxPlanes, issues);
        out.planes_known = v.has_value();
        if (v) s.planes = static_cast<int>(*v);
    }
    return out;
}

// NICs of one kind that plug into a fabric, as far as they are known.
struct Endpoint {
    std::string nic_path;  // "cluster.server.nic"
    std::optional<Bandwidth> line_rate;
    std::string count_path;    // "cluster.server.nics"
    std::optional<int> count;  // per owner
    std::string owner;         // "server"
};

bool is_ib_mtu(Bytes mtu) {
    for (std::int64_t m = kMinMtu.count(); m <= kMaxIbMtu.count(); m *= 2)
        if (mtu.count() == m) return true;
    return false;
}

// The checks across a fabric, its switch and the NICs that plug into it. `endpoints[0]`
// gives `link_speed: auto` its value; `where` locates issues about keys that were not written.
void check_fabric(const FabricRead& f, const std::string& path, SourceLocation where,
                  const std::vector<Endpoint>& endpoints, Issues& issues) {
    const FabricSpec& s = f.spec;
    const SwitchRead& sw = f.sw;

    if (f.technology_known && sw.usable && sw.technology_known && sw.node != nullptr &&
        sw.spec.technology != s.technology) {
        const std::string who = sw.spec.preset.empty() ? "the switch" : fmt::format("\"{}\"", sw.spec.preset);
        issues.add(sw.node->location, key_path(path, "switch"),
                   fmt::format("{} is {}, but {}.technology is {}; choose {} or set technology: {}", who,
                               switch_kind(sw.spec.technology), path, name_of(s.technology), switch_kind(s.technology),
                               name_of(sw.spec.technology)));
    }

    if (f.mtu_known && f.mtu_node != nullptr) {
        const std::string mtu_path = key_path(path, "mtu");
        if (s.mtu < kMinMtu || s.mtu > kMaxMtu) {
            issues.add(f.mtu_node->location, mtu_path,
                       fmt::format("expected an MTU from {} to {}, found {}", kMinMtu, kMaxMtu, s.mtu));
        } else if (f.technology_known && s.technology == Technology::infiniband && !is_ib_mtu(s.mtu)) {
            issues.add(
                f.mtu_node->location, mtu_path,
                fmt::format("{} is not an InfiniBand MTU; InfiniBand allows 256B, 512B, 1KiB, 2KiB or 4KiB", s.mtu));
        }
    }

    if (f.link_speed_known) {
        const bool automatic = s.link_speed == Bandwidth::zero();
        std::optional<Bandwidth> speed;
        std::string shown;
        if (!automatic) {
            speed = s.link_speed;
            shown = to_string(s.link_speed);
        } else if (!endpoints.empty() && endpoints[0].line_rate) {
            speed = endpoints[0].line_rate;
            shown = fmt::format("auto (the line rate of {}, {})", endpoints[0].nic_path, *speed);
        }
        const SourceLocation at = f.link_speed_node ? f.link_speed_node->location : where;
        const std::string speed_path = key_path(path, "link_speed");
        if (speed && sw.usable && sw.port_speed_known && *speed > sw.spec.port_speed) {
            issues.add(at, speed_path,
                       fmt::format(
                           "{} is above the switch's port speed, {}{}", shown, sw.spec.port_speed,
                           automatic ? fmt::format("; set link_speed: {} or choose a faster switch", sw.spec.port_speed)
                                     : std::string()));
        }
        for (std::size_t i = automatic ? 1 : 0; speed && i < endpoints.size(); ++i) {
            const Endpoint& e = endpoints[i];
            if (e.line_rate && *speed > *e.line_rate)
                issues.add(at, speed_path,
                           fmt::format("{} is above the line rate of {}, {}", shown, e.nic_path, *e.line_rate));
        }
    }

    if (f.planes_known && s.planes > 1) {
        for (const Endpoint& e : endpoints) {
            if (e.count && *e.count % s.planes != 0)
                issues.add(f.planes_node ? f.planes_node->location : where, key_path(path, "planes"),
                           fmt::format("{} is {}, which does not split evenly over {} planes; every plane needs the "
                                       "same number of NICs per {}",
                                       e.count_path, *e.count, s.planes, e.owner));
        }
    }
}

template <class T>
std::optional<T> known(bool is_known, T value) {
    return is_known ? std::optional<T>(value) : std::nullopt;
}

}  // namespace

// An inline switch that does not say its technology has the fabric's.
SwitchRead validate_switch(const Node& node, const std::string& path, std::optional<Technology> fabric_technology,
                           Issues& issues, const SwitchSpec& base, const std::vector<std::string>& extra_keys) {
    SwitchRead out;
    out.node = &node;
    out.spec = base;
    if (fabric_technology) out.spec.technology = *fabric_technology;
    const Node* map = node.unresolved ? nullptr : read_section(node, path, issues);
    if (map == nullptr) {
        out.usable = false;
        return out;
    }
    std::vector<std::string> keys{"preset",     "description", "technology", "radix",
                                  "port_speed", "latency",     "buffer",     "sharp"};
    keys.insert(keys.end(), extra_keys.begin(), extra_keys.end());
    check_keys(*map, path, keys, issues);
    SwitchSpec& s = out.spec;
    if (const Node* n = map->find("preset"))
        if (auto v = read_name(*n, key_path(path, "preset"), issues)) s.preset = *v;
    if (const Node* n = map->find("description")) read_text(*n, key_path(path, "description"), issues);
    if (const Node* n = map->find("technology")) {
        auto v = read_choice(*n, key_path(path, "technology"), "technology", kTechnologies, issues);
        out.technology_known = v.has_value();
        if (v) s.technology = technology_of(*v);
    } else {
        out.technology_known = fabric_technology.has_value();
    }
    if (const Node* n = map->find("radix"))
        if (auto v = read_int(*n, key_path(path, "radix"), 2, kMaxRadix, issues)) s.radix = static_cast<int>(*v);
    if (const Node* n = map->find("port_speed")) {
        auto v = read_bandwidth(*n, key_path(path, "port_speed"), issues);
        out.port_speed_known = v.has_value();
        if (v) s.port_speed = *v;
    }
    if (const Node* n = map->find("latency"))
        if (auto v = read_delay(*n, key_path(path, "latency"), Zero::allowed, issues)) s.latency = *v;
    if (const Node* n = map->find("buffer"))
        if (auto v = read_bytes(*n, key_path(path, "buffer"), Zero::rejected, issues)) s.buffer = *v;
    if (const Node* n = map->find("sharp"))
        if (auto v = read_bool(*n, key_path(path, "sharp"), issues)) s.sharp = *v;
    return out;
}

FabricSpec validate_fabric(const Node* node, const Node& cluster, const ServerRead& server, std::optional<int> servers,
                           Issues& issues) {
    const std::string path = "cluster.fabric";
    const Node* map = nullptr;
    if (node != nullptr) {
        map = read_section(*node, path, issues);
        if (map == nullptr) return FabricSpec{};
        std::vector<std::string> keys = kFabricKeys;
        keys.insert(keys.end(), {"switches", "links"});
        check_keys(*map, path, keys, issues);
    }
    FabricRead f = read_fabric(map, path, issues);
    validate_custom_fabric(map, path, f.spec, f.sw, server, servers, issues);
    const std::vector<Endpoint> endpoints{
        {"cluster.server.nic", known(server.usable && server.nic_rate_known, server.spec.nic.line_rate),
         "cluster.server.nics", known(server.usable && server.nics_known, server.spec.nics), "server"},
    };
    check_fabric(f, path, map != nullptr ? map->location : cluster.location, endpoints, issues);
    return f.spec;
}

StorageFabricSpec validate_storage_fabric(const Node* node, const ServerRead& server, Issues& issues) {
    StorageFabricSpec out;
    const std::string path = "cluster.storage_fabric";
    if (node == nullptr || (node->is_scalar() && node->text == "none")) return out;
    const Node* map = node->is_null() ? nullptr : node;
    if (map != nullptr && !map->is_mapping()) {
        issues.add(node->location, path,
                   fmt::format("expected a mapping of fabric keys, or none, found {}", describe_found(*node)));
        return out;
    }
    static const Node empty = Node::mapping({});
    if (map == nullptr) map = &empty;
    out.enabled = true;
    std::vector<std::string> keys = kFabricKeys;
    keys.insert(keys.end(), {"storage_nodes", "nics_per_storage_node", "storage_node_nic"});
    check_keys(*map, path, keys, issues);
    FabricRead f = read_fabric(map, path, issues);
    out.fabric = f.spec;
    if (f.spec.topology == TopologyKind::custom)
        issues.add(map->find("topology")->location, key_path(path, "topology"),
                   "custom on the storage fabric; a custom topology is for the compute fabric only (cluster.fabric), "
                   "expected single-switch, leaf-spine, fat-tree or rail-optimized");
    if (const Node* n = map->find("storage_nodes"))
        if (auto v = read_int(*n, key_path(path, "storage_nodes"), 0, kMaxStorageNodes, issues))
            out.storage_nodes = static_cast<int>(*v);
    bool per_node_known = true;
    if (const Node* n = map->find("nics_per_storage_node")) {
        auto v = read_int(*n, key_path(path, "nics_per_storage_node"), 1, kMaxNicsPerNode, issues);
        per_node_known = v.has_value();
        if (v) out.nics_per_storage_node = static_cast<int>(*v);
    }
    NicRead node_nic = validate_nic(map->find("storage_node_nic"), key_path(path, "storage_node_nic"), issues);
    out.storage_node_nic = node_nic.spec;

    if (server.usable && server.storage_nics_known && server.spec.storage_nics == 0)
        issues.add(node->location, path,
                   "the servers have no storage NICs (cluster.server.storage_nics is 0); give them storage NICs "
                   "or remove storage_fabric");
    std::vector<Endpoint> endpoints{
        {"cluster.server.storage_nic",
         known(server.usable && server.storage_nic_rate_known, server.spec.storage_nic.line_rate),
         "cluster.server.storage_nics", known(server.usable && server.storage_nics_known, server.spec.storage_nics),
         "server"},
    };
    if (out.storage_nodes > 0)
        endpoints.push_back({key_path(path, "storage_node_nic"), known(node_nic.rate_known, node_nic.spec.line_rate),
                             key_path(path, "nics_per_storage_node"), known(per_node_known, out.nics_per_storage_node),
                             "storage node"});
    check_fabric(f, path, node->location, endpoints, issues);
    return out;
}

void check_storage_fabric_model(const ScenarioSpec& spec, const Node& root, Issues& issues) {
    const ClusterSpec& c = spec.cluster;
    if (spec.simulation.model != NetworkModel::packet || !c.storage_fabric.enabled) return;
    const Node* cluster = root.find("cluster");
    const Node* storage = cluster != nullptr && cluster->is_mapping() ? cluster->find("storage_fabric") : nullptr;
    if (storage == nullptr || !storage->is_mapping()) return;
    const auto unhonoured = [&](std::string_view key, bool differs, std::string_view what, std::string compute) {
        const Node* n = storage->find(key);
        if (n == nullptr || !differs) return;
        issues.add(n->location, key_path("cluster.storage_fabric", key),
                   fmt::format("{}; the packet model runs the storage fabric with the compute fabric's {} ({}): give "
                               "the same value or leave it out",
                               describe_found(*n), what, compute));
    };
    const FabricSpec& f = c.fabric;
    const FabricSpec& s = c.storage_fabric.fabric;
    const auto technology = [](const FabricSpec& x) {
        return x.iwarp ? std::string("iwarp") : std::string(name_of(x.technology));
    };
    unhonoured("technology", technology(s) != technology(f), "technology", technology(f));
    unhonoured("mtu", s.mtu != f.mtu, "MTU", to_string(f.mtu));
    unhonoured("routing", s.routing != f.routing, "routing", std::string(name_of(f.routing)));
}

}  // namespace fabricsim::scenario
