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
// and multicasts slices as they arrive).
//
// What limits it: the multimem load-reduce / store path moves NVLS bytes at NCCL's
// nvlsEfficiency (0.85 on NVLink4) of the rate the ring gets from the same links, measured per
// GPU port and constant in the group size (fabric/nvls_rate.hpp: the measurements, NCCL's
// factor, and why the switches' reduction ALUs do not bind). Each stream therefore occupies
// its links for bytes / efficiency wire bytes: on an idle server an all-reduce ends at
// S(1+1/n) / (efficiency × the GPU's NVLink payload rate), and other traffic on those links
// sees them busy for as long as NVLS holds them. The streams share the NVLink ports, credits
// and queues with any other traffic.
#include "fabric/packet/packet_network.hpp"

#include "fabric/link_classes.hpp"
#include "fabric/nvls_rate.hpp"
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

// The NVLink generation of the GPU's NVLS links to its NVSwitches (the lowest, if they differ).
int nvls_generation(const Topology& t, NodeId gpu) {
    int generation = 0;
    for (const Port& p : t.node(gpu).ports) {
        const Link& link = t.link(p.link);
        if (t.node(p.peer).kind != NodeKind::nvswitch || link.type != LinkType::nvlink) continue;
        const int g = nvlink_generation_number(link.link_class);
        if (g < 4) continue;  // not a link NVLS runs on (nvls_switches)
        generation = generation == 0 ? g : std::min(generation, g);
    }
    return generation;
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
        const NvlsEfficiency efficiency = nvls_efficiency(nvls_generation(topology_, gpu));
        const Bytes egress = nvls_wire_bytes(op.egress, efficiency), ingress = nvls_wire_bytes(op.ingress, efficiency);
        int links = 0;
        for (const auto& [s, n] : switches) links += n;
        for (const auto& [s, n] : switches) {
            const Bytes out{egress.count() * n / links};
            const Bytes in{ingress.count() * n / links};
            if (out > Bytes::zero()) parts.push_back({gpu, s, out});
            if (in > Bytes::zero()) parts.push_back({s, gpu, in});
        }
    }
    start_parts(sim, op, listener, parts);
}

}  // namespace fabricsim::fabric
