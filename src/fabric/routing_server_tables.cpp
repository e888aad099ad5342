// Level 1 of the routing tables: inside a server (routing_tables.hpp).
//
// Per destination, two BFS over the server's own links: one over NVLink, one over PCIe. A node
// that NVLink joins to a destination GPU routes over NVLink; every other pair over PCIe, so a
// GPU reaches its NICs over PCIe and never through the fabric. Only switches (NVSwitch, PCIe
// switch) and the host root complex forward: a GPU or a NIC is never a transit hop.
// Servers wired alike (same node kinds in the same order, same ports to the same local peers)
// share one layout, so a cluster of identical servers costs one L x L table.
#include "fabric/routing_tables.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace fabricsim::fabric::routing_detail {

namespace {

bool forwards_inside_server(NodeKind k) {
    return k == NodeKind::nvswitch || k == NodeKind::pcie_switch || k == NodeKind::host;
}

// A server's wiring in local terms: equal signatures, equal tables (same port numbers).
std::vector<std::uint64_t> signature(const Topology& topo, const std::vector<NodeRoute>& routes,
                                     std::span<const NodeId> local_nodes, std::uint32_t server) {
    std::vector<std::uint64_t> sig;
    for (NodeId id : local_nodes) {
        const Node& n = topo.node(id);
        sig.push_back((static_cast<std::uint64_t>(n.kind) << 32) | n.ports.size());
        for (const Port& p : n.ports) {
            const NodeRoute& peer = routes[p.peer.value()];
            const std::uint64_t local = peer.server == server ? peer.local : none;
            sig.push_back((static_cast<std::uint64_t>(topo.link(p.link).type) << 32) | local);
        }
    }
    return sig;
}

// Hop counts to `dst` over links of `type` inside the server; none where unreachable.
std::vector<std::uint32_t> distances(const Topology& topo, const std::vector<NodeRoute>& routes,
                                     std::span<const NodeId> local_nodes, std::uint32_t server, std::uint32_t dst,
                                     LinkType type) {
    std::vector<std::uint32_t> dist(local_nodes.size(), none);
    std::vector<std::uint32_t> queue{dst};
    dist[dst] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::uint32_t u = queue[head];
        const Node& n = topo.node(local_nodes[u]);
        if (u != dst && !forwards_inside_server(n.kind)) continue;
        for (const Port& p : n.ports) {
            const NodeRoute& peer = routes[p.peer.value()];
            if (peer.server != server || topo.link(p.link).type != type || dist[peer.local] != none) continue;
            dist[peer.local] = dist[u] + 1;
            queue.push_back(peer.local);
        }
    }
    return dist;
}

void build_layout(RoutingTables& t, std::span<const NodeId> local_nodes, std::uint32_t server) {
    const Topology& topo = *t.topology;
    const auto L = static_cast<std::uint32_t>(local_nodes.size());
    t.server.layout_size.push_back(L);
    t.server.layout_offset.push_back(static_cast<std::uint32_t>(t.server.table.size()));
    const std::size_t base = t.server.table.size();
    t.server.table.resize(base + static_cast<std::size_t>(L) * L, 0);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> found;  // (peer node, port)
    std::vector<std::uint32_t> ports;
    for (std::uint32_t dst = 0; dst < L; ++dst) {
        const bool to_gpu = topo.node(local_nodes[dst]).kind == NodeKind::gpu;
        const auto nv = to_gpu ? distances(topo, t.nodes, local_nodes, server, dst, LinkType::nvlink)
                               : std::vector<std::uint32_t>(L, none);
        const auto pcie = distances(topo, t.nodes, local_nodes, server, dst, LinkType::pcie);
        for (std::uint32_t at = 0; at < L; ++at) {
            if (at == dst) continue;
            const bool use_nv = nv[at] != none;
            const auto& dist = use_nv ? nv : pcie;
            if (dist[at] == none) continue;
            const LinkType type = use_nv ? LinkType::nvlink : LinkType::pcie;
            found.clear();
            const Node& n = topo.node(local_nodes[at]);
            for (std::uint32_t port = 0; port < n.ports.size(); ++port) {
                const Port& p = n.ports[port];
                const NodeRoute& peer = t.nodes[p.peer.value()];
                if (peer.server == server && topo.link(p.link).type == type && dist[peer.local] + 1 == dist[at])
                    found.emplace_back(p.peer.value(), port);
            }
            std::sort(found.begin(), found.end());
            ports.clear();
            for (const auto& f : found) ports.push_back(f.second);
            t.server.table[base + static_cast<std::size_t>(at) * L + dst] = t.lists.intern(ports);
        }
    }
}

int gateway_order(NodeKind k) { return k == NodeKind::nic ? 0 : k == NodeKind::storage_nic ? 1 : 2; }

}  // namespace

void build_server_tables(RoutingTables& t) {
    const Topology& topo = *t.topology;
    const auto& nodes = topo.nodes();
    t.nodes.assign(nodes.size(), NodeRoute{});
    std::uint32_t servers = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        t.nodes[i].kind = nodes[i].kind;
        if (nodes[i].server.valid()) {
            t.nodes[i].server = nodes[i].server.value();
            servers = std::max(servers, nodes[i].server.value() + 1);
        }
    }
    for (const RankInfo& r : topo.ranks())
        if (r.gpu.valid() && r.nic.valid()) t.nodes[r.gpu.value()].rank_nic = r.nic.value();

    // Local nodes of each server, by node id (counting sort).
    ServerTables& st = t.server;
    st.node_offset.assign(servers + 1, 0);
    for (const NodeRoute& r : t.nodes)
        if (r.server != none) ++st.node_offset[r.server + 1];
    for (std::uint32_t s = 0; s < servers; ++s) st.node_offset[s + 1] += st.node_offset[s];
    st.nodes.resize(st.node_offset[servers]);
    {
        std::vector<std::uint32_t> fill(st.node_offset.begin(), st.node_offset.end() - 1);
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            NodeRoute& r = t.nodes[i];
            if (r.server == none) continue;
            r.local = fill[r.server] - st.node_offset[r.server];
            st.nodes[fill[r.server]++] = NodeId{static_cast<NodeId::rep>(i)};
        }
    }

    // Gateways: the server's nodes with a link into a fabric switch, compute NICs first.
    st.gateway_offset.assign(1, 0);
    for (std::uint32_t s = 0; s < servers; ++s) {
        const std::size_t first = st.gateways.size();
        for (std::uint32_t i = st.node_offset[s]; i < st.node_offset[s + 1]; ++i) {
            const Node& n = topo.node(st.nodes[i]);
            const bool attached = std::any_of(n.ports.begin(), n.ports.end(), [&](const Port& p) {
                return is_fabric_link(topo.link(p.link).type) && is_fabric_switch(topo.node(p.peer).kind);
            });
            if (attached) st.gateways.push_back(st.nodes[i]);
        }
        std::stable_sort(
            st.gateways.begin() + static_cast<std::ptrdiff_t>(first), st.gateways.end(),
            [&](NodeId a, NodeId b) { return gateway_order(topo.node(a).kind) < gateway_order(topo.node(b).kind); });
        st.gateway_offset.push_back(static_cast<std::uint32_t>(st.gateways.size()));
    }

    // One table per distinct layout.
    std::map<std::vector<std::uint64_t>, std::uint32_t> layouts;
    st.layout.resize(servers);
    for (std::uint32_t s = 0; s < servers; ++s) {
        const std::span<const NodeId> local(st.nodes.data() + st.node_offset[s],
                                            st.node_offset[s + 1] - st.node_offset[s]);
        auto [it, inserted] =
            layouts.try_emplace(signature(topo, t.nodes, local, s), static_cast<std::uint32_t>(st.layout_size.size()));
        if (inserted) build_layout(t, local, s);
        st.layout[s] = it->second;
    }
}

}  // namespace fabricsim::fabric::routing_detail
