// The channel dependency graph of the routing tables (channel_dependencies.hpp).
#include "fabric/channel_dependencies.hpp"

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

#include <algorithm>
#include <map>

namespace fabricsim::fabric {

namespace {

bool is_fabric(LinkType t) { return t == LinkType::fabric || t == LinkType::storage_fabric; }

}  // namespace

std::vector<std::string> channel_dependency_cycle(const Topology& t, const Routing& routing) {
    using Graph = boost::adjacency_list<boost::setS, boost::vecS, boost::directedS>;
    Graph g(t.directed_link_count());
    std::vector<NodeId> switches, nics;
    for (std::uint32_t i = 0; i < t.nodes().size(); ++i) {
        const Node& n = t.nodes()[i];
        if (is_fabric_switch(n.kind))
            switches.push_back(NodeId{i});
        else
            for (const Port& p : n.ports)
                if (is_fabric(t.link(p.link).type) && is_fabric_switch(t.node(p.peer).kind)) {
                    nics.push_back(NodeId{i});
                    break;
                }
    }
    // For each destination: the links each switch may forward on, then an edge from every link
    // that may bring the packet to a switch to every link it may leave that switch by.
    std::vector<std::vector<std::uint32_t>> out(t.nodes().size());
    for (NodeId dst : nics) {
        for (NodeId s : switches) {
            out[s.value()].clear();
            for (std::uint32_t port : routing.candidates(s, dst)) out[s.value()].push_back(t.egress(s, port).index());
        }
        for (NodeId u : switches)
            for (std::uint32_t in : out[u.value()]) {
                const NodeId v = t.target(DirectedLink::from_index(in));
                if (!is_fabric_switch(t.node(v).kind)) continue;
                for (std::uint32_t next : out[v.value()]) boost::add_edge(in, next, g);
            }
    }
    std::vector<int> component(boost::num_vertices(g));
    const int count = boost::strong_components(g, component.data());
    std::vector<int> size(static_cast<std::size_t>(count), 0);
    for (int c : component) ++size[static_cast<std::size_t>(c)];
    int smallest = -1;
    for (int c = 0; c < count; ++c)
        if (size[static_cast<std::size_t>(c)] > 1 &&
            (smallest < 0 || size[static_cast<std::size_t>(c)] < size[static_cast<std::size_t>(smallest)]))
            smallest = c;
    std::vector<std::string> cycle;
    if (smallest < 0) return cycle;
    for (std::uint32_t i = 0; i < component.size(); ++i)
        if (component[i] == smallest) {
            const DirectedLink d = DirectedLink::from_index(i);
            cycle.push_back(fmt::format("{}->{}", t.node(t.source(d)).name, t.node(t.target(d)).name));
        }
    return cycle;
}

std::string describe_cycle(const std::vector<std::string>& cycle) {
    if (cycle.empty()) return {};
    std::string links;
    for (const auto& c : cycle) links += (links.empty() ? "" : ", ") + c;
    return fmt::format("the routing's channel dependency graph has a cycle through {}: on a lossless fabric (PFC or "
                       "credits) this custom topology's shortest paths can deadlock (docs/models/routing.md)",
                       links);
}

}  // namespace fabricsim::fabric
