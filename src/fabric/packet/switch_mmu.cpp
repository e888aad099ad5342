#include "fabric/packet/switch_mmu.hpp"

#include "core/errors.hpp"
#include "fabric/pfc_headroom.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fabricsim::fabric {

SwitchMmu::SwitchMmu(const Topology& topology, const QueueLayout& layout, const scenario::RoceSpec& roce, Bytes mtu,
                     std::uint8_t lossless)
    : layout_(layout),
      roce_(roce),
      frame_header_(roce_frame_in_buffer(Bytes::zero(), Bytes{roce.header_bytes})),
      lossless_(lossless),
      ingress_(layout.port.size()),
      buffers_(topology.nodes().size()) {
    for (std::uint32_t n = 0; n < topology.nodes().size(); ++n) {
        const Node& node = topology.nodes()[n];
        if (!is_fabric_switch(node.kind)) continue;
        Buffer& b = buffers_[n];
        b.total = node.buffer;
        Bytes reserved = Bytes::zero();
        for (std::uint32_t p = 0; p < node.ports.size(); ++p) {
            const Link& link = topology.link(node.ports[p].link);
            // The directed link into this switch through port p, and its queues.
            const DirectedLink in{node.ports[p].link, link.a == NodeId{n}};
            const Bytes headroom = roce_link_headroom(roce, link, mtu);
            // Reserved space for the priority groups a RoCE switch is set up with: the lossless
            // data priority and the control priority (the others share the buffer only).
            for (std::uint32_t q = layout.first[in.index()]; q < layout.first[in.index() + 1]; ++q) {
                ingress_[q].at = NodeId{n};
                ingress_[q].alpha = alpha_index(scenario::mmu_alpha(roce.mmu, link.bandwidth));  // by port speed class
                const int prio = layout.class_of[q];
                if (layout.queues(in.index()) == 1 || ((lossless_ >> prio) & 1u) != 0 || prio == roce.control_priority)
                    reserved += roce.mmu.reserved_per_queue;
                if (!this->lossless(q)) continue;
                ingress_[q].headroom = headroom;
                reserved += headroom;
            }
        }
        if (reserved >= node.buffer)
            throw ModelError(fmt::format("switch {}: its PFC headroom and reserved space ({} B over {} ports) exceed "
                                         "its {} B buffer",
                                         node.name, reserved.count(), node.ports.size(), node.buffer.count()));
        b.shared = node.buffer - reserved;
    }
    // A NIC's receive buffer (docs/models/pfc.md, "The NIC's receive buffer"): the port's one
    // lossless buffer, with the link's headroom at its top, as the mlx5 driver carves it.
    for (std::uint32_t n = 0; n < topology.nodes().size(); ++n) {
        const Node& node = topology.nodes()[n];
        if (!receives_from_fabric(node)) continue;
        buffers_[n].nic = true;
        buffers_[n].total = node.buffer;
        for (const Port& port : node.ports) {
            const Link& link = topology.link(port.link);
            if (link.type != LinkType::fabric && link.type != LinkType::storage_fabric) continue;
            const DirectedLink in{port.link, link.a == NodeId{n}};
            const Bytes headroom = roce_link_headroom(roce, link, mtu);
            for (std::uint32_t q = layout.first[in.index()]; q < layout.first[in.index() + 1]; ++q) {
                ingress_[q].at = NodeId{n};
                if (this->lossless(q)) ingress_[q].headroom = headroom;
            }
            if (lossless_ != 0 && headroom + frame(mtu) >= node.buffer)
                throw ModelError(
                    fmt::format("NIC {}: its receive buffer ({} B) holds no more than the PFC headroom of its "
                                "link ({} B) and an MTU frame",
                                node.name, node.buffer.count(), headroom.count()));
        }
    }
    nic_xon_delta_ = frame(mtu);
}

std::uint8_t SwitchMmu::alpha_index(double alpha) {
    const auto it = std::find(alphas_.begin(), alphas_.end(), alpha);
    if (it != alphas_.end()) return static_cast<std::uint8_t>(it - alphas_.begin());
    if (alphas_.size() > UINT8_MAX) throw InternalError("SwitchMmu: more than 256 distinct mmu.alpha values");
    alphas_.push_back(alpha);
    return static_cast<std::uint8_t>(alphas_.size() - 1);
}

bool SwitchMmu::receives_from_fabric(const Node& node) {
    return (node.kind == NodeKind::nic || node.kind == NodeKind::storage_nic) && node.buffer > Bytes::zero();
}

}  // namespace fabricsim::fabric
