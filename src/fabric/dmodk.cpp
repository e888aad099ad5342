#include "fabric/dmodk.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <tuple>
#include <utility>

namespace fabricsim::fabric {

namespace {

bool is_fabric_link(LinkType t) { return t == LinkType::fabric || t == LinkType::storage_fabric; }

constexpr int max_tier = 3;

// Ports of `node` that lead to a fabric switch of a higher tier.
std::uint32_t up_fan_out(const Topology& topology, NodeId node) {
    const Node& n = topology.node(node);
    const int tier = is_fabric_switch(n.kind) ? fabric_tier(n.kind) : 0;
    std::uint32_t up = 0;
    for (const Port& p : n.ports) {
        const NodeKind peer = topology.node(p.peer).kind;
        if (is_fabric_link(topology.link(p.link).type) && is_fabric_switch(peer) && fabric_tier(peer) > tier) ++up;
    }
    return up;
}

std::uint32_t saturate(std::uint64_t v) {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(v, std::numeric_limits<std::uint32_t>::max()));
}

}  // namespace

int fabric_tier(NodeKind kind) {
    switch (kind) {
        case NodeKind::leaf: return 1;
        case NodeKind::spine: return 2;
        case NodeKind::core: return 3;
        default: return 0;
    }
}

DmodkPlan plan_dmodk(const Topology& topology, std::span<const NodeId> endpoints,
                     std::span<const std::uint32_t> endpoint_component, std::span<const NodeId> switches,
                     std::span<const std::uint32_t> switch_component) {
    std::uint32_t components = 0;
    for (std::uint32_t c : endpoint_component) components = std::max(components, c + 1);
    for (std::uint32_t c : switch_component) components = std::max(components, c + 1);

    // w[c][t]: the largest up-fan-out among tier-t nodes of fabric c (uniform in a fat tree).
    std::vector<std::array<std::uint32_t, max_tier + 1>> w(components, {1, 1, 1, 1});
    std::vector<std::array<bool, max_tier + 1>> seen(components, {false, false, false, false});
    auto note = [&](std::uint32_t c, int tier, std::uint32_t up) {
        if (up == 0) return;
        w[c][tier] = seen[c][tier] ? std::max(w[c][tier], up) : up;
        seen[c][tier] = true;
    };
    for (std::size_t e = 0; e < endpoints.size(); ++e)
        note(endpoint_component[e], 0, up_fan_out(topology, endpoints[e]));
    for (std::size_t s = 0; s < switches.size(); ++s)
        note(switch_component[s], fabric_tier(topology.node(switches[s]).kind), up_fan_out(topology, switches[s]));

    auto divisor = [&](std::uint32_t c, int below) {  // w_0 ... w_{below-1}
        std::uint64_t d = 1;
        for (int t = 0; t < below; ++t)
            d = std::min<std::uint64_t>(d * w[c][t], std::numeric_limits<std::uint32_t>::max());
        return saturate(d);
    };

    DmodkPlan plan;
    plan.up_divisor.resize(switches.size());
    plan.down_divisor.resize(switches.size());
    for (std::size_t s = 0; s < switches.size(); ++s) {
        const int tier = fabric_tier(topology.node(switches[s]).kind);
        plan.up_divisor[s] = divisor(switch_component[s], tier);
        plan.down_divisor[s] = divisor(switch_component[s], std::max(tier - 1, 0));
    }

    // Number endpoints by the (switch, switch port) they hang off, fabric by fabric.
    struct Key {
        std::uint32_t component, sw, port, endpoint;
    };
    std::vector<Key> keys;
    keys.reserve(endpoints.size());
    for (std::size_t e = 0; e < endpoints.size(); ++e) {
        Key k{endpoint_component[e], std::numeric_limits<std::uint32_t>::max(), 0, static_cast<std::uint32_t>(e)};
        for (const Port& p : topology.node(endpoints[e]).ports) {
            if (!is_fabric_link(topology.link(p.link).type) || !is_fabric_switch(topology.node(p.peer).kind)) continue;
            if (std::pair(p.peer.value(), p.peer_port) < std::pair(k.sw, k.port)) {
                k.sw = p.peer.value();
                k.port = p.peer_port;
            }
        }
        keys.push_back(k);
    }
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
        return std::tie(a.component, a.sw, a.port, a.endpoint) < std::tie(b.component, b.sw, b.port, b.endpoint);
    });
    plan.index.resize(endpoints.size());
    std::uint32_t next = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (i > 0 && keys[i].component != keys[i - 1].component) next = 0;
        plan.index[keys[i].endpoint] = next++;
    }
    return plan;
}

}  // namespace fabricsim::fabric
