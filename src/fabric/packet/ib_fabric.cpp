// InfiniBand in the packet model (docs/models/infiniband.md; docs/models/ "InfiniBand switch").
//
// Every fabric port has one queue per data VL (cluster.infiniband.virtual_lanes); a message's
// service level (its workload `priority:`, SL 0 by default) picks its VL by the sl_to_vl table,
// the same at every hop. Links run credits per VL (ib_credits.hpp): nothing is dropped.
//
// VL arbitration (IBA Vol. 1 §7.6.9): a port serves the high-priority table before the low one,
// but LimitOfHighPriority bounds what the high table sends while a low-priority VL waits: a
// high-priority packet may start while fewer than high_limit x 4 KiB have gone since the low
// table's last chance (the last one may overrun it, as with table weights), and always when
// none has (so high_limit 0 is one high-priority packet per low-priority opportunity, not
// none); then the low table sends one packet. 255: no limit. In a table the entry in turn may
// send weight x 64 bytes (a packet starts while any of it is left) before the next entry's
// turn; entries whose VL has nothing ready are passed over.
//
// IB congestion control (IBA Annex A10; src/congestion/ib_cc.hpp): a switch marks FECN on a
// packet leaving a port/VL whose queue is above the threshold (FecnMarker: one eligible packet
// in marking_rate + 1) when the port/VL is a root of congestion — it did not have to wait for
// credits before the packet; a victim that did marks only with victim_mask; the destination's HCA returns a BECN at once, as a 64-byte frame on the
// message's VL; the source's QP raises its CCTI and paces its packets by the table's
// inter-packet delay. The NIC uplink serves its QPs as under DCQCN (roce_nic.cpp).
#include "fabric/packet/packet_network.hpp"

#include "core/errors.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

void PacketNetwork::setup_infiniband() {
    if (!ib_) return;
    const auto& ib = spec_.infiniband;
    ib_credits_ = std::make_unique<IbCredits>(topology_, layout_, ib, spec_.mtu, static_cast<FlowControlHost&>(*this));
    for (std::uint32_t i = 0; i < ports_.size(); ++i)
        if (IbCredits::applies_to(topology_.link(DirectedLink::from_index(i).link))) ports_[i].fc = ib_credits_.get();
    const auto table_of = [](const std::vector<scenario::VlWeight>& entries) {
        VlTable t;
        t.entries = entries;
        for (const auto& e : entries)
            if (e.weight > 0) t.vls |= 1u << e.vl;
        return t;
    };
    high_ = table_of(ib.vl_arbitration.high);
    low_ = table_of(ib.vl_arbitration.low);
    high_limit_ = ib.vl_arbitration.high_limit == 255 ? -1 : std::int64_t{ib.vl_arbitration.high_limit} * 4096;
    arbiters_.resize(ports_.size());
    if (!ib.congestion_control.enabled) return;
    congestion::FecnMarkerParams marker;
    marker.threshold = ib.congestion_control.threshold;
    marker.marking_rate = ib.congestion_control.marking_rate;
    marker.victim_mask = ib.congestion_control.victim_mask;
    marker.packet_size = ib.congestion_control.packet_size;
    fecn_ = std::make_unique<congestion::FecnMarker>(marker);
    fecn_state_.resize(queues_.size());
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
    const auto& cc = spec_.infiniband.congestion_control;
    congestion::IbCcParams p = congestion::IbCcParams::defaults(line, spec_.mtu);
    p.ccti_increase = cc.ccti_increase;
    p.ccti_min = cc.ccti_min;
    p.ccti_timer = cc.ccti_timer;
    if (cc.table) {
        p.table.clear();
        for (const auto& e : *cc.table) p.table.push_back(congestion::CctEntry{e.shift, e.multiplier});
        p.ccti_limit = static_cast<int>(p.table.size()) - 1;
    }
    if (cc.ccti_limit) {
        p.ccti_limit = *cc.ccti_limit;
        if (!cc.table)
            p.table = congestion::IbCcParams::linear_table(congestion::kCctMaxDelay,
                                                           congestion::cct_packet_time(line, spec_.mtu), p.ccti_limit);
    }
    return p;
}

// A port/VL that waited for credits before this packet is a victim (IbCredits::waited).
void PacketNetwork::mark_fecn(std::uint32_t q, Packet& packet) {
    const bool victim = ports_[layout_.port[q]].fc == ib_credits_.get() && ib_credits_->waited(q);
    if (fecn_->should_mark(queues_[q].queued, Bytes{packet.bytes}, fecn_state_[q], victim)) {
        packet.marked = true;
        ++fecn_marks_;
        ++queues_[q].marks;
    }
}

std::uint32_t PacketNetwork::arbitrate(Port&, std::uint32_t port, std::uint32_t ready) {
    VlArbiter& a = arbiters_[port];
    const std::uint32_t high_ready = ready & high_.vls, low_ready = ready & low_.vls;
    // high_sent: high-priority bytes since the low table last had a chance (it has one whenever
    // no low-priority VL is ready). Zero lets one packet through even with high_limit 0.
    const bool high =
        high_ready != 0 && (low_ready == 0 || high_limit_ < 0 || a.high_sent == 0 || a.high_sent < high_limit_);
    const VlTable& table = high ? high_ : low_;
    std::uint8_t& at = high ? a.high : a.low;
    std::int64_t& left = high ? a.high_left : a.low_left;
    const auto n = static_cast<std::uint32_t>(table.entries.size());
    for (std::uint32_t tries = 0; n > 0 && tries <= n; ++tries) {
        const scenario::VlWeight& e = table.entries[at % n];
        if (e.weight > 0 && ((ready >> e.vl) & 1u) != 0) {
            if (left <= 0) left = std::int64_t{e.weight} * 64;
            const std::int64_t size = std::int64_t{head_bytes_[static_cast<std::uint32_t>(e.vl)]} + IbCredits::kHeaders;
            left -= size;
            if (left <= 0) at = static_cast<std::uint8_t>((at + 1) % n);
            a.high_sent = high && low_ready != 0 ? a.high_sent + size : 0;
            return static_cast<std::uint32_t>(e.vl);
        }
        at = static_cast<std::uint8_t>((at + 1) % n);
        left = 0;
    }
    // A ready VL in neither table (validation makes every VL with an SL weigh something).
    return static_cast<std::uint32_t>(__builtin_ctz(ready));
}

}  // namespace fabricsim::fabric
