// InfiniBand in the packet model (docs/models/infiniband.md; docs/models/ "InfiniBand switch").
//
// Every fabric port has one queue per data VL (cluster.infiniband.virtual_lanes); a message's
// service level (its workload `priority:`, SL 0 by default) picks its VL by the sl_to_vl table,
// the same at every hop. Links run credits per VL (ib_credits.hpp): nothing is dropped.
//
// VL arbitration (IBA Vol. 1 §7.6.9): one VlArbiter serves every port (vl_arbiter.hpp).
//
// IB congestion control (IBA Annex A10; src/congestion/ib_cc.hpp): a switch marks FECN at a
// root of congestion, not at a victim (IbCcMarker, ib_cc_marker.hpp); the destination's HCA returns a BECN at once, as
// a 64-byte frame on the message's VL; the source's QP raises its CCTI and paces its packets by the table's
// inter-packet delay. The NIC uplink serves its QPs as under DCQCN (roce_nic.cpp).
#include "fabric/packet/packet_network.hpp"

#include "core/errors.hpp"
#include "fabric/ib_cc_params.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

void PacketNetwork::setup_infiniband() {
    if (!ib_) return;
    const auto& ib = spec_.infiniband;
    ib_credits_ = std::make_unique<IbCredits>(topology_, layout_, ib, spec_.mtu, static_cast<FlowControlHost&>(*this));
    for (std::uint32_t i = 0; i < ports_.size(); ++i)
        if (IbCredits::applies_to(topology_.link(DirectedLink::from_index(i).link))) ports_[i].fc_kind = kFcIbCredits;
    vl_arbiter_ = std::make_unique<VlArbiter>(ib.vl_arbitration, ports_.size());
    if (!ib.congestion_control.enabled) return;
    congestion::FecnMarkerParams marker;
    marker.threshold = ib.congestion_control.threshold;
    marker.marking_rate = ib.congestion_control.marking_rate;
    marker.victim_mask = ib.congestion_control.victim_mask;
    marker.packet_size = ib.congestion_control.packet_size;
    ib_cc_ = std::make_unique<IbCcMarker>(marker, topology_, layout_, *ib_credits_);
    pace_nic_uplinks();
}

// IB CC for a new QP at a NIC uplink of line rate `line` (cluster.infiniband.congestion_control;
// `auto` table and limit: congestion::IbCcParams::defaults).
std::unique_ptr<congestion::CongestionControl> PacketNetwork::make_ib_cc(Bandwidth line) const {
    return std::make_unique<congestion::IbCongestionControl>(ib_cc_params(line), line);
}

// The slowest entry IB CC may reach (CCTI up to ccti_limit).
Bandwidth PacketNetwork::ib_cc_floor(Bandwidth line) const {
    const congestion::IbCcParams p = ib_cc_params(line);
    Bandwidth floor = line;
    for (int i = 0; i <= p.ccti_limit && i < static_cast<int>(p.table.size()); ++i)
        floor = std::min(floor, p.table[static_cast<std::size_t>(i)].rate(line));
    return floor;
}

congestion::IbCcParams PacketNetwork::ib_cc_params(Bandwidth line) const {
    return fabric::ib_cc_params(spec_.infiniband.congestion_control, line, spec_.mtu);
}

}  // namespace fabricsim::fabric
