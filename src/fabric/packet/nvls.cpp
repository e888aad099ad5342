// NVLS on the packet model: collectives computed by the NVSwitches of one NVLink4+ server
// (NVIDIA's third-generation NVSwitch: "hardware acceleration for collective operations with
// multicast and NVIDIA SHARP in-network reductions", NVIDIA developer blog "Upgrading
// Multi-GPU Interconnectivity with the Third-Generation NVIDIA NVSwitch", 2022).
//
// The collective layer says how many bytes each GPU's port sends into the switches and takes
// back (in_network.cpp: all-reduce S(1+1/n) each way). Here every GPU streams its egress bytes
// to the NVSwitches over all its NVLink links, shared in proportion to the links to each
// switch, while the switches stream its ingress bytes back the same way; the operation ends
// when the last byte of every stream is in. Both directions run at once (the switch reduces
// and multicasts slices as they arrive) and the switches compute at their ports' rate: no
// NVSwitch throughput figure finer than the links' is published. The streams share the
// NVLink ports, credits and queues with any other traffic.
#include "fabric/packet/packet_network.hpp"

#include "fabric/link_classes.hpp"
#include "fabric/topology.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace fabricsim::fabric {

namespace {

// The NVSwitches a GPU reaches and over how many links, when they run NVLS (NVLink4+).
std::vector<std::pair<NodeId, int>> nvls_switches(const Topology& t, NodeId gpu) {
    std::vector<std::pair<NodeId, int>> out;
    for (const Port& p : t.node(gpu).ports) {
        const Node& peer = t.node(p.peer);
        const Link& link = t.link(p.link);
        if (peer.kind != NodeKind::nvswitch || link.type != LinkType::nvlink ||
            nvlink_generation_number(link.link_class) < 4)
            continue;
        auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == p.peer; });
        if (it == out.end())
            out.emplace_back(p.peer, 1);
        else
            ++it->second;
    }
    return out;
}

}  // namespace

bool PacketNetwork::offers_nvls(std::span<const RankId> ranks) const {
    const auto total = static_cast<std::uint32_t>(topology_.ranks().size());
    for (RankId r : ranks) {
        if (r.value() >= total) return false;
        const RankInfo& info = topology_.rank(r);
        if (info.server != topology_.rank(ranks[0]).server) return false;
        if (topology_.node(info.gpu).kind != NodeKind::gpu || nvls_switches(topology_, info.gpu).empty()) return false;
    }
    return true;
}

void PacketNetwork::start_nvls(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) {
    std::vector<GroupPart> parts;
    for (RankId r : op.ranks) {
        const NodeId gpu = topology_.rank(r).gpu;
        const auto switches = nvls_switches(topology_, gpu);
        int links = 0;
        for (const auto& [s, n] : switches) links += n;
        for (const auto& [s, n] : switches) {
            const Bytes out{op.egress.count() * n / links};
            const Bytes in{op.ingress.count() * n / links};
            if (out > Bytes::zero()) parts.push_back({gpu, s, out});
            if (in > Bytes::zero()) parts.push_back({s, gpu, in});
        }
    }
    start_parts(sim, op, listener, parts);
}

}  // namespace fabricsim::fabric
