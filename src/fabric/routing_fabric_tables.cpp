// Level 2 of the routing tables: across the fabric (routing_tables.hpp).
//
// Endpoints (nodes with a fabric link into a switch) are grouped by the set of switches they
// hang off, normally one leaf. One breadth-first search per group (Boost.Graph) over the fabric
// switches only (an endpoint is never a transit hop) gives each switch its equal-cost ports
// towards the group, the next hops on every shortest path, whatever the switch graph is: memory
// O(switches x groups), and the port lists themselves are interned, so a leaf's "all
// uplinks" list is stored once however many destinations share it.
#include "fabric/routing_tables.hpp"

#include "ecmp_hash.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

namespace fabricsim::fabric::routing_detail {

PortLists::PortLists() : offsets_{0, 0} {}

std::uint32_t PortLists::intern(std::span<const std::uint32_t> ports) {
    if (ports.empty()) return 0;
    std::uint64_t h = ports.size();
    for (std::uint32_t p : ports) h = ecmp::fmix64(h ^ (p + ecmp::golden));
    auto [first, last] = index_.equal_range(h);
    for (auto it = first; it != last; ++it) {
        const auto existing = get(it->second);
        if (std::equal(existing.begin(), existing.end(), ports.begin(), ports.end())) return it->second;
    }
    const auto id = static_cast<std::uint32_t>(size());
    ports_.insert(ports_.end(), ports.begin(), ports.end());
    offsets_.push_back(static_cast<std::uint32_t>(ports_.size()));
    index_.emplace(h, id);
    return id;
}

void PortLists::finish() {
    index_ = {};
    ports_.shrink_to_fit();
    offsets_.shrink_to_fit();
}

std::size_t PortLists::bytes() const {
    return ports_.capacity() * sizeof(std::uint32_t) + offsets_.capacity() * sizeof(std::uint32_t) +
           index_.size() * (sizeof(std::uint64_t) + sizeof(std::uint32_t) + 2 * sizeof(void*));
}

namespace {

using SwitchGraph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                       boost::no_property, std::uint32_t, std::uint32_t>;

// The breadth-first search's FIFO over one reused vector (Boost's Buffer concept): no
// allocation per search, unlike a std::deque.
class VertexQueue {
public:
    using value_type = std::uint32_t;
    void reserve(std::size_t n) { items_.reserve(n); }
    void clear() {
        items_.clear();
        head_ = 0;
    }
    void push(std::uint32_t v) { items_.push_back(v); }
    void pop() { ++head_; }
    std::uint32_t& top() { return items_[head_]; }
    const std::uint32_t& top() const { return items_[head_]; }
    bool empty() const { return head_ == items_.size(); }
    std::size_t size() const { return items_.size() - head_; }

private:
    std::vector<std::uint32_t> items_;
    std::size_t head_ = 0;
};

// The component of an endpoint attached to several fabrics (routing.cpp reads it the same).
constexpr std::uint32_t every_fabric = none - 1;

struct UnionFind {
    std::vector<std::uint32_t> parent;
    explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0U); }
    std::uint32_t find(std::uint32_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    }
    void join(std::uint32_t a, std::uint32_t b) {
        a = find(a);
        b = find(b);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
};

// The ports of `node` that lead into fabric switches, as (peer node, port) sorted.
std::vector<std::pair<std::uint32_t, std::uint32_t>> switch_ports(const Topology& topo, NodeId node) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
    const Node& n = topo.node(node);
    for (std::uint32_t port = 0; port < n.ports.size(); ++port) {
        const Port& p = n.ports[port];
        if (is_fabric_link(topo.link(p.link).type) && is_fabric_switch(topo.node(p.peer).kind))
            out.emplace_back(p.peer.value(), port);
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

void build_fabric_tables(RoutingTables& t) {
    const Topology& topo = *t.topology;
    FabricTables& ft = t.fabric;
    const std::size_t node_count = topo.nodes().size();

    for (std::size_t i = 0; i < node_count; ++i) {
        const NodeId id{static_cast<NodeId::rep>(i)};
        const Node& n = topo.node(id);
        if (is_fabric_switch(n.kind)) {
            t.nodes[i].sw = static_cast<std::uint32_t>(ft.switches.size());
            ft.switches.push_back(id);
        } else if (!switch_ports(topo, id).empty()) {
            t.nodes[i].endpoint = static_cast<std::uint32_t>(ft.endpoints.size());
            ft.endpoints.push_back(id);
        }
    }
    const std::size_t S = ft.switches.size(), E = ft.endpoints.size();

    // Connected fabrics (planes, a storage fabric), numbered in node order: the switches joined
    // by switch-switch links, and each endpoint on its switches' fabric. An endpoint never joins
    // two fabrics: one attached to several (a storage node or client host on every plane of the
    // compute fabric) is on all of them, `every_fabric`, and numbered for D-mod-K on its first.
    UnionFind uf(node_count);
    for (const Link& l : topo.links()) {
        if (is_fabric_link(l.type) && t.nodes[l.a.value()].sw != none && t.nodes[l.b.value()].sw != none)
            uf.join(l.a.value(), l.b.value());
    }
    std::map<std::uint32_t, std::uint32_t> component_of_root;
    auto component = [&](std::uint32_t node) {
        return component_of_root.try_emplace(uf.find(node), static_cast<std::uint32_t>(component_of_root.size()))
            .first->second;
    };
    std::vector<std::uint32_t> switch_component(S);
    ft.component.resize(E);
    std::vector<std::uint32_t> dmodk_component(E);
    for (std::size_t i = 0; i < node_count; ++i) {
        const NodeRoute& r = t.nodes[i];
        if (r.sw != none) {
            switch_component[r.sw] = component(static_cast<std::uint32_t>(i));
        } else if (r.endpoint != none) {
            const auto sp = switch_ports(topo, NodeId{static_cast<NodeId::rep>(i)});
            const std::uint32_t first = component(sp.front().first);
            bool several = false;
            for (const auto& [peer, port] : sp) several = several || component(peer) != first;
            ft.component[r.endpoint] = several ? every_fabric : first;
            dmodk_component[r.endpoint] = first;
        }
    }

    // Endpoints: own ports, attachments, groups.
    std::map<std::vector<std::uint32_t>, std::uint32_t> group_of;  // attachment switches -> group
    std::vector<std::vector<std::uint32_t>> group_sources;         // switch indices per group
    ft.group.resize(E);
    ft.own_ports.resize(E);
    ft.multi.assign(E, none);
    ft.attach_offset.assign(1, 0);
    std::vector<std::uint32_t> ports;
    std::uint32_t multi_rows = 0;
    std::vector<std::uint32_t> multi_endpoints;
    for (std::size_t e = 0; e < E; ++e) {
        const auto sp = switch_ports(topo, ft.endpoints[e]);
        ports.clear();
        for (const auto& [peer, port] : sp) ports.push_back(port);
        ft.own_ports[e] = t.lists.intern(ports);
        if (sp.size() > 1) {
            ft.multi[e] = multi_rows++;
            multi_endpoints.push_back(static_cast<std::uint32_t>(e));
        }
        std::vector<std::uint32_t> attached;
        for (std::size_t i = 0; i < sp.size(); ++i) {
            if (i > 0 && sp[i].first == sp[i - 1].first) continue;
            const NodeId sw{sp[i].first};
            attached.push_back(sw.value());
            // The switch's ports back to this endpoint (parallel links included).
            ports.clear();
            for (const auto& [peer, port] : sp)
                if (peer == sw.value()) ports.push_back(topo.node(ft.endpoints[e]).ports[port].peer_port);
            std::sort(ports.begin(), ports.end());
            ft.attach_switch.push_back(sw);
            ft.attach_ports.push_back(t.lists.intern(ports));
        }
        ft.attach_offset.push_back(static_cast<std::uint32_t>(ft.attach_switch.size()));
        auto [it, inserted] = group_of.try_emplace(attached, static_cast<std::uint32_t>(group_sources.size()));
        if (inserted) {
            std::vector<std::uint32_t> sources;
            for (std::uint32_t sw : attached) sources.push_back(t.nodes[sw].sw);
            group_sources.push_back(std::move(sources));
        }
        ft.group[e] = it->second;
    }
    const auto G = static_cast<std::uint32_t>(group_sources.size());
    ft.groups = G;

    // Switch-to-switch adjacency, per switch sorted by (peer node, port).
    std::vector<std::uint32_t> adj_offset(S + 1, 0);
    std::vector<std::uint32_t> adj_peer, adj_port;  // peer as switch index
    for (std::size_t s = 0; s < S; ++s) {
        for (const auto& [peer, port] : switch_ports(topo, ft.switches[s])) {
            adj_peer.push_back(t.nodes[peer].sw);
            adj_port.push_back(port);
        }
        adj_offset[s + 1] = static_cast<std::uint32_t>(adj_peer.size());
    }

    ft.table.assign(S * G, 0);
    ft.multi_table.assign(static_cast<std::size_t>(multi_rows) * G, 0);
    // The switch graph for Boost.Graph's breadth-first search, in compressed sparse rows: each
    // switch-switch port an arc (parallel links as parallel arcs; they do not change a distance).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> arcs;
    arcs.reserve(adj_peer.size());
    for (std::uint32_t s = 0; s < S; ++s)
        for (std::uint32_t i = adj_offset[s]; i < adj_offset[s + 1]; ++i) arcs.emplace_back(s, adj_peer[i]);
    const SwitchGraph graph(boost::edges_are_sorted, arcs.begin(), arcs.end(), S);
    std::vector<std::uint32_t> dist(S);
    std::vector<boost::default_color_type> color(S);
    const auto color_map = boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, graph));
    const auto visitor = boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge()));
    VertexQueue buffer;
    buffer.reserve(S);
    for (std::uint32_t g = 0; g < G; ++g) {
        // Hops from the group's attachment switches (all sources at once), shortest paths in
        // any switch graph: a fat tree's up/down paths, or a custom topology's.
        std::fill(dist.begin(), dist.end(), none);
        std::fill(color.begin(), color.end(), boost::white_color);
        for (std::uint32_t s : group_sources[g]) dist[s] = 0;
        buffer.clear();
        boost::breadth_first_visit(graph, group_sources[g].begin(), group_sources[g].end(), buffer, visitor, color_map);
        for (std::uint32_t s = 0; s < S; ++s) {
            if (dist[s] == none || dist[s] == 0) continue;
            ports.clear();
            for (std::uint32_t i = adj_offset[s]; i < adj_offset[s + 1]; ++i)
                if (dist[adj_peer[i]] + 1 == dist[s]) ports.push_back(adj_port[i]);
            ft.table[static_cast<std::size_t>(s) * G + g] = t.lists.intern(ports);
        }
        // Endpoints with several fabric ports: those into the nearest switches.
        for (std::uint32_t e : multi_endpoints) {
            const auto own = t.lists.get(ft.own_ports[e]);
            const Node& n = topo.node(ft.endpoints[e]);
            std::uint32_t best = none;
            for (std::uint32_t port : own) best = std::min(best, dist[t.nodes[n.ports[port].peer.value()].sw]);
            if (best == none) continue;
            ports.clear();
            for (std::uint32_t port : own)
                if (dist[t.nodes[n.ports[port].peer.value()].sw] == best) ports.push_back(port);
            ft.multi_table[static_cast<std::size_t>(ft.multi[e]) * G + g] = t.lists.intern(ports);
        }
    }

    ft.dmodk = plan_dmodk(topo, ft.endpoints, dmodk_component, ft.switches, switch_component);
}

}  // namespace fabricsim::fabric::routing_detail
