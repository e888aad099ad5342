// Routing: resolving a flow's hops and applying the policy (routing.hpp). The tables are built
// by routing_server_tables.cpp and routing_fabric_tables.cpp.
#include "fabric/routing.hpp"

#include "core/errors.hpp"
#include "fabric/dmodk.hpp"
#include "fabric/ecmp_hash.hpp"
#include "fabric/routing_tables.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace fabricsim::fabric {

using routing_detail::none;
using routing_detail::RoutingTables;
using scenario::RoutingKind;

namespace {

// The egress ports at one node for one flow, and what kind of hop it is.
struct Hop {
    std::span<const std::uint32_t> ports;
    bool in_server = false;  // NVLink / PCIe: striped
    NodeId ingress;          // fabric hops: the endpoint the flow enters the destination by
};

// Where a flow leaves its source server and enters its destination server.
struct Gateways {
    NodeId egress, ingress;
};

// An endpoint's connected fabric; every_fabric for one attached to several (a storage node or
// client host on every plane of the compute fabric, routing_fabric_tables.cpp), which shares
// all of them.
constexpr std::uint32_t every_fabric = none - 1;

std::uint32_t component(const RoutingTables& t, NodeId endpoint) {
    return t.fabric.component[t.nodes[endpoint.value()].endpoint];
}

bool same_fabric(std::uint32_t a, std::uint32_t b) { return a == b || a == every_fabric || b == every_fabric; }

std::span<const NodeId> gateways(const RoutingTables& t, std::uint32_t server) {
    const auto& st = t.server;
    return {st.gateways.data() + st.gateway_offset[server], st.gateway_offset[server + 1] - st.gateway_offset[server]};
}

// One of the server's gateways on fabric `comp` (any fabric: none), chosen by a hash of the
// flow (only GPU-less sources and destinations without a rank's NIC get here).
NodeId pick_gateway(const RoutingTables& t, std::uint32_t server, std::uint32_t comp, const FlowKey& f) {
    if (server == none) return NodeId::invalid();
    const auto all = gateways(t, server);
    std::size_t matching = 0;
    for (NodeId g : all) matching += comp == none || same_fabric(component(t, g), comp);
    if (matching == 0) return NodeId::invalid();
    if (matching == 1) {
        for (NodeId g : all)
            if (comp == none || same_fabric(component(t, g), comp)) return g;
    }
    const std::uint64_t hash = ecmp::flow_hash(t.seed ^ 0x9a7e3a75ULL, f.src.value(), f.dst.value(), f.qp);
    std::size_t k = ecmp::pick(hash, matching);
    for (NodeId g : all) {
        if (comp != none && !same_fabric(component(t, g), comp)) continue;
        if (k-- == 0) return g;
    }
    return NodeId::invalid();
}

NodeId rank_nic(const RoutingTables& t, NodeId node) {
    const std::uint32_t nic = t.nodes[node.value()].rank_nic;
    return nic != none && t.nodes[nic].endpoint != none ? NodeId{nic} : NodeId::invalid();
}

Gateways resolve(const RoutingTables& t, const FlowKey& f) {
    const routing_detail::NodeRoute& s = t.nodes[f.src.value()];
    const routing_detail::NodeRoute& d = t.nodes[f.dst.value()];

    const bool src_is_endpoint = s.endpoint != none;
    NodeId egress = src_is_endpoint ? f.src : rank_nic(t, f.src);
    if (!egress.valid()) egress = pick_gateway(t, s.server, none, f);

    if (d.endpoint != none) {
        if (egress.valid() && !src_is_endpoint && !same_fabric(component(t, egress), component(t, f.dst)))
            egress = pick_gateway(t, s.server, component(t, f.dst), f);
        return {egress, f.dst};
    }
    NodeId ingress = rank_nic(t, f.dst);
    if (!ingress.valid()) ingress = pick_gateway(t, d.server, none, f);
    if (!egress.valid() || !ingress.valid() || same_fabric(component(t, ingress), component(t, egress)))
        return {egress, ingress};

    // The NICs sit on different fabrics (planes, rails without spines, a storage fabric):
    // enter the destination server on the egress NIC's fabric, by the same rail if possible.
    const std::uint32_t comp = component(t, egress);
    const Node& e = t.topology->node(egress);
    for (NodeId g : gateways(t, d.server)) {
        const Node& n = t.topology->node(g);
        if (same_fabric(component(t, g), comp) && n.kind == e.kind && n.local_index == e.local_index)
            return {egress, g};
    }
    if (NodeId g = pick_gateway(t, d.server, comp, f); g.valid()) return {egress, g};
    if (!src_is_endpoint) {
        for (NodeId out : gateways(t, s.server))
            if (NodeId in = pick_gateway(t, d.server, component(t, out), f); in.valid()) return {out, in};
    }
    return {egress, ingress};  // no common fabric: no route
}

std::span<const std::uint32_t> server_ports(const RoutingTables& t, NodeId at, NodeId to) {
    const routing_detail::NodeRoute& a = t.nodes[at.value()];
    const std::uint32_t layout = t.server.layout[a.server];
    const std::uint32_t L = t.server.layout_size[layout];
    return t.lists.get(t.server.table[t.server.layout_offset[layout] + static_cast<std::size_t>(a.local) * L +
                                      t.nodes[to.value()].local]);
}

// From a fabric switch or a source endpoint towards the ingress endpoint.
std::span<const std::uint32_t> fabric_ports(const RoutingTables& t, NodeId at, NodeId ingress) {
    if (!ingress.valid()) return {};
    const auto& ft = t.fabric;
    const routing_detail::NodeRoute& a = t.nodes[at.value()];
    const std::uint32_t e = t.nodes[ingress.value()].endpoint;
    if (a.sw != none) {
        for (std::uint32_t i = ft.attach_offset[e]; i < ft.attach_offset[e + 1]; ++i)
            if (ft.attach_switch[i] == at) return t.lists.get(ft.attach_ports[i]);
        return t.lists.get(ft.table[static_cast<std::size_t>(a.sw) * ft.groups + ft.group[e]]);
    }
    if (a.endpoint == none || !same_fabric(ft.component[a.endpoint], ft.component[e])) return {};
    if (ft.multi[a.endpoint] != none)
        return t.lists.get(ft.multi_table[static_cast<std::size_t>(ft.multi[a.endpoint]) * ft.groups + ft.group[e]]);
    return t.lists.get(ft.own_ports[a.endpoint]);
}

Hop hop(const RoutingTables& t, NodeId at, const FlowKey& f) {
    if (at == f.dst) return {};
    const routing_detail::NodeRoute& a = t.nodes[at.value()];
    const routing_detail::NodeRoute& s = t.nodes[f.src.value()];
    const routing_detail::NodeRoute& d = t.nodes[f.dst.value()];
    if (s.server != none && s.server == d.server) {  // never through the fabric
        if (a.server != s.server) return {};
        return {server_ports(t, at, f.dst), true, NodeId::invalid()};
    }
    if (d.server != none && a.server == d.server) return {server_ports(t, at, f.dst), true, NodeId::invalid()};

    const Gateways g = resolve(t, f);
    if (s.server != none && a.server == s.server) {
        if (!g.egress.valid()) return {};
        if (at != g.egress) return {server_ports(t, at, g.egress), true, NodeId::invalid()};
        return {fabric_ports(t, at, g.ingress), false, g.ingress};
    }
    if (a.sw != none || at == f.src) return {fabric_ports(t, at, g.ingress), false, g.ingress};
    return {};
}

std::uint64_t ecmp_hash(const RoutingTables& t, NodeId at, const FlowKey& f, const Hop& h) {
    const std::uint64_t seed = t.node_seed[at.value()];
    return t.technology == scenario::Technology::infiniband
               ? ecmp::flow_hash(seed, 0, h.ingress.value(), f.qp)  // LMC: a path per destination LID
               : ecmp::flow_hash(seed, f.src.value(), f.dst.value(), f.qp);
}

std::uint64_t spray_hash(const RoutingTables& t, NodeId at, const FlowKey& f, std::uint64_t seq) {
    return ecmp::packet_hash(ecmp::flow_hash(t.node_seed[at.value()], f.src.value(), f.dst.value(), f.qp), seq);
}

std::uint32_t static_index(const RoutingTables& t, NodeId at, const Hop& h) {
    const auto& ft = t.fabric;
    const std::uint32_t d = ft.dmodk.index[t.nodes[h.ingress.value()].endpoint];
    const routing_detail::NodeRoute& a = t.nodes[at.value()];
    if (a.sw == none) return dmodk_pick(d, 1, h.ports.size());  // an endpoint: tier 0
    const Topology& topo = *t.topology;
    const NodeKind peer = topo.node(topo.node(at).ports[h.ports.front()].peer).kind;
    const bool up = is_fabric_switch(peer) && fabric_tier(peer) > fabric_tier(a.kind);
    return dmodk_pick(d, up ? ft.dmodk.up_divisor[a.sw] : ft.dmodk.down_divisor[a.sw], h.ports.size());
}

// The least-queued candidate; among equally queued ones, the hash picks (so with no queues
// anywhere this is pick(hash, n), the hashed choice itself).
std::uint32_t least_loaded(const RoutingTables& t, NodeId at, const Hop& h, const PortLoad& load, std::uint64_t hash) {
    const std::size_t n = h.ports.size();
    Bytes least = load.queued(t.topology->egress(at, h.ports[0]));
    std::size_t ties = 1;
    for (std::size_t i = 1; i < n; ++i) {
        const Bytes q = load.queued(t.topology->egress(at, h.ports[i]));
        if (q < least) {
            least = q;
            ties = 1;
        } else if (q == least) {
            ++ties;
        }
    }
    std::size_t k = ecmp::pick(hash, ties);
    for (std::size_t i = 0; i < n; ++i)
        if (load.queued(t.topology->egress(at, h.ports[i])) == least && k-- == 0) return static_cast<std::uint32_t>(i);
    return 0;
}

// The candidate index a packet takes under `policy`.
std::uint32_t choose(const RoutingTables& t, RoutingKind policy, NodeId at, const FlowKey& f, const Hop& h,
                     std::uint64_t seq, const PortLoad* load) {
    if (h.ports.size() == 1) return 0;
    const std::size_t n = h.ports.size();
    if (h.in_server) {
        const std::uint64_t stripe = spray_hash(t, at, f, seq);
        return policy == RoutingKind::adaptive && load ? least_loaded(t, at, h, *load, stripe) : ecmp::pick(stripe, n);
    }
    switch (policy) {
        case RoutingKind::static_: return static_index(t, at, h);
        case RoutingKind::spray: return ecmp::pick(spray_hash(t, at, f, seq), n);
        case RoutingKind::adaptive: {
            const std::uint64_t hashed = ecmp_hash(t, at, f, h);
            return load ? least_loaded(t, at, h, *load, hashed) : ecmp::pick(hashed, n);
        }
        case RoutingKind::ecmp:
        case RoutingKind::automatic: break;
    }
    return ecmp::pick(ecmp_hash(t, at, f, h), n);
}

[[noreturn]] void no_route(const RoutingTables& t, NodeId at, const FlowKey& f) {
    const Topology& topo = *t.topology;
    throw ModelError(fmt::format("routing: no route from {} to {} (qp {}) at {}", topo.node(f.src).name,
                                 topo.node(f.dst).name, f.qp, topo.node(at).name));
}

void shrink(RoutingTables& t) {
    auto fit = [](auto&... v) { (v.shrink_to_fit(), ...); };
    auto& st = t.server;
    auto& ft = t.fabric;
    fit(t.nodes, t.node_seed, st.node_offset, st.nodes, st.gateway_offset, st.gateways, st.layout, st.layout_size,
        st.layout_offset, st.table, ft.switches, ft.table, ft.endpoints, ft.component, ft.group, ft.own_ports,
        ft.attach_offset, ft.attach_switch, ft.attach_ports, ft.multi, ft.multi_table, ft.dmodk.index,
        ft.dmodk.up_divisor, ft.dmodk.down_divisor);
}

// The single-path policy that path() follows: adaptive and spray take their ecmp path.
RoutingKind path_policy(RoutingKind p) {
    return p == RoutingKind::adaptive || p == RoutingKind::spray ? RoutingKind::ecmp : p;
}

}  // namespace

Routing::Routing(const Topology& topology, RoutingKind policy, scenario::Technology technology, std::uint64_t seed)
    : tables_(std::make_unique<RoutingTables>()) {
    RoutingTables& t = *tables_;
    t.topology = &topology;
    t.technology = technology;
    t.seed = seed;
    t.node_seed.resize(topology.nodes().size());
    for (std::size_t i = 0; i < t.node_seed.size(); ++i)
        t.node_seed[i] = ecmp::node_seed(seed, static_cast<std::uint32_t>(i));
    t.policy = policy != RoutingKind::automatic                 ? policy
               : technology == scenario::Technology::infiniband ? RoutingKind::static_
                                                                : RoutingKind::ecmp;
    routing_detail::build_server_tables(t);
    routing_detail::build_fabric_tables(t);
    t.lists.finish();
    shrink(t);
}

Routing::~Routing() = default;
Routing::Routing(Routing&&) noexcept = default;
Routing& Routing::operator=(Routing&&) noexcept = default;

RoutingKind Routing::policy() const { return tables_->policy; }
scenario::Technology Routing::technology() const { return tables_->technology; }

std::span<const std::uint32_t> Routing::candidates(NodeId at, NodeId dst) const {
    return candidates(at, FlowKey{at, dst, 0});
}

std::span<const std::uint32_t> Routing::candidates(NodeId at, const FlowKey& flow) const {
    return hop(*tables_, at, flow).ports;
}

std::uint32_t Routing::next_port(NodeId at, const FlowKey& flow, std::uint64_t packet_seq, const PortLoad* load) const {
    const RoutingTables& t = *tables_;
    const Hop h = hop(t, at, flow);
    if (h.ports.empty()) no_route(t, at, flow);
    return h.ports[choose(t, t.policy, at, flow, h, packet_seq, load)];
}

std::vector<DirectedLink> Routing::path(const FlowKey& flow) const {
    const RoutingTables& t = *tables_;
    const Topology& topo = *t.topology;
    const RoutingKind policy = path_policy(t.policy);
    std::vector<DirectedLink> out;
    for (NodeId at = flow.src; at != flow.dst;) {
        const Hop h = hop(t, at, flow);
        if (h.ports.empty() || out.size() > topo.nodes().size()) no_route(t, at, flow);
        const std::uint32_t port = h.ports[choose(t, policy, at, flow, h, 0, nullptr)];
        out.push_back(topo.egress(at, port));
        at = topo.node(at).ports[port].peer;
    }
    return out;
}

std::vector<DirectedLink> Routing::path(RankId from, RankId to, std::uint32_t qp) const {
    const Topology& topo = *tables_->topology;
    return path(FlowKey{topo.endpoint_node(from), topo.endpoint_node(to), qp});
}

std::vector<LinkShare> Routing::spread(const FlowKey& flow) const {
    const RoutingTables& t = *tables_;
    const Topology& topo = *t.topology;
    const bool striped_fabric = t.policy == RoutingKind::spray || t.policy == RoutingKind::adaptive;
    std::vector<LinkShare> out;
    std::vector<std::pair<NodeId, double>> level{{flow.src, 1.0}}, next;
    for (std::size_t hops = 0;; ++hops) {
        next.clear();
        bool arrived = true;
        for (const auto& entry : level) {
            const NodeId at = entry.first;
            const double share = entry.second;
            if (at == flow.dst) {
                next.emplace_back(at, share);
                continue;
            }
            arrived = false;
            const Hop h = hop(t, at, flow);
            if (h.ports.empty() || hops > topo.nodes().size()) no_route(t, at, flow);
            auto take = [&](std::uint32_t port, double s) {
                out.push_back({topo.egress(at, port), s});
                next.emplace_back(topo.node(at).ports[port].peer, s);
            };
            if (h.in_server || striped_fabric) {
                const double each = share / static_cast<double>(h.ports.size());
                for (std::uint32_t port : h.ports) take(port, each);
            } else {
                take(h.ports[choose(t, t.policy, at, flow, h, 0, nullptr)], share);
            }
        }
        if (arrived) break;
        // Merge the paths that meet at a node.
        std::sort(next.begin(), next.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        level.clear();
        for (const auto& [node, share] : next) {
            if (!level.empty() && level.back().first == node)
                level.back().second += share;
            else
                level.emplace_back(node, share);
        }
    }
    return out;
}

std::size_t Routing::table_bytes() const {
    const RoutingTables& t = *tables_;
    auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    const auto& st = t.server;
    const auto& ft = t.fabric;
    return sizeof(RoutingTables) + t.lists.bytes() + bytes(t.nodes) + bytes(t.node_seed) + bytes(st.node_offset) +
           bytes(st.nodes) + bytes(st.gateway_offset) + bytes(st.gateways) + bytes(st.layout) + bytes(st.layout_size) +
           bytes(st.layout_offset) + bytes(st.table) + bytes(ft.switches) + bytes(ft.table) + bytes(ft.endpoints) +
           bytes(ft.component) + bytes(ft.group) + bytes(ft.own_ports) + bytes(ft.attach_offset) +
           bytes(ft.attach_switch) + bytes(ft.attach_ports) + bytes(ft.multi) + bytes(ft.multi_table) +
           bytes(ft.dmodk.index) + bytes(ft.dmodk.up_divisor) + bytes(ft.dmodk.down_divisor);
}

}  // namespace fabricsim::fabric
