// The buffer a RoCE frame from the fabric lands in (docs/models/pfc.md): a fabric switch's
// shared-buffer MMU, or a NIC's receive buffer. Accounting only; the pause protocol that acts
// on it is PFC (pfc.hpp).
//
// A switch carves its buffer (the preset's `buffer`) into, for every ingress port, the
// reserved space of each priority group it is set up with (the lossless data priorities and
// the control priority: cluster.roce.mmu.reserved_per_queue) and the PFC headroom of each
// lossless priority (pfc.headroom, or the IEEE 802.1Qbb worst case of the link, pfc_headroom.hpp);
// what is left is the shared pool. An ingress queue's XOFF is its reserved space plus
// mmu.alpha x the free shared pool (the dynamic threshold of the HPCC ns-3 model), or the
// static pfc.xoff; XON is xon_delta below it. Lossy traffic is admitted per egress queue
// instead (admits_lossy): a queue takes a packet while it holds at most mmu.lossy_alpha x the
// free shared pool (8 by default: SONiC's egress lossy profile), the dynamic threshold of Choudhury & Hahne ("Dynamic
// Queue Length Thresholds for Shared-Memory Packet Switches", IEEE/ACM ToN 6(2), 1998) as Broadcom's Trident/Tomahawk
// MMUs apply it to lossy queues at egress while lossless priority groups are admitted at ingress (Juniper, "QFX5K
// Packet Buffer Architecture", 2023). A NIC's receive buffer is one lossless buffer per port with the link's headroom
// at its top, as the mlx5 driver carves it: XOFF = size - headroom, XON one MTU frame below
// (drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c).
//
// Bytes are what the buffer holds: a packet's payload and its headers from the Ethernet header
// to the FCS (cluster.roce.header_bytes less the preamble and gap, pfc_headroom.hpp), as a
// switch counts a frame against its thresholds; the headroom counts the line time of what is
// still on the way, in wire bytes (802.1Qbb).
//
// State by queue (the upstream port's egress queue of the priority, as in QueueLayout): the
// node it fills, the bytes it holds there, the most it held, its headroom; by node: the pool.
#pragma once

#include "fabric/packet/link_flow_control.hpp"
#include "fabric/pfc_headroom.hpp"
#include "fabric/topology.hpp"
#include "scenario/roce_spec.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fabricsim::fabric {

class SwitchMmu {
public:
    // Carves every fabric switch's buffer and every NIC receive buffer of `topology`; `lossless`
    // (bit p: priority p is lossless under PFC) picks the queues with headroom. `layout` must
    // outlive it. Throws ModelError where the headroom and reserved space do not fit.
    SwitchMmu(const Topology& topology, const QueueLayout& layout, const scenario::RoceSpec& roce, Bytes mtu,
              std::uint8_t lossless);

    // A NIC with a receive buffer (a NIC preset's `buffer`): PFC runs on its links from the fabric.
    static bool receives_from_fabric(const Node& node);

    bool lossless(std::uint32_t q) const { return ((lossless_ >> layout_.class_of[q]) & 1u) != 0; }
    // The bytes the buffer holds for a packet of `payload`: every count below is in these.
    Bytes frame(Bytes payload) const { return payload + frame_header_; }
    // XOFF of queue q's ingress now (the dynamic threshold moves with the free pool): the
    // switch's reserved space plus its dynamic (or static) XOFF; a NIC's buffer less the
    // link's headroom (mlx5 port_buffer.c: xoff = size - headroom). Inline: once per frame.
    Bytes threshold(std::uint32_t q) const {
        const Ingress& ing = ingress_[q];
        const Buffer& b = buffers_[ing.at.value()];
        if (b.nic) return b.total > ing.headroom ? b.total - ing.headroom : Bytes::zero();
        return roce_.mmu.reserved_per_queue + xoff(b, alphas_[ing.alpha]);
    }
    // XON for that XOFF: a switch resumes xon_delta below it; a NIC one MTU frame below
    // (mlx5: xon = xoff - mtu), the frame as the buffer holds it.
    Bytes xon(std::uint32_t q, Bytes threshold) const {
        return xon_threshold(threshold, buffers_[ingress_[q].at.value()].nic ? nic_xon_delta_ : roce_.pfc.xon_delta);
    }
    // Whether the buffer q's ingress fills has room for `size` more bytes.
    bool fits(std::uint32_t q, Bytes size) const {
        const Buffer& b = buffers_[ingress_[q].at.value()];
        return b.used + size <= b.total;
    }
    // Whether a lossy packet of `size` that came in through q may join an egress queue of the
    // same switch which holds `out_held` now: out_held + size <= mmu.lossy_alpha x the free
    // shared pool. Inline: once per frame.
    bool admits_lossy(std::uint32_t q, Bytes out_held, Bytes size) const {
        const Buffer& b = buffers_[ingress_[q].at.value()];
        const Bytes free = b.shared > b.used ? b.shared - b.used : Bytes::zero();
        return out_held + size <= xoff_threshold(free, roce_.mmu.lossy_alpha);
    }
    void admit(std::uint32_t q, Bytes size) {
        Ingress& ing = ingress_[q];
        ing.bytes += size;
        buffers_[ing.at.value()].used += size;
        ing.max_bytes = std::max(ing.max_bytes, ing.bytes);
    }
    void release(std::uint32_t q, Bytes size) {
        Ingress& ing = ingress_[q];
        ing.bytes -= size;
        buffers_[ing.at.value()].used -= size;
    }
    Bytes held(std::uint32_t q) const { return ingress_[q].bytes; }
    Bytes max_held(std::uint32_t q) const { return ingress_[q].max_bytes; }
    Bytes headroom(std::uint32_t q) const { return ingress_[q].headroom; }
    // A switch's shared pool (its buffer less every port's headroom and reserved space) and
    // what the node's buffer holds now.
    Bytes shared(NodeId node) const { return buffers_[node.value()].shared; }
    Bytes used(NodeId node) const { return buffers_[node.value()].used; }
    // What admit() and threshold() read for a frame through q into `node`, for a caller that
    // starts those loads early (a prefetch at the call site: one that is an inline function's
    // only effect is dropped by GCC 12).
    const void* ingress_line(std::uint32_t q) const { return &ingress_[q]; }
    const void* buffer_line(NodeId node) const { return &buffers_[node.value()]; }

    // What the pause protocol (PFC, pfc.hpp) keeps by ingress queue, held in the MMU's record
    // of the queue: a frame's admission and its drain read both, and in one record they are
    // one cache line where two arrays were two (issue 19). The MMU never reads it.
    struct PauseState {
        bool pausing = false;         // the upstream queue is held by our pause frames
        bool lossless = false;        // lossless(q), kept here: admission reads this record anyway
        Bytes limit = Bytes::zero();  // XOFF at the pause + headroom: beyond it, a drop
    };
    PauseState& pause_state(std::uint32_t q) { return ingress_[q].pause; }
    const PauseState& pause_state(std::uint32_t q) const { return ingress_[q].pause; }

private:
    // One cache line, aligned: a frame's admission and drain each touch one line of it.
    struct alignas(64) Ingress {
        Bytes bytes = Bytes::zero();
        NodeId at;               // the switch (or NIC)
        std::uint8_t alpha = 0;  // mmu.alpha, or its port speed class's (mmu.port_classes): in alphas_
        Bytes max_bytes = Bytes::zero();
        Bytes headroom = Bytes::zero();
        PauseState pause;
    };
    static_assert(sizeof(Ingress) == 64);
    struct Buffer {
        bool nic = false;              // a NIC's receive buffer: static XOFF, no shared pool
        Bytes shared = Bytes::zero();  // buffer less every port's headroom and reserve
        Bytes used = Bytes::zero();
        Bytes total = Bytes::zero();
    };
    std::uint8_t alpha_index(double alpha);  // its index in alphas_, added if new
    Bytes xoff(const Buffer& b, double alpha) const {
        if (roce_.pfc.xoff) return *roce_.pfc.xoff;
        const Bytes free = b.shared > b.used ? b.shared - b.used : Bytes::zero();
        return xoff_threshold(free, alpha);
    }

    const QueueLayout& layout_;
    scenario::RoceSpec roce_;
    Bytes frame_header_;                   // a packet's bytes in the buffer beside its payload
    Bytes nic_xon_delta_ = Bytes::zero();  // an MTU frame (NICs)
    std::uint8_t lossless_ = 0;
    std::vector<Ingress> ingress_;       // by queue
    std::vector<double> alphas_{0.125};  // the distinct dynamic-threshold alphas, by Ingress::alpha
    std::vector<Buffer> buffers_;        // by node
};

}  // namespace fabricsim::fabric
