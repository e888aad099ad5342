// The congestion point of InfiniBand congestion control in the packet model (IBA Vol. 1
// Annex A10; docs/models/infiniband.md): a switch marks FECN on a data packet leaving a
// port/VL whose queue is above the threshold, one eligible packet in marking_rate + 1
// (congestion::FecnMarker), when the port/VL is a root of congestion. A port/VL that had to
// wait for credits before the packet (IbCredits::waited) is a victim: the congestion is
// downstream of it, and it marks only with the Switch Congestion Setting's victim_mask.
//
// State by queue (a port/VL): the eligible packets still to skip. The destination's HCA
// turns a mark into a BECN and the source's QP reacts (congestion::IbCongestionControl).
#pragma once

#include "congestion/ib_cc.hpp"
#include "fabric/packet/ib_credits.hpp"
#include "fabric/packet/link_flow_control.hpp"
#include "fabric/topology.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim::fabric {

class IbCcMarker {
public:
    // `credits` (the links' IB credits) and `layout` must outlive the marker.
    IbCcMarker(const congestion::FecnMarkerParams& params, const Topology& topology, const QueueLayout& layout,
               const IbCredits& credits);

    // Whether the data packet of `packet` payload bytes that queue q starts now, with `queued`
    // bytes behind it, carries FECN. Counts the mark.
    bool mark(std::uint32_t q, Bytes queued, Bytes packet) {
        if (!marker_.should_mark(queued, packet, state_[q], victim(q))) return false;
        ++marks_;
        return true;
    }
    // Queue q waited for credits before the packet it is starting now: a victim, not a root.
    bool victim(std::uint32_t q) const { return credited_[q] != 0 && credits_.waited(q); }
    std::int64_t marks() const { return marks_; }
    const congestion::FecnMarkerParams& params() const { return marker_.params(); }

private:
    congestion::FecnMarker marker_;
    const IbCredits& credits_;
    std::vector<congestion::FecnMarkState> state_;  // by queue
    std::vector<std::uint8_t> credited_;            // by queue: its link runs IB credits
    std::int64_t marks_ = 0;
};

}  // namespace fabricsim::fabric
