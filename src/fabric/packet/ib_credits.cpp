#include "fabric/packet/ib_credits.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/time_limits.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

IbCredits::IbCredits(const Topology& topology, const QueueLayout& layout, const scenario::InfinibandSpec& spec,
                     Bytes mtu, FlowControlHost& host)
    : topology_(topology),
      layout_(layout),
      host_(host),
      header_(spec.header_bytes),
      period_(spec.credit_update_period),
      ledger_(layout.port.size(), 0),
      limit_(layout.port.size(), 0),
      freed_(layout.port.size(), 0),
      next_update_(layout.port.size(), Time::zero()),
      update_pending_(layout.port.size(), false),
      waited_(layout.port.size(), 0) {
    std::vector<bool> warned(topology.nodes().size(), false);  // one warning per switch
    for (std::uint32_t q = 0; q < layout.port.size(); ++q) {
        const DirectedLink d = DirectedLink::from_index(layout.port[q]);
        const Link& link = topology.link(d.link);
        const Node& receiver = topology.node(topology.target(d));
        Bytes buffer = spec.vl_buffer
                           ? *spec.vl_buffer
                           : ib_round_trip_buffer(link, receiver.forwarding_latency, mtu, Bytes{spec.header_bytes});
        if (!spec.vl_buffer && is_fabric_switch(receiver.kind)) {
            const Bytes share = ib_switch_share(receiver, spec.virtual_lanes);
            if (share >= buffer) {
                buffer = share;
            } else if (!warned[topology.target(d).value()]) {
                warned[topology.target(d).value()] = true;
                warnings_.push_back(fmt::format(
                    "InfiniBand: {}'s buffer of {} B over {} ports and {} VLs leaves {} B per VL per port, less than "
                    "the {} B credit round trip of its link from {}; using the round trip",
                    receiver.name, receiver.buffer.count(), receiver.radix > 0 ? receiver.radix : receiver.ports.size(),
                    spec.virtual_lanes, share.count(), buffer.count(), topology.node(topology.source(d)).name));
            }
        }
        limit_[q] = buffer.count() / kBlock;
        ledger_.reset(q, limit_[q]);
        if (limit_[q] < blocks(mtu))
            throw ModelError(fmt::format("InfiniBand: a VL buffer of {} B cannot hold one {} B packet", buffer.count(),
                                         mtu.count() + header_));
    }
}

void IbCredits::on_drained(Simulator& sim, std::uint32_t q, Bytes size) {
    freed_[q] += blocks(size);
    if (period_ == Time::zero()) {
        send_update(sim, q);
        return;
    }
    if (update_pending_[q]) return;
    update_pending_[q] = true;
    sim.post(std::max(sim.now(), next_update_[q]), *this, (std::uint64_t{q} << 1) | kUpdate);
}

// A flow-control packet with every block freed so far leaves for the sender.
void IbCredits::send_update(Simulator& sim, std::uint32_t q) {
    const Time delay = topology_.link(DirectedLink::from_index(layout_.port[q]).link).propagation;
    sim.post(checked_add(sim.now(), delay, "InfiniBand credits: a credit update"), *this,
             (static_cast<std::uint64_t>(freed_[q]) << 33) | (std::uint64_t{q} << 1) | kReturn);
    freed_[q] = 0;
    next_update_[q] = checked_add(sim.now(), period_, "InfiniBand credits: the next credit update");
}

void IbCredits::on_event(Simulator& sim, std::uint64_t arg) {
    const auto q = static_cast<std::uint32_t>((arg >> 1) & 0xFFFF'FFFF);
    if ((arg & 1) == kUpdate) {
        update_pending_[q] = false;
        send_update(sim, q);
        return;
    }
    ledger_.returned(q, sim.now(), static_cast<std::int64_t>(arg >> 33));
    host_.wake(sim, q);
}

}  // namespace fabricsim::fabric
