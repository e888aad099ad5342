// In-network collectives on the flow model: the same offers as the packet model (nvls.cpp,
// sharp.cpp; docs/models/sharp.md) with the link loads they imply, as flows.
//
// NVLS (NVLink4+ NVSwitch, one server): each member GPU sends its egress bytes into the
// NVSwitches and takes its ingress bytes back, spread over all its NVLink links to them
// (share 1/k on each of its k links), both directions at once — the packet model's parts.
// As there, NVLS moves its bytes at NCCL's nvlsEfficiency of the NVLink payload rate
// (fabric/nvls_rate.hpp, docs/models/nvls.md): each part carries payload / efficiency.
//
// SHARP (InfiniBand switches with sharp: true, one member per server): the aggregation tree
// is the union of the routes from every member's NIC to member 0's NIC (InfiniBand forwards
// by destination, so they form a tree) plus each member's route from its GPU to its NIC.
// Every tree edge carries the egress bytes once towards member 0 and the ingress bytes once
// back, however many members lie below it: a switch forwards one combined stream. The packet
// model orients edges towards the highest-tier switch instead; with egress = ingress (an
// all-reduce) the loads are the same.
//
// The operation completes when its last flow finishes, plus the latency of the longest path
// it spans: one hop for NVLS (each part is one hop, both directions at once); for SHARP the
// member's route to member 0 up, and the same down.
#include "flow/flow_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/link_classes.hpp"
#include "fabric/nvls_rate.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace fabricsim::flow {

using fabric::DirectedLink;
using fabric::FlowKey;
using fabric::NodeId;
using fabric::NodeKind;

namespace {

// The GPU's NVLink links into NVLink4+ NVSwitches, as directed links GPU -> switch.
std::vector<DirectedLink> nvls_links(const fabric::Topology& t, NodeId gpu) {
    std::vector<DirectedLink> out;
    const fabric::Node& node = t.node(gpu);
    for (std::uint32_t p = 0; p < node.ports.size(); ++p) {
        const fabric::Port& port = node.ports[p];
        const fabric::Link& link = t.link(port.link);
        if (t.node(port.peer).kind != NodeKind::nvswitch || link.type != fabric::LinkType::nvlink ||
            fabric::nvlink_generation_number(link.link_class) < 4)
            continue;
        out.push_back(t.egress(gpu, p));
    }
    return out;
}

DirectedLink reversed(DirectedLink d) { return {d.link, !d.reverse}; }

NodeId entry_nic(const fabric::Topology& t, RankId r, std::int16_t rail) {
    const fabric::RankInfo& info = t.rank(r);
    if (rail < 0) return info.nic;
    const auto& nics = t.servers()[info.server.value()].nics;
    if (nics.empty()) return NodeId::invalid();
    return nics[static_cast<std::size_t>(rail) % nics.size()];
}

}  // namespace

bool FlowNetwork::offers(Offload offload, std::span<const RankId> ranks) const {
    if (ranks.size() < 2) return false;
    if (offload == Offload::ring_channel) return offers_ring(ranks);
    return offload == Offload::switch_aggregation ? offers_sharp(ranks) : offers_nvls(ranks);
}

void FlowNetwork::start_group(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) {
    if (!offers(op.offload, op.ranks))
        throw ModelError(fmt::format("flow model: {} is not offered for this group of {} ranks", to_string(op.offload),
                                     op.ranks.size()));
    if (op.offload == Offload::ring_channel)
        start_ring(sim, op, listener);
    else if (op.offload == Offload::switch_aggregation)
        start_sharp(sim, op, listener);
    else
        start_nvls(sim, op, listener);
}

bool FlowNetwork::offers_nvls(std::span<const RankId> ranks) const {
    const auto total = static_cast<std::uint32_t>(topology_.ranks().size());
    for (RankId r : ranks) {
        if (r.value() >= total) return false;
        const fabric::RankInfo& info = topology_.rank(r);
        if (info.server != topology_.rank(ranks[0]).server) return false;
        if (topology_.node(info.gpu).kind != NodeKind::gpu || nvls_links(topology_, info.gpu).empty()) return false;
    }
    return true;
}

bool FlowNetwork::offers_sharp(std::span<const RankId> ranks) const {
    if (!spec_.sharp || spec_.technology != scenario::Technology::infiniband) return false;
    const auto total = static_cast<std::uint32_t>(topology_.ranks().size());
    std::set<std::uint32_t> servers;
    for (RankId r : ranks) {
        if (r.value() >= total) return false;
        const fabric::RankInfo& info = topology_.rank(r);
        if (!info.nic.valid() || !servers.insert(info.server.value()).second) return false;
    }
    return true;
}

void FlowNetwork::start_nvls(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) {
    struct Part {
        std::vector<LinkUse> uses;
        double bytes;
        double cap = kUncapped;
    };
    std::vector<Part> parts;
    Time latency = Time::zero();
    const auto unit = static_cast<std::uint32_t>(spec_.segment.count());
    for (RankId r : op.ranks) {
        const auto links = nvls_links(topology_, topology_.rank(r).gpu);
        const double share = 1.0 / static_cast<double>(links.size());
        int generation = 0;  // the lowest NVLink generation of its NVLS links, as nvls.cpp takes
        for (DirectedLink d : links) {
            const int g = fabric::nvlink_generation_number(topology_.link(d.link).link_class);
            generation = generation == 0 ? g : std::min(generation, g);
        }
        const fabric::NvlsEfficiency efficiency = fabric::nvls_efficiency(generation);
        Part out{{}, static_cast<double>(fabric::nvls_wire_bytes(op.egress, efficiency).count())},
            in{{}, static_cast<double>(fabric::nvls_wire_bytes(op.ingress, efficiency).count())};
        for (DirectedLink d : links) {
            out.uses.push_back({d.index(), share});
            in.uses.push_back({reversed(d).index(), share});
        }
        // One hop each way, both at once (the switch reduces and multicasts slices as they
        // arrive): the latency of one hop, as the packet model's direct parts.
        const std::uint32_t there[] = {links.front().index()};
        latency = std::max(latency, path_latency(there, unit));
        // Fewer segments than links: only that many links carry it (stripe_cap's rule).
        for (Part* p : {&out, &in}) {
            const double segments = std::ceil(p->bytes / static_cast<double>(unit));
            if (segments < static_cast<double>(links.size())) p->cap = capacity(p->uses.front().link) * segments;
        }
        if (out.bytes > 0) parts.push_back(std::move(out));
        if (in.bytes > 0) parts.push_back(std::move(in));
    }
    Message m;
    m.id = op.id;
    m.size = Bytes::zero();
    const std::uint32_t slot = new_message(m, listener, static_cast<std::uint32_t>(parts.size()), latency);
    for (Part& p : parts) start_flow(sim, slot, p.bytes, p.cap, p.uses, unit);
    if (parts.empty()) sim.after(latency, *this, kDeliverBase + slot);
}

void FlowNetwork::start_sharp(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) {
    std::vector<NodeId> nics;
    for (RankId r : op.ranks) {
        const NodeId nic = entry_nic(topology_, r, op.rail);
        if (!nic.valid()) throw ModelError(fmt::format("flow model: SHARP: rank {} has no NIC", r.value()));
        nics.push_back(nic);
    }
    const auto unit = static_cast<std::uint32_t>(spec_.mtu.count());
    // Edges as directed links towards member 0 (the egress direction), each once.
    std::vector<std::uint32_t> edges;
    Time latency = Time::zero();
    for (std::size_t i = 0; i < nics.size(); ++i) {
        std::vector<std::uint32_t> route;
        const NodeId gpu = topology_.rank(op.ranks[i]).gpu;
        if (gpu != nics[i])
            for (DirectedLink d : routing_.path(FlowKey{gpu, nics[i], 0})) route.push_back(d.index());
        if (i > 0)
            for (DirectedLink d : routing_.path(FlowKey{nics[i], nics[0], 0})) route.push_back(d.index());
        latency = std::max(latency, path_latency(route, unit));
        edges.insert(edges.end(), route.begin(), route.end());
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    const double up = static_cast<double>(op.egress.count()), down = static_cast<double>(op.ingress.count());
    const std::uint32_t parts = static_cast<std::uint32_t>(edges.size()) * ((up > 0 ? 1u : 0u) + (down > 0 ? 1u : 0u));
    Message m;
    m.id = op.id;
    m.size = Bytes::zero();
    const std::uint32_t slot = new_message(m, listener, parts, 2 * latency);
    for (std::uint32_t e : edges) {
        if (up > 0) {
            const LinkUse u{e, 1.0};
            start_flow(sim, slot, up, kUncapped, std::span<const LinkUse>(&u, 1), unit);
        }
        if (down > 0) {
            const LinkUse u{reversed(DirectedLink::from_index(e)).index(), 1.0};
            start_flow(sim, slot, down, kUncapped, std::span<const LinkUse>(&u, 1), unit);
        }
    }
    if (parts == 0) sim.after(2 * latency, *this, kDeliverBase + slot);
}

}  // namespace fabricsim::flow
