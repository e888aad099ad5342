#include "route_checks.hpp"

using namespace fabricsim::fabric;

namespace routing_test {

bool is_chain(const Topology& t, const std::vector<DirectedLink>& path, NodeId src, NodeId dst) {
    NodeId at = src;
    for (const DirectedLink& d : path) {
        if (t.source(d) != at) return false;
        at = t.target(d);
    }
    return at == dst;
}

std::vector<int> fabric_distance(const Topology& t, NodeId dst) {
    std::vector<int> dist(t.nodes().size(), -1);
    std::vector<NodeId> queue{dst};
    dist[dst.value()] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const NodeId u = queue[head];
        if (u != dst && !is_fabric_switch(t.node(u).kind)) continue;
        for (const Port& p : t.node(u).ports) {
            if (t.link(p.link).type != LinkType::fabric || dist[p.peer.value()] >= 0) continue;
            dist[p.peer.value()] = dist[u.value()] + 1;
            queue.push_back(p.peer);
        }
    }
    return dist;
}

}  // namespace routing_test
