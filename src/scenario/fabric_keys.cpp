// cluster.fabric, cluster.storage_fabric and a switch model (cluster.fabric.switch, each switch
// of a custom topology), one declaration per key, and the checks that look across the cluster:
// a switch of the fabric's technology, links no faster than the switch ports or the NICs, an
// MTU the technology allows, and planes that split every endpoint's NICs evenly. The entry
// points (validate_fabric, validate_storage_fabric) are declared in validate.hpp.
#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/describe.hpp"
#include "scenario/key_types.hpp"

#include <fmt/format.h>

namespace fabricsim::scenario {

namespace {

// Keys the topology builder reads are read under every model: every run builds and checks the
// topology whichever model carries its messages (cli/commands.cpp, check_variant_runs), and
// `fabricsim topo` and `plan` show it. Routing is the packet and flow models' alone.
constexpr unsigned kTopology = kAllModels;
constexpr unsigned kRouted = kPacket | kFlow;
constexpr std::int64_t kMaxRadix = 4'096;
constexpr std::int64_t kMaxPlanes = 64;
constexpr std::int64_t kMaxStorageNodes = 1'000'000;
constexpr std::int64_t kMaxNicsPerNode = 1'024;

// MTU, as payload bytes per packet. Ethernet jumbo frames carry up to 9 KiB; an InfiniBand
// path MTU is one of the powers of two from 256 B to 4 KiB (IBA Vol. 1, the PMTU encodings
// 1..5); RoCE uses the same RDMA MTUs but the Ethernet range is accepted here.
constexpr Bytes kMinMtu{256};
constexpr Bytes kMaxMtu{9 * 1024};
constexpr Bytes kMaxIbMtu{4 * 1024};

const std::vector<std::string> kTechnologies{"roce", "infiniband", "iwarp"};

// A switch's technology; `iwarp` switches are Ethernet ones.
const Words<Technology> kTechnologyWords{
    {"roce", Technology::roce}, {"infiniband", Technology::infiniband}, {"iwarp", Technology::roce}};
const auto kSwitchTechnology = choice<Technology>("technology", kTechnologyWords);
const Words<TopologyKind> kTopologyWords{{"single-switch", TopologyKind::single_switch},
                                         {"leaf-spine", TopologyKind::leaf_spine},
                                         {"fat-tree", TopologyKind::fat_tree},
                                         {"rail-optimized", TopologyKind::rail_optimized},
                                         {"custom", TopologyKind::custom}};
const Words<RoutingKind> kRoutingWords{{"auto", RoutingKind::automatic},
                                       {"ecmp", RoutingKind::ecmp},
                                       {"adaptive", RoutingKind::adaptive},
                                       {"spray", RoutingKind::spray},
                                       {"static", RoutingKind::static_}};

std::string_view switch_kind(Technology t) {
    return t == Technology::infiniband ? "an InfiniBand switch" : "an Ethernet (RoCE) switch";
}

Field<Ratio> ratio() {
    return {TypeDoc{"ratio ≥ 1: `\"D:U\"`, an integer, or a decimal with at most 3 places", {"string", "number"}},
            read_ratio, [](const Ratio& r) { return Value{to_string(r)}; }};
}

bool not_custom(const FabricSpec& f) { return f.topology != TopologyKind::custom; }

// The keys cluster.fabric and cluster.storage_fabric share, in the order they are read (the
// order of the issues).
std::vector<Key<FabricSpec>> fabric_keys() {
    using S = FabricSpec;
    return {
        custom_key<S>(
            "technology", TypeDoc{"`roce`, `infiniband`, `iwarp`", {"string"}, {}, {}, kTechnologies}, kAllModels,
            "RoCEv2 lossless Ethernet, InfiniBand, or iWARP: RDMA over TCP on the same Ethernet switches without PFC "
            "([iWARP](#iwarp-clusteriwarp)).",
            [](const Node& n, const std::string& path, S& out, NoContext&, Issues& issues) {
                const auto v = read_choice(n, path, "technology", kTechnologies, issues);
                if (!v) return false;
                out.technology = *v == "infiniband" ? Technology::infiniband : Technology::roce;
                out.iwarp = *v == "iwarp";  // Ethernet switches; the NICs run TCP (validate_iwarp.hpp)
                return true;
            },
            [](const S& s) { return Value{s.iwarp ? std::string("iwarp") : std::string(name_of(s.technology))}; }),
        key("topology", &S::topology, choice<TopologyKind>("topology", kTopologyWords), kTopology,
            "Shape of the fabric; sizes follow from the switch radix and the server count. `rail-optimized` puts NIC "
            "i of every server on rail i's leaves; servers with one NIC make one rail. `custom`: the switches and "
            "cables you list in `switches` and `links` ([a custom "
            "topology](#a-custom-topology-clusterfabricswitches-and-clusterfabriclinks))."),
        key("link_speed", &S::link_speed, rate_or_zero_auto(), kTopology,
            "Line rate of the fabric links. `auto`: the line rate of the fabric's first NICs "
            "(`cluster.server.nic`, on a storage fabric `cluster.server.storage_nic`). Must not exceed the switch's "
            "`port_speed` nor the line rate of any NIC on the fabric.")
            .printed_if(not_custom),
        section("switch", &S::switch_spec, switch_table(),
                "The switch model of every tier: a preset name (folder `switches/`) or a mapping."),
        key("oversubscription", &S::oversubscription, ratio(), kTopology,
            "Leaf downlink : uplink bandwidth. `2` is `2:1`, `1.5` is `3:2`; kept in lowest terms, each term at most "
            "1000000.")
            .printed_if(not_custom),
        key("cable_length", &S::cable_length, length(Zero::rejected), kTopology,
            "Server-to-leaf cables (inside a rack)."),
        key("uplink_cable_length", &S::uplink_cable_length, length(Zero::rejected), kTopology,
            "Cables between switch tiers."),
        key("mtu", &S::mtu, size(Zero::rejected), kTopology,
            "Payload bytes per packet, 256B to 9KiB. Under `infiniband` only the InfiniBand MTUs: 256B, 512B, 1KiB, "
            "2KiB, 4KiB. Under `iwarp` `cluster.iwarp.mss` says it.")
            .printed_if([](const S& s) { return !s.iwarp; }),
        key("routing", &S::routing, choice<RoutingKind>("routing", kRoutingWords), kRouted,
            "`auto`: ECMP on RoCE, static (D-mod-K) on InfiniBand."),
        key("planes", &S::planes, integer(1, kMaxPlanes), kTopology,
            "Parallel fabrics; NIC i of a server joins plane `i mod planes`, so `planes` must divide the NICs of "
            "every endpoint."),
    };
}

// NICs of one kind that plug into a fabric, as far as they are known.
struct Endpoint {
    std::string nic_path;  // "cluster.server.nic"
    std::optional<Bandwidth> line_rate;
    std::string count_path;    // "cluster.server.nics"
    std::optional<int> count;  // per owner
    std::string owner;         // "server"
};

template <class T>
std::optional<T> known(bool is_known, T value) {
    return is_known ? std::optional<T>(value) : std::nullopt;
}

bool is_ib_mtu(Bytes mtu) {
    for (std::int64_t m = kMinMtu.count(); m <= kMaxIbMtu.count(); m *= 2)
        if (mtu.count() == m) return true;
    return false;
}

// The fabric's switch as read: its technology follows the fabric's unless given.
SwitchRead fabric_switch(FabricSpec& s, const SectionRead& r) {
    if (r.given("switch.technology") == nullptr) s.switch_spec.technology = s.technology;
    return SwitchRead{s.switch_spec, r.given("switch"), r.ok("switch"),
                      r.given("switch.technology") != nullptr ? r.ok("switch.technology") : r.ok("technology"),
                      r.ok("switch.port_speed")};
}

// The checks across a fabric, its switch and the NICs that plug into it. `endpoints[0]` gives
// `link_speed: auto` its value; `where` locates issues about keys that were not written.
void check_fabric(const FabricSpec& s, const SectionRead& r, const SwitchRead& sw, const std::string& path,
                  SourceLocation where, const std::vector<Endpoint>& endpoints, Issues& issues) {
    const auto at = [&](const char* key) {
        const Node* n = r.given(key);
        return n != nullptr ? n->location : where;
    };
    if (r.ok("technology") && sw.usable && sw.technology_known && sw.node != nullptr &&
        sw.spec.technology != s.technology) {
        const std::string who = sw.spec.preset.empty() ? "the switch" : fmt::format("\"{}\"", sw.spec.preset);
        issues.add(sw.node->location, key_path(path, "switch"),
                   "{} is {}, but {}.technology is {}; choose {} or set technology: {}", who,
                   switch_kind(sw.spec.technology), path, name_of(s.technology), switch_kind(s.technology),
                   name_of(sw.spec.technology));
    }
    if (r.ok("mtu") && r.given("mtu") != nullptr) {
        if (s.mtu < kMinMtu || s.mtu > kMaxMtu) {
            issues.add(at("mtu"), key_path(path, "mtu"), "expected an MTU from {} to {}, found {}", kMinMtu, kMaxMtu,
                       s.mtu);
        } else if (r.ok("technology") && s.technology == Technology::infiniband && !is_ib_mtu(s.mtu)) {
            issues.add(at("mtu"), key_path(path, "mtu"),
                       "{} is not an InfiniBand MTU; InfiniBand allows 256B, 512B, 1KiB, 2KiB or 4KiB", s.mtu);
        }
    }
    if (r.ok("link_speed")) {
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
        if (speed && sw.usable && sw.port_speed_known && *speed > sw.spec.port_speed) {
            issues.add(at("link_speed"), key_path(path, "link_speed"),

                       "{} is above the switch's port speed, {}{}", shown, sw.spec.port_speed,
                       automatic ? fmt::format("; set link_speed: {} or choose a faster switch", sw.spec.port_speed)
                                 : std::string());
        }
        for (std::size_t i = automatic ? 1 : 0; speed && i < endpoints.size(); ++i) {
            const Endpoint& e = endpoints[i];
            if (e.line_rate && *speed > *e.line_rate)
                issues.add(at("link_speed"), key_path(path, "link_speed"), "{} is above the line rate of {}, {}", shown,
                           e.nic_path, *e.line_rate);
        }
    }
    if (r.ok("planes") && s.planes > 1) {
        for (const Endpoint& e : endpoints) {
            if (e.count && *e.count % s.planes != 0)
                issues.add(at("planes"), key_path(path, "planes"),
                           "{} is {}, which does not split evenly over {} planes; every plane needs the "
                           "same number of NICs per {}",
                           e.count_path, *e.count, s.planes, e.owner);
        }
    }
}

}  // namespace

std::string_view name_of(Technology t) { return word_of(kTechnologyWords, t); }
std::string_view name_of(TopologyKind t) { return word_of(kTopologyWords, t); }
std::string_view name_of(RoutingKind r) { return word_of(kRoutingWords, r); }

const Table<SwitchSpec>& switch_table() {
    using S = SwitchSpec;
    static const Table<S> t{
        "switch",
        {
            preset_key<S>("The switch preset the other keys start from."),
            description_key<S>(),
            key("technology", &S::technology, kSwitchTechnology, kAllModels,
                "Ethernet or InfiniBand ASIC; must be the fabric's. An inline switch that does not say takes the "
                "fabric's.")
                .shown_default("the fabric's"),
            key("radix", &S::radix, integer(2, kMaxRadix), kTopology, "Ports at `port_speed`."),
            key("port_speed", &S::port_speed, rate(), kTopology, "Speed of each port."),
            key("latency", &S::latency, delay(Zero::allowed), kTopology, "Port-to-port latency at zero load."),
            key("buffer", &S::buffer, size(Zero::rejected), kTopology, "Shared packet buffer.")
                .shown_default("`64MB` (printed `62500KiB`)"),
            key("sharp", &S::sharp, boolean(), kAllModels,
                "The switch reduces in the network (NVIDIA SHARP); with an InfiniBand fabric it allows `algorithm: "
                "sharp`."),
        }};
    return t;
}

const Table<FabricSpec>& fabric_table() {
    static const Table<FabricSpec> t{
        "cluster.fabric", [] {
            auto keys = fabric_keys();
            // Read with the servers they connect (validate_custom_fabric.cpp).
            const auto custom = [](const FabricSpec& s) { return !not_custom(s); };
            keys.push_back(list_of<FabricSpec>(
                               "switches", "list of switches", custom_switch_table(), kTopology,
                               "Only with `topology: custom`: the fabric's switches, below.",
                               [](const FabricSpec& s) -> auto& { return s.custom.switches; })
                               .printed_if(custom));
            keys.push_back(list_of<FabricSpec>(
                               "links", "list of links", custom_link_table(), kTopology,
                               "Only with `topology: custom`: the fabric's cables, below.",
                               [](const FabricSpec& s) -> auto& { return s.custom.links; })
                               .printed_if(custom));
            return keys;
        }()};
    return t;
}

const Table<StorageFabricSpec>& storage_fabric_table() {
    using S = StorageFabricSpec;
    static const Table<S> t{
        "cluster.storage_fabric", [] {
            std::vector<Key<S>> keys;
            // No model reads a storage fabric's routing: the packet and flow models route every
            // fabric with cluster.fabric.routing (fabric/routing.hpp), so the key is not offered.
            for (auto& k : fabric_keys())
                if (k.info.name != "routing") keys.push_back(inside(&S::fabric, std::move(k)));
            keys.push_back(key("storage_nodes", &S::storage_nodes, integer(0, kMaxStorageNodes), kAllModels,
                               "Storage servers on this fabric."));
            keys.push_back(key("nics_per_storage_node", &S::nics_per_storage_node, integer(1, kMaxNicsPerNode),
                               kAllModels, "NICs of each storage node."));
            keys.push_back(section("storage_node_nic", &S::storage_node_nic, nic_table(),
                                   "The storage nodes' NICs: a preset name (folder `nics/`) or a mapping."));
            return keys;
        }()};
    return t;
}

FabricSpec validate_fabric(const Node* node, const Node& cluster, const ServerRead& server, std::optional<int> servers,
                           Issues& issues) {
    const std::string path = "cluster.fabric";
    static const Node empty = Node::mapping({});
    FabricSpec s;
    const SectionRead r = read_table(node != nullptr ? *node : empty, path, fabric_table(), s, issues);
    if (r.map == nullptr) return FabricSpec{};
    const SwitchRead sw = fabric_switch(s, r);
    const Node* map = node != nullptr ? r.map : nullptr;
    validate_custom_fabric(map, path, s, sw, server, servers, issues);
    const std::vector<Endpoint> endpoints{
        {"cluster.server.nic", known(server.usable && server.nic_rate_known, server.spec.nic.line_rate),
         "cluster.server.nics", known(server.usable && server.nics_known, server.spec.nics), "server"},
    };
    check_fabric(s, r, sw, path, map != nullptr ? map->location : cluster.location, endpoints, issues);
    return s;
}

StorageFabricSpec validate_storage_fabric(const Node* node, const ServerRead& server, Issues& issues) {
    StorageFabricSpec out;
    const std::string path = "cluster.storage_fabric";
    if (node == nullptr || (node->is_scalar() && node->text == "none")) return out;
    if (!node->is_null() && !node->is_mapping()) {
        add_expected(issues, *node, path, "a mapping of fabric keys, or none");
        return out;
    }
    out.enabled = true;
    const SectionRead r = read_table(*node, path, storage_fabric_table(), out, issues);
    const SwitchRead sw = fabric_switch(out.fabric, r);
    if (out.fabric.topology == TopologyKind::custom)
        issues.add(r.given("topology")->location, key_path(path, "topology"),
                   "custom on the storage fabric; a custom topology is for the compute fabric only (cluster.fabric), "
                   "expected single-switch, leaf-spine, fat-tree or rail-optimized");
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
        endpoints.push_back(
            {key_path(path, "storage_node_nic"),
             known(r.ok("storage_node_nic.line_rate") && r.ok("storage_node_nic"), out.storage_node_nic.line_rate),
             key_path(path, "nics_per_storage_node"), known(r.ok("nics_per_storage_node"), out.nics_per_storage_node),
             "storage node"});
    check_fabric(out.fabric, r, sw, path, node->location, endpoints, issues);
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
                   "{}; the packet model runs the storage fabric with the compute fabric's {} ({}): give "
                   "the same value or leave it out",
                   describe_found(*n), what, compute);
    };
    const FabricSpec& f = c.fabric;
    const FabricSpec& s = c.storage_fabric.fabric;
    const auto technology = [](const FabricSpec& x) {
        return x.iwarp ? std::string("iwarp") : std::string(name_of(x.technology));
    };
    unhonoured("technology", technology(s) != technology(f), "technology", technology(f));
    unhonoured("mtu", s.mtu != f.mtu, "MTU", to_string(f.mtu));
}

}  // namespace fabricsim::scenario
