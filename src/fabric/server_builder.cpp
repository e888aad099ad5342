// Inside the servers: host CPU, PCIe switches, GPUs, NVSwitches, NICs; and the ranks.
// See topology_builder.hpp for the wiring rules.
#include "fabric/link_classes.hpp"
#include "fabric/topology_builder.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace fabricsim::fabric::detail {

namespace {

[[noreturn]] void bad(std::string key_path, std::string message) {
    throw_config_error(std::move(key_path), std::move(message));
}

Link board_link(const LinkClass& c) {
    Link l;
    l.type = c.type;
    l.link_class = c.name;
    l.bandwidth = c.bandwidth;
    l.efficiency = c.efficiency;
    l.length = kBoardTrace;
    l.propagation = propagation_delay(kBoardTrace);
    l.medium = Medium::board;
    return l;
}

// Links from each GPU to switch i: the spec's split, or the links spread evenly (the first
// `links mod switches` switches take one more).
std::vector<int> nvlink_split(const scenario::NvlinkSpec& nv) {
    if (!nv.split.empty()) {
        if (static_cast<int>(nv.split.size()) != nv.switches)
            bad("cluster.server.nvlink.split",
                fmt::format("{} entries for {} NVSwitch chips; give one link count per switch", nv.split.size(),
                            nv.switches));
        const int sum = std::accumulate(nv.split.begin(), nv.split.end(), 0);
        if (sum != nv.links_per_gpu || std::any_of(nv.split.begin(), nv.split.end(), [](int n) { return n < 0; }))
            bad("cluster.server.nvlink.split",
                fmt::format("the split adds up to {} links, but each GPU has {} (links_per_gpu)", sum,
                            nv.links_per_gpu));
        return nv.split;
    }
    std::vector<int> split(static_cast<std::size_t>(nv.switches), nv.links_per_gpu / nv.switches);
    for (int i = 0; i < nv.links_per_gpu % nv.switches; ++i) ++split[static_cast<std::size_t>(i)];
    return split;
}

Node server_node(NodeKind kind, int server, std::string_view what, int index) {
    Node n;
    n.kind = kind;
    n.name = index < 0 ? fmt::format("s{}.{}", server, what) : fmt::format("s{}.{}{}", server, what, index);
    n.server = ServerId{static_cast<ServerId::rep>(server)};
    n.local_index = static_cast<std::uint32_t>(std::max(index, 0));
    return n;
}

}  // namespace

void build_servers(Topology& topology, const scenario::ClusterSpec& cluster) {
    const scenario::ServerSpec& spec = cluster.server;
    const int gpus = spec.gpus;
    const int nics = spec.nics;
    const int pcie_switches = spec.pcie.switches;
    const int planes = std::max(cluster.fabric.planes, 1);
    const scenario::NvlinkSpec& nv = spec.nvlink;
    const bool nvlink = gpus > 0 && nv.links_per_gpu > 0;

    if (cluster.servers < 1)
        bad("cluster.servers", fmt::format("expected at least 1 server, found {}", cluster.servers));
    if (gpus < 0) bad("cluster.server.gpus", fmt::format("expected 0 or more GPUs, found {}", gpus));
    if (nics < 0) bad("cluster.server.nics", fmt::format("expected 0 or more NICs, found {}", nics));
    if (nics == 0 && cluster.servers > 1)
        bad("cluster.server.nics", fmt::format("servers without NICs cannot reach each other; {} servers need at least "
                                               "1 NIC each",
                                               cluster.servers));
    if (pcie_switches < 0)
        bad("cluster.server.pcie.switches", fmt::format("expected 0 or more PCIe switches, found {}", pcie_switches));
    if (nvlink && nv.switches == 0 && gpus % 2 != 0)
        bad("cluster.server.nvlink.switches",
            fmt::format("without NVSwitch chips the GPUs are bridged in pairs, but the server has {} GPUs", gpus));
    const std::vector<int> split = nvlink && nv.switches > 0 ? nvlink_split(nv) : std::vector<int>{};

    const LinkClass pcie = pcie_class(spec.pcie.generation, spec.pcie.lanes);
    const LinkClass nic_pcie = pcie_class(std::min(spec.nic.pcie_generation, spec.pcie.generation),
                                          std::min(spec.nic.pcie_lanes, spec.pcie.lanes));
    const LinkClass storage_pcie = pcie_class(std::min(spec.storage_nic.pcie_generation, spec.pcie.generation),
                                              std::min(spec.storage_nic.pcie_lanes, spec.pcie.lanes));
    const LinkClass nvl = nvlink ? nvlink_class(nv.generation, nv.link_bandwidth) : LinkClass{};
    const int storage_nics = cluster.storage_fabric.enabled ? spec.storage_nics : 0;
    const int socket_count = std::clamp(spec.host.sockets, 1, 2);
    // The socket interconnect as a board link of its own class, at host.socket_link per direction.
    const LinkClass socket_link{"socket-link", LinkType::pcie, spec.host.socket_link, 1.0};

    topology.servers().reserve(static_cast<std::size_t>(cluster.servers));
    for (int s = 0; s < cluster.servers; ++s) {
        ServerInfo info;
        info.host = topology.add_node(server_node(NodeKind::host, s, "cpu", -1));
        // A second socket: its own root complex "s<n>.cpu1", joined to the first by the socket
        // interconnect (UPI, Infinity Fabric), which paths between the sockets' devices cross.
        std::vector<NodeId> sockets{info.host};
        if (socket_count == 2) {
            sockets.push_back(topology.add_node(server_node(NodeKind::host, s, "cpu", 1)));
            topology.add_link(info.host, sockets[1], board_link(socket_link));
        }

        for (int i = 0; i < pcie_switches; ++i) {
            Node n = server_node(NodeKind::pcie_switch, s, "pcisw", i);
            n.forwarding_latency = pcie_switch_latency(spec.pcie.generation);
            const NodeId id = topology.add_node(std::move(n));
            topology.add_link(sockets[static_cast<std::size_t>(i * socket_count / pcie_switches)], id,
                              board_link(pcie));
            info.pcie_switches.push_back(id);
        }
        // The PCIe switch (or the socket's root complex) that device `i` of `count` hangs off.
        const auto pcie_parent = [&](int i, int count) {
            if (pcie_switches == 0) return sockets[static_cast<std::size_t>(i * socket_count / count)];
            return info.pcie_switches[static_cast<std::size_t>(i * pcie_switches / count)];
        };

        for (int g = 0; g < gpus; ++g) {
            const NodeId id = topology.add_node(server_node(NodeKind::gpu, s, "gpu", g));
            topology.add_link(pcie_parent(g, gpus), id, board_link(pcie));
            info.gpus.push_back(id);
        }

        for (int i = 0; nvlink && i < nv.switches; ++i) {
            Node n = server_node(NodeKind::nvswitch, s, "nvsw", i);
            n.forwarding_latency = nvswitch_latency(nv.generation);
            info.nvswitches.push_back(topology.add_node(std::move(n)));
        }
        if (nvlink && nv.switches > 0) {
            for (int g = 0; g < gpus; ++g)
                for (int i = 0; i < nv.switches; ++i)
                    for (int k = 0; k < split[static_cast<std::size_t>(i)]; ++k)
                        topology.add_link(info.gpus[static_cast<std::size_t>(g)],
                                          info.nvswitches[static_cast<std::size_t>(i)], board_link(nvl));
        } else if (nvlink) {
            for (int g = 0; g + 1 < gpus; g += 2)
                for (int k = 0; k < nv.links_per_gpu; ++k)
                    topology.add_link(info.gpus[static_cast<std::size_t>(g)],
                                      info.gpus[static_cast<std::size_t>(g + 1)], board_link(nvl));
        }

        for (int i = 0; i < nics; ++i) {
            Node n = server_node(NodeKind::nic, s, "nic", i);
            n.rail = static_cast<std::uint32_t>(i);
            n.plane = static_cast<std::uint32_t>(i % planes);
            n.buffer = spec.nic.receive_buffer;
            n.forwarding_latency = spec.nic.offload_latency;  // an RNIC's TCP engine (docs/models/iwarp.md)
            const NodeId id = topology.add_node(std::move(n));
            topology.add_link(pcie_parent(i, nics), id, board_link(nic_pcie));
            info.nics.push_back(id);
        }
        for (int i = 0; i < storage_nics; ++i) {
            Node n = server_node(NodeKind::storage_nic, s, "snic", i);
            n.buffer = spec.storage_nic.receive_buffer;
            const NodeId id = topology.add_node(std::move(n));
            topology.add_link(info.host, id, board_link(storage_pcie));
            info.storage_nics.push_back(id);
        }

        const int ranks = spec.ranks();
        for (int g = 0; g < ranks; ++g) {
            RankInfo r;
            r.rank = RankId{static_cast<RankId::rep>(s * ranks + g)};
            r.server = ServerId{static_cast<ServerId::rep>(s)};
            r.local_index = static_cast<std::uint32_t>(g);
            r.gpu = gpus > 0 ? info.gpus[static_cast<std::size_t>(g)] : info.host;
            if (nics > 0) {
                const int rail = g * nics / ranks;
                r.rail = static_cast<std::uint32_t>(rail);
                r.nic = info.nics[static_cast<std::size_t>(rail)];
            }
            topology.ranks().push_back(r);
        }
        topology.servers().push_back(std::move(info));
    }
}

}  // namespace fabricsim::fabric::detail
