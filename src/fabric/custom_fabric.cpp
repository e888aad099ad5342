// topology: custom (docs/models/topology.md, "An explicit topology"): the switches and cables
// of cluster.fabric.switches and cluster.fabric.links, as the loader resolved them
// (scenario/validate_custom_fabric.cpp checked the names, speeds, radixes and duplicates).
//
// Here, with Boost.Graph: the fabric must be one connected graph (connected_components), and
// each switch gets a tier for the reports and D-mod-K: a switch with a server NIC is a leaf;
// the others are spines one hop from the nearest leaf and cores beyond (breadth-first search
// from the leaves). Tiers name switches only; routing takes the shortest paths of whatever
// graph is written (routing_fabric_tables.cpp).
#include "fabric/link_classes.hpp"
#include "fabric/topology_builder.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace fabricsim::fabric::detail {

namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

// Names listed per piece of a disconnected fabric before "and N more".
constexpr std::size_t kListed = 4;

[[noreturn]] void bad(const scenario::CustomFabricSpec& custom, std::string message) {
    ConfigIssue issue;
    issue.location = custom.location;
    issue.key_path = "cluster.fabric.links";
    issue.message = std::move(message);
    throw ConfigError(std::move(issue));
}

// Vertices 0..S-1 are the switches, S.. the servers' NICs (server-major).
struct Ends {
    std::size_t switches = 0;
    int nics_per_server = 0;
    std::map<std::string, std::size_t> vertex;  // by name
    std::vector<std::string> names;             // by vertex
};

Ends ends_of(const scenario::ClusterSpec& cluster) {
    Ends e;
    e.switches = cluster.fabric.custom.switches.size();
    e.nics_per_server = cluster.server.nics;
    for (const auto& sw : cluster.fabric.custom.switches) {
        e.vertex.emplace(sw.name, e.names.size());
        e.names.push_back(sw.name);
    }
    for (int s = 0; s < cluster.servers; ++s)
        for (int k = 0; k < cluster.server.nics; ++k) {
            e.names.push_back(fmt::format("s{}.nic{}", s, k));
            e.vertex.emplace(e.names.back(), e.names.size() - 1);
        }
    return e;
}

std::size_t vertex_of(const Ends& e, const scenario::CustomFabricSpec& custom, const std::string& name) {
    const auto it = e.vertex.find(name);
    if (it == e.vertex.end()) bad(custom, fmt::format("no switch or server NIC named \"{}\"", name));
    return it->second;
}

// Throws when the graph falls apart, naming a few members of each piece.
void check_connected(const Graph& g, const Ends& e, const scenario::CustomFabricSpec& custom) {
    std::vector<int> piece(boost::num_vertices(g));
    const int pieces = boost::connected_components(g, piece.data());
    if (pieces <= 1) return;
    std::vector<std::vector<std::string>> members(static_cast<std::size_t>(pieces));
    for (std::size_t v = 0; v < piece.size(); ++v) members[static_cast<std::size_t>(piece[v])].push_back(e.names[v]);
    std::string listed;
    for (const auto& m : members) {
        std::string names;
        for (std::size_t i = 0; i < std::min(m.size(), kListed); ++i) names += (i == 0 ? "" : ", ") + m[i];
        if (m.size() > kListed) names += fmt::format(" and {} more", m.size() - kListed);
        listed += fmt::format("{}{{{}}}", listed.empty() ? "" : ", ", names);
    }
    bad(custom, fmt::format("the fabric falls apart into {} pieces: {}; expected one connected fabric in which every "
                            "NIC reaches every other: link the pieces",
                            pieces, listed));
}

// 1 for a switch with a server NIC, 2 one hop from the nearest such switch, 3 beyond.
std::vector<int> switch_tiers(const scenario::CustomFabricSpec& custom, const Ends& e) {
    const std::size_t S = e.switches;
    Graph g(S + 1);  // vertex S: a root joined to every leaf
    std::vector<bool> leaf(S, false);
    for (const auto& l : custom.links) {
        const std::size_t a = e.vertex.at(l.from), b = e.vertex.at(l.to);
        if (a < S && b < S)
            boost::add_edge(a, b, g);
        else
            leaf[std::min(a, b)] = true;
    }
    for (std::size_t s = 0; s < S; ++s)
        if (leaf[s]) boost::add_edge(S, s, g);
    std::vector<int> distance(S + 1, 0);
    boost::breadth_first_search(
        g, S, boost::visitor(boost::make_bfs_visitor(boost::record_distances(distance.data(), boost::on_tree_edge()))));
    std::vector<int> tier(S);
    for (std::size_t s = 0; s < S; ++s) tier[s] = std::clamp(distance[s], 1, 3);
    return tier;
}

NodeKind kind_of_tier(int tier) { return tier == 1 ? NodeKind::leaf : tier == 2 ? NodeKind::spine : NodeKind::core; }

}  // namespace

void build_custom_fabric(Topology& t, const scenario::ClusterSpec& cluster) {
    const scenario::FabricSpec& spec = cluster.fabric;
    const scenario::CustomFabricSpec& custom = spec.custom;
    if (cluster.storage.nodes > 0 || cluster.clients.nodes > 0)
        bad(custom, "storage nodes and client hosts cannot join a custom fabric (its links name server NICs only)");
    const Ends e = ends_of(cluster);

    Graph g(e.names.size());
    for (const auto& l : custom.links) boost::add_edge(vertex_of(e, custom, l.from), vertex_of(e, custom, l.to), g);
    check_connected(g, e, custom);
    const std::vector<int> tier = switch_tiers(custom, e);

    std::vector<NodeId> node(e.switches);
    for (std::size_t s = 0; s < e.switches; ++s) {
        const scenario::CustomSwitchSpec& sw = custom.switches[s];
        Node n;
        n.kind = kind_of_tier(tier[s]);
        n.name = sw.name;
        n.local_index = static_cast<std::uint32_t>(s);
        n.forwarding_latency = sw.model.latency;
        n.buffer = sw.model.buffer;
        n.radix = static_cast<std::uint32_t>(sw.model.radix);
        node[s] = t.add_node(std::move(n));
    }
    const auto node_of = [&](std::size_t v) {
        if (v < e.switches) return node[v];
        const std::size_t nic = v - e.switches;
        const auto per = static_cast<std::size_t>(e.nics_per_server);
        return t.servers()[nic / per].nics[nic % per];
    };
    for (const auto& l : custom.links) {
        const std::size_t a = vertex_of(e, custom, l.from), b = vertex_of(e, custom, l.to);
        const bool to_nic = a >= e.switches || b >= e.switches;
        const int ta = a < e.switches ? tier[a] : 0, tb = b < e.switches ? tier[b] : 0;
        // NIC-leaf 1; between switches the upper end's tier, one more between peers (at most 3).
        const int link_tier = to_nic ? 1 : ta == tb ? std::min(ta + 1, 3) : std::max(ta, tb);
        const LinkClass c = fabric_class(spec.technology, l.speed, spec.mtu);
        Link link;
        link.type = c.type;
        link.link_class = c.name;
        link.bandwidth = c.bandwidth;
        link.efficiency = c.efficiency;
        link.length = l.length;
        link.propagation = propagation_delay(l.length);
        link.medium = cable_medium(spec.technology, c.bandwidth, l.length);
        link.tier = static_cast<std::uint8_t>(link_tier);
        // The NIC first, as the other builders cable it (routing reads either order).
        const NodeId na = node_of(a), nb = node_of(b);
        for (int k = 0; k < l.count; ++k) {
            if (b >= e.switches)
                t.add_link(nb, na, link);
            else
                t.add_link(na, nb, link);
        }
    }
}

}  // namespace fabricsim::fabric::detail
