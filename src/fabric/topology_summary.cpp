#include "fabric/topology_summary.hpp"

#include "fabric/fabric_plan.hpp"
#include "fabric/topology_builder.hpp"

#include "core/errors.hpp"
#include "core/units_format.hpp"

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <queue>
#include <unordered_map>

namespace fabricsim::fabric {

namespace {

bool compute_switch(const Node& n) { return is_fabric_switch(n.kind) && !n.storage_fabric; }

int tier_of(NodeKind kind) {
    switch (kind) {
        case NodeKind::leaf: return 1;
        case NodeKind::spine: return 2;
        case NodeKind::core: return 3;
        default: return 0;
    }
}

std::string tier_name(std::uint8_t tier) {
    switch (tier) {
        case 1: return "nic-leaf";
        case 2: return "leaf-spine";
        case 3: return "spine-core";
        default: return "other";
    }
}

// Hops and zero-load latency between the NIC-bearing leaves of the compute fabric.
struct PathExtremes {
    int diameter_hops = 0;
    Time max_latency;
};

PathExtremes path_extremes(const Topology& t) {
    // Dense indices for compute-fabric switches.
    std::unordered_map<std::uint32_t, int> index;
    std::vector<NodeId> switches;
    for (std::uint32_t i = 0; i < t.nodes().size(); ++i)
        if (compute_switch(t.nodes()[i])) {
            index.emplace(i, static_cast<int>(switches.size()));
            switches.push_back(NodeId{i});
        }
    struct Edge {
        int to;
        Time cost;  // propagation + the next switch's latency
    };
    std::vector<std::vector<Edge>> adjacency(switches.size());
    std::vector<int> nics(switches.size(), 0);
    std::vector<Time> nic_propagation(switches.size(), Time::zero());
    for (const Link& l : t.links()) {
        if (l.type != LinkType::fabric) continue;
        const auto ia = index.find(l.a.value()), ib = index.find(l.b.value());
        if (ia != index.end() && ib != index.end()) {
            adjacency[static_cast<std::size_t>(ia->second)].push_back(
                {ib->second, l.propagation + t.node(l.b).forwarding_latency});
            adjacency[static_cast<std::size_t>(ib->second)].push_back(
                {ia->second, l.propagation + t.node(l.a).forwarding_latency});
        } else if (ia != index.end() || ib != index.end()) {  // a NIC's cable
            const auto leaf = static_cast<std::size_t>(ia != index.end() ? ia->second : ib->second);
            ++nics[leaf];
            nic_propagation[leaf] = std::max(nic_propagation[leaf], l.propagation);
        }
    }

    PathExtremes out;
    const std::size_t n = switches.size();
    std::vector<int> hops(n);
    std::vector<Time> latency(n);
    for (std::size_t src = 0; src < n; ++src) {
        if (nics[src] == 0) continue;
        // Hops: breadth-first.
        std::fill(hops.begin(), hops.end(), -1);
        std::deque<std::size_t> queue{src};
        hops[src] = 0;
        while (!queue.empty()) {
            const std::size_t x = queue.front();
            queue.pop_front();
            for (const Edge& e : adjacency[x])
                if (hops[static_cast<std::size_t>(e.to)] < 0) {
                    hops[static_cast<std::size_t>(e.to)] = hops[x] + 1;
                    queue.push_back(static_cast<std::size_t>(e.to));
                }
        }
        // Latency: Dijkstra, starting with the source leaf's own latency.
        std::fill(latency.begin(), latency.end(), Time::max());
        using Item = std::pair<Time, std::size_t>;
        std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
        latency[src] = t.node(switches[src]).forwarding_latency;
        heap.push({latency[src], src});
        while (!heap.empty()) {
            const auto [d, x] = heap.top();
            heap.pop();
            if (d > latency[x]) continue;
            for (const Edge& e : adjacency[x]) {
                const auto y = static_cast<std::size_t>(e.to);
                if (d + e.cost < latency[y]) {
                    latency[y] = d + e.cost;
                    heap.push({latency[y], y});
                }
            }
        }
        for (std::size_t dst = 0; dst < n; ++dst) {
            if (nics[dst] == 0 || hops[dst] < 0 || (dst == src && nics[src] < 2)) continue;
            out.diameter_hops = std::max(out.diameter_hops, hops[dst] + 2);
            out.max_latency = std::max(out.max_latency, latency[dst] + nic_propagation[src] + nic_propagation[dst]);
        }
    }
    return out;
}

}  // namespace

Bandwidth max_flow(const Topology& t, const std::vector<NodeId>& from, const std::vector<NodeId>& to,
                   const std::vector<LinkType>& types) {
    using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
    using Graph = boost::adjacency_list<
        boost::vecS, boost::vecS, boost::directedS, boost::no_property,
        boost::property<boost::edge_capacity_t, std::int64_t,
                        boost::property<boost::edge_residual_capacity_t, std::int64_t,
                                        boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
    if (from.empty() || to.empty()) return Bandwidth::zero();

    const auto n = t.nodes().size();
    Graph g(n + 2);
    const auto source = n, sink = n + 1;
    auto capacity = boost::get(boost::edge_capacity, g);
    auto reverse = boost::get(boost::edge_reverse, g);
    // An arc u -> v of capacity c with its zero-capacity reverse arc, as push-relabel wants.
    const auto arc = [&](std::size_t u, std::size_t v, std::int64_t c) {
        const auto e = boost::add_edge(u, v, g).first;
        const auto r = boost::add_edge(v, u, g).first;
        capacity[e] = c;
        capacity[r] = 0;
        reverse[e] = r;
        reverse[r] = e;
    };
    // A terminal can send (receive) at most what its own links carry: that bounds the source
    // and sink arcs without the sum of "infinite" capacities overflowing 64 bits.
    std::vector<std::int64_t> incident(n, 0);
    for (const Link& l : t.links()) {
        if (std::find(types.begin(), types.end(), l.type) == types.end()) continue;
        const std::int64_t c = l.bandwidth.bits_per_second();
        arc(l.a.value(), l.b.value(), c);
        arc(l.b.value(), l.a.value(), c);
        incident[l.a.value()] += c;
        incident[l.b.value()] += c;
    }
    for (NodeId v : from) arc(source, v.value(), incident[v.value()]);
    for (NodeId v : to) arc(v.value(), sink, incident[v.value()]);
    const std::int64_t flow = boost::push_relabel_max_flow(g, source, sink);
    return Bandwidth::bps(flow);
}

TopologySummary summarize(const Topology& t, const scenario::ClusterSpec& cluster) {
    TopologySummary s;
    const std::vector<FabricPlan> plans = plan_compute_fabric(cluster);
    s.requested_topology = std::string(topology_name(cluster.fabric.topology));
    const bool custom = cluster.fabric.topology == scenario::TopologyKind::custom;
    s.topology = custom ? "custom" : plans.empty() ? "none" : std::string(topology_name(plans.front().kind));
    s.technology = cluster.fabric.technology == scenario::Technology::infiniband ? "infiniband" : "roce";
    s.planes = custom ? 1 : static_cast<int>(plans.size());  // a custom fabric is one graph
    s.servers = static_cast<int>(t.servers().size());
    s.ranks = static_cast<int>(t.ranks().size());
    s.gpus = static_cast<int>(t.count(NodeKind::gpu));
    s.nics = static_cast<int>(t.count(NodeKind::nic));
    s.storage_nics = static_cast<int>(t.count(NodeKind::storage_nic));
    s.storage_nodes = static_cast<int>(t.count(NodeKind::storage_node));
    s.clients = static_cast<int>(t.clients().size());
    for (NodeId c : t.clients()) s.client_nics += static_cast<int>(t.node(c).ports.size());
    s.nvswitches = static_cast<int>(t.count(NodeKind::nvswitch));
    s.pcie_switches = static_cast<int>(t.count(NodeKind::pcie_switch));
    s.link_speed = fabric_link_rate(cluster);
    if (custom) {
        // The fastest switch-switch cable (each link has its own speed), and the ports each
        // switch was given (radix: the largest).
        s.link_speed = Bandwidth::zero();
        for (const Link& l : t.links())
            if (l.type == LinkType::fabric && is_fabric_switch(t.node(l.a).kind) && is_fabric_switch(t.node(l.b).kind))
                s.link_speed = std::max(s.link_speed, l.bandwidth);
        for (const Node& n : t.nodes())
            if (compute_switch(n)) s.radix = std::max(s.radix, static_cast<int>(n.radix));
    }
    if (!plans.empty()) {
        s.radix = plans.front().radix;
        s.leaf_down = plans.front().leaf.down;
        s.leaf_up = plans.front().leaf.up;
        s.leaf_spare = plans.front().leaf.spare;
        s.max_servers = plans.front().max_servers;
        for (const FabricPlan& p : plans) s.max_servers = std::min(s.max_servers, p.max_servers);
    }

    for (const Node& n : t.nodes()) {
        if (!is_fabric_switch(n.kind)) continue;
        SwitchCounts& c = n.storage_fabric ? s.storage_switches : s.switches;
        if (n.kind == NodeKind::leaf) ++c.leaf;
        if (n.kind == NodeKind::spine) ++c.spine;
        if (n.kind == NodeKind::core) ++c.core;
        const int ports = custom && !n.storage_fabric ? static_cast<int>(n.radix) : s.radix;
        if (!n.storage_fabric) s.spare_ports += std::max(ports - static_cast<int>(n.ports.size()), 0);
    }

    for (const Link& l : t.links()) {
        ++s.links[std::string(to_string(l.type))];
        ++s.link_classes[l.link_class];
        if (l.type != LinkType::fabric && l.type != LinkType::storage_fabric) continue;
        if (l.medium == Medium::optical) {
            ++s.cables.optical;
            s.cables.transceivers += 2;
        } else {
            ++s.cables.copper;
        }
        ++s.cables.by_tier[(l.type == LinkType::storage_fabric ? "storage-" : "") + tier_name(l.tier)];
    }

    // Oversubscription: the busiest switch of each tier that has uplinks.
    for (NodeKind kind : {NodeKind::leaf, NodeKind::spine}) {
        double worst = 0.0;
        const int level = tier_of(kind);
        for (std::uint32_t i = 0; i < t.nodes().size(); ++i) {
            const Node& n = t.nodes()[i];
            if (n.kind != kind || n.storage_fabric) continue;
            std::int64_t down = 0, up = 0;
            for (const Port& p : n.ports) {
                const Link& l = t.link(p.link);
                (l.tier == level ? down : up) += l.bandwidth.bits_per_second();
            }
            if (up > 0) worst = std::max(worst, static_cast<double>(down) / static_cast<double>(up));
        }
        if (worst > 0.0) s.oversubscription.push_back({std::string(to_string(kind)), worst});
    }

    // Bisection: the first half of the servers against the second.
    std::vector<NodeId> left, right;
    const std::size_t half = t.servers().size() / 2;
    for (std::size_t i = 0; i < t.servers().size(); ++i)
        for (NodeId nic : t.servers()[i].nics) (i < half ? left : right).push_back(nic);
    if (half > 0) s.bisection = max_flow(t, left, right, {LinkType::fabric});

    const PathExtremes paths = path_extremes(t);
    s.diameter_hops = paths.diameter_hops;
    s.max_nic_to_nic_latency = paths.max_latency;

    if (!t.servers().empty() && !t.servers().front().gpus.empty()) {
        const Node& gpu = t.node(t.servers().front().gpus.front());
        for (const Port& p : gpu.ports)
            if (t.link(p.link).type == LinkType::nvlink) s.nvlink_per_gpu = s.nvlink_per_gpu + t.link(p.link).bandwidth;
    }
    return s;
}

std::string to_dot(const Topology& t, bool expand_servers) {
    // Vertex of each node: its server when collapsed, else its own name.
    const auto vertex = [&](NodeId id) {
        const Node& n = t.node(id);
        if (!expand_servers && n.server.valid()) return fmt::format("s{}", n.server.value());
        return n.name;
    };
    std::string out = "graph fabricsim {\n  graph [overlap=false, splines=true];\n  node [shape=box, fontsize=10];\n";
    for (std::size_t i = 0; i < t.servers().size() && !expand_servers; ++i) {
        const ServerInfo& info = t.servers()[i];
        out += fmt::format("  \"s{}\" [label=\"s{}\\n{} GPU, {} NIC\"];\n", i, i, info.gpus.size(), info.nics.size());
    }
    for (const Node& n : t.nodes()) {
        if (!expand_servers && n.server.valid()) continue;
        const char* shape = is_fabric_switch(n.kind) || n.kind == NodeKind::nvswitch || n.kind == NodeKind::pcie_switch
                                ? "ellipse"
                                : "box";
        out += fmt::format("  \"{}\" [shape={}];\n", n.name, shape);
    }
    // Parallel links once, with their count and class.
    std::map<std::tuple<std::string, std::string, std::string>, int> edges;
    for (const Link& l : t.links()) {
        std::string a = vertex(l.a), b = vertex(l.b);
        if (a == b) continue;
        if (b < a) std::swap(a, b);
        ++edges[{a, b, l.link_class}];
    }
    for (const auto& [key, n] : edges) {
        const auto& [a, b, cls] = key;
        out += fmt::format("  \"{}\" -- \"{}\" [label=\"{}{}\"];\n", a, b, n > 1 ? fmt::format("{} x ", n) : "", cls);
    }
    return out + "}\n";
}

}  // namespace fabricsim::fabric
