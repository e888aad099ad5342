#include "fabrics.hpp"

#include <fmt/format.h>

using namespace fabricsim;
using namespace fabricsim::fabric;

namespace routing_test {

namespace {

NodeId add(Topology& t, NodeKind kind, std::string name, std::uint32_t index, std::uint32_t pod = 0) {
    Node n;
    n.kind = kind;
    n.name = std::move(name);
    n.local_index = index;
    n.pod = pod;
    return t.add_node(std::move(n));
}

Link link(LinkType type, std::uint8_t tier = 0) {
    Link l;
    l.type = type;
    l.tier = tier;
    l.bandwidth = Bandwidth::Gbps(400);
    return l;
}

// Leaves over `endpoints` (consecutive groups of hosts_per_leaf) and spines joined to all.
void clos(Topology& t, const std::vector<NodeId>& endpoints, int hosts_per_leaf, int spine_count, int parallel,
          const std::string& prefix, LinkType type, std::vector<NodeId>& leaves, std::vector<NodeId>& spines) {
    const int leaf_count = static_cast<int>(endpoints.size()) / hosts_per_leaf;
    const std::size_t first_leaf = leaves.size(), first_spine = spines.size();
    for (int l = 0; l < leaf_count; ++l)
        leaves.push_back(add(t, NodeKind::leaf, fmt::format("{}leaf{}", prefix, l), static_cast<std::uint32_t>(l)));
    for (int s = 0; s < spine_count; ++s)
        spines.push_back(add(t, NodeKind::spine, fmt::format("{}spine{}", prefix, s), static_cast<std::uint32_t>(s)));
    for (int l = 0; l < leaf_count; ++l) {
        for (int h = 0; h < hosts_per_leaf; ++h)
            t.add_link(endpoints[static_cast<std::size_t>(l * hosts_per_leaf + h)], leaves[first_leaf + l],
                       link(type, 1));
        for (int s = 0; s < spine_count; ++s)
            for (int p = 0; p < parallel; ++p)
                t.add_link(leaves[first_leaf + l], spines[first_spine + s], link(type, 2));
    }
}

}  // namespace

Fabric leaf_spine(int leaves, int hosts_per_leaf, int spines, int parallel) {
    Fabric f;
    for (int h = 0; h < leaves * hosts_per_leaf; ++h)
        f.hosts.push_back(add(f.topology, NodeKind::nic, fmt::format("h{}", h), static_cast<std::uint32_t>(h)));
    clos(f.topology, f.hosts, hosts_per_leaf, spines, parallel, "", LinkType::fabric, f.leaves, f.spines);
    return f;
}

Fabric fat_tree(int k, int tiers) {
    if (tiers == 2) return leaf_spine(k, k / 2, k / 2);
    Fabric f;
    Topology& t = f.topology;
    const int h = k / 2;
    for (int p = 0; p < k; ++p)
        for (int i = 0; i < h; ++i)
            f.leaves.push_back(add(t, NodeKind::leaf, fmt::format("p{}.leaf{}", p, i), static_cast<std::uint32_t>(i),
                                   static_cast<std::uint32_t>(p)));
    for (int p = 0; p < k; ++p)
        for (int i = 0; i < h; ++i)
            f.spines.push_back(add(t, NodeKind::spine, fmt::format("p{}.agg{}", p, i), static_cast<std::uint32_t>(i),
                                   static_cast<std::uint32_t>(p)));
    for (int c = 0; c < h * h; ++c)
        f.cores.push_back(add(t, NodeKind::core, fmt::format("core{}", c), static_cast<std::uint32_t>(c)));
    for (int l = 0; l < k * h; ++l)
        for (int i = 0; i < h; ++i) {
            const NodeId host =
                add(t, NodeKind::nic, fmt::format("h{}", f.hosts.size()), static_cast<std::uint32_t>(f.hosts.size()));
            f.hosts.push_back(host);
            t.add_link(host, f.leaves[static_cast<std::size_t>(l)], link(LinkType::fabric, 1));
        }
    for (int p = 0; p < k; ++p)
        for (int l = 0; l < h; ++l)
            for (int a = 0; a < h; ++a)
                t.add_link(f.leaves[static_cast<std::size_t>(p * h + l)], f.spines[static_cast<std::size_t>(p * h + a)],
                           link(LinkType::fabric, 2));
    for (int p = 0; p < k; ++p)
        for (int a = 0; a < h; ++a)
            for (int c = 0; c < h; ++c)
                t.add_link(f.spines[static_cast<std::size_t>(p * h + a)], f.cores[static_cast<std::size_t>(a * h + c)],
                           link(LinkType::fabric, 3));
    return f;
}

Cluster hgx_cluster(int servers, const ServerShape& shape, int nics_per_leaf, int planes, int storage_nodes) {
    Cluster c;
    Topology& t = c.topology;
    std::vector<std::vector<NodeId>> plane_nics(static_cast<std::size_t>(planes));
    std::vector<NodeId> storage_endpoints;
    for (int s = 0; s < servers; ++s) {
        const ServerId sid{static_cast<ServerId::rep>(s)};
        ServerInfo info;
        auto local = [&](NodeKind kind, const char* what, int i) {
            Node n;
            n.kind = kind;
            n.name = fmt::format("s{}.{}{}", s, what, i);
            n.server = sid;
            n.local_index = static_cast<std::uint32_t>(i);
            return t.add_node(std::move(n));
        };
        info.host = local(NodeKind::host, "host", 0);
        for (int g = 0; g < shape.gpus; ++g) info.gpus.push_back(local(NodeKind::gpu, "gpu", g));
        for (std::size_t i = 0; i < shape.nvlink_split.size(); ++i)
            info.nvswitches.push_back(local(NodeKind::nvswitch, "nvswitch", static_cast<int>(i)));
        for (int i = 0; i < shape.pcie_switches; ++i)
            info.pcie_switches.push_back(local(NodeKind::pcie_switch, "pcie", i));
        for (int n = 0; n < shape.nics; ++n) info.nics.push_back(local(NodeKind::nic, "nic", n));
        for (int n = 0; n < shape.storage_nics; ++n)
            info.storage_nics.push_back(local(NodeKind::storage_nic, "snic", n));

        for (int g = 0; g < shape.gpus; ++g)
            for (std::size_t i = 0; i < shape.nvlink_split.size(); ++i)
                for (int l = 0; l < shape.nvlink_split[i]; ++l)
                    t.add_link(info.gpus[static_cast<std::size_t>(g)], info.nvswitches[i], link(LinkType::nvlink));
        // The PCIe switch of the i-th of `total` devices (GPU g on g*P/G, NIC n on n*P/N).
        auto root = [&](int i, int total) {
            return shape.pcie_switches == 0
                       ? info.host
                       : info.pcie_switches[static_cast<std::size_t>(i * shape.pcie_switches / total)];
        };
        for (NodeId sw : info.pcie_switches) t.add_link(info.host, sw, link(LinkType::pcie));
        for (int g = 0; g < shape.gpus; ++g)
            t.add_link(root(g, shape.gpus), info.gpus[static_cast<std::size_t>(g)], link(LinkType::pcie));
        for (int n = 0; n < shape.nics; ++n) {
            t.add_link(root(n, shape.nics), info.nics[static_cast<std::size_t>(n)], link(LinkType::pcie));
            plane_nics[static_cast<std::size_t>(n % planes)].push_back(info.nics[static_cast<std::size_t>(n)]);
        }
        for (NodeId n : info.storage_nics) {
            t.add_link(info.host, n, link(LinkType::pcie));
            storage_endpoints.push_back(n);
        }
        const int ranks = shape.gpus == 0 ? 1 : shape.gpus;
        for (int r = 0; r < ranks; ++r) {
            RankInfo rank;
            rank.rank = RankId{static_cast<RankId::rep>(s * ranks + r)};
            rank.server = sid;
            rank.local_index = static_cast<std::uint32_t>(r);
            rank.gpu = shape.gpus == 0 ? info.host : info.gpus[static_cast<std::size_t>(r)];
            rank.rail = static_cast<std::uint32_t>(r * shape.nics / ranks);
            rank.nic = info.nics[rank.rail];
            t.ranks().push_back(rank);
        }
        t.servers().push_back(std::move(info));
    }
    for (int p = 0; p < planes; ++p) {
        const auto& nics = plane_nics[static_cast<std::size_t>(p)];
        const int spines = nics_per_leaf;  // full bisection
        clos(t, nics, nics_per_leaf, static_cast<int>(nics.size()) > nics_per_leaf ? spines : 0, 1,
             fmt::format("pl{}.", p), LinkType::fabric, c.leaves, c.spines);
    }
    if (storage_nodes > 0) {
        for (int i = 0; i < storage_nodes; ++i) {
            const NodeId n = add(t, NodeKind::storage_node, fmt::format("storage{}", i), static_cast<std::uint32_t>(i));
            c.storage_nodes.push_back(n);
            storage_endpoints.push_back(n);
            t.storage_nodes().push_back(n);
        }
        std::vector<NodeId> sl, ss;
        clos(t, storage_endpoints, static_cast<int>(storage_endpoints.size()), 0, 1, "st.", LinkType::storage_fabric,
             sl, ss);
    }
    return c;
}

}  // namespace routing_test
