#include "fabric/topology.hpp"

#include "core/errors.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

std::string_view to_string(NodeKind kind) {
    switch (kind) {
        case NodeKind::gpu: return "gpu";
        case NodeKind::nvswitch: return "nvswitch";
        case NodeKind::pcie_switch: return "pcie_switch";
        case NodeKind::host: return "host";
        case NodeKind::nic: return "nic";
        case NodeKind::storage_nic: return "storage_nic";
        case NodeKind::leaf: return "leaf";
        case NodeKind::spine: return "spine";
        case NodeKind::core: return "core";
        case NodeKind::storage_node: return "storage_node";
        case NodeKind::client: return "client";
    }
    return "unknown";
}

bool is_fabric_switch(NodeKind kind) {
    return kind == NodeKind::leaf || kind == NodeKind::spine || kind == NodeKind::core;
}

std::string_view to_string(LinkType type) {
    switch (type) {
        case LinkType::nvlink: return "nvlink";
        case LinkType::pcie: return "pcie";
        case LinkType::fabric: return "fabric";
        case LinkType::storage_fabric: return "storage_fabric";
    }
    return "unknown";
}

std::string_view to_string(Medium medium) {
    switch (medium) {
        case Medium::board: return "board";
        case Medium::copper: return "copper";
        case Medium::optical: return "optical";
    }
    return "unknown";
}

Bandwidth Link::payload_bandwidth() const {
    return Bandwidth::bps(static_cast<std::int64_t>(static_cast<double>(bandwidth.bits_per_second()) * efficiency));
}

NodeId Topology::add_node(Node node) {
    nodes_.push_back(std::move(node));
    return NodeId{static_cast<NodeId::rep>(nodes_.size() - 1)};
}

LinkId Topology::add_link(NodeId a, NodeId b, Link properties) {
    if (a.value() >= nodes_.size() || b.value() >= nodes_.size() || a == b)
        throw InternalError(
            fmt::format("Topology::add_link({}, {}) with {} nodes", a.value(), b.value(), nodes_.size()));
    const LinkId id{static_cast<LinkId::rep>(links_.size())};
    properties.a = a;
    properties.b = b;
    properties.a_port = static_cast<std::uint32_t>(nodes_[a.value()].ports.size());
    properties.b_port = static_cast<std::uint32_t>(nodes_[b.value()].ports.size());
    nodes_[a.value()].ports.push_back(Port{id, b, properties.b_port});
    nodes_[b.value()].ports.push_back(Port{id, a, properties.a_port});
    links_.push_back(std::move(properties));
    return id;
}

NodeId Topology::source(DirectedLink d) const {
    const Link& l = link(d.link);
    return d.reverse ? l.b : l.a;
}

NodeId Topology::target(DirectedLink d) const {
    const Link& l = link(d.link);
    return d.reverse ? l.a : l.b;
}

DirectedLink Topology::egress(NodeId node, std::uint32_t port) const {
    const Port& p = nodes_[node.value()].ports.at(port);
    return DirectedLink{p.link, link(p.link).a != node};
}

NodeId Topology::endpoint_node(RankId e) const {
    std::size_t i = e.value();
    if (i < ranks_.size()) return ranks_[i].gpu;
    i -= ranks_.size();
    if (i < storage_nodes_.size()) return storage_nodes_[i];
    i -= storage_nodes_.size();
    if (i < clients_.size()) return clients_[i];
    throw ModelError(fmt::format("endpoint {} is past the topology's {} ranks, {} storage nodes and {} clients",
                                 e.value(), ranks_.size(), storage_nodes_.size(), clients_.size()));
}

std::size_t Topology::count(NodeKind kind) const {
    return static_cast<std::size_t>(
        std::count_if(nodes_.begin(), nodes_.end(), [kind](const Node& n) { return n.kind == kind; }));
}

}  // namespace fabricsim::fabric
