// Credit-based flow control on the links inside a server (NVLink, NVSwitch, PCIe), as those
// links run it in hardware: a sender holds credits for the receiver's buffer, spends them on
// every packet it starts and gets them back when the receiver has passed the packet on; it
// never sends without them, so nothing is dropped and a stalled receiver stalls its senders
// (PCIe Base Specification, flow-control credits; NVLink's link-level credits).
//
// Here a link's credits are kCreditSegments segments of simulation.packet.segment bytes —
// enough to cover the link's round trip many times over at a segment's granularity — and a
// packet's credits return one link propagation delay after it leaves the receiving node
// (or is delivered there). Time a port spends with a packet waiting and no credit adds to
// credit_stall_time_s.
#include "fabric/packet/packet_network.hpp"

#include "core/simulator.hpp"

namespace fabricsim::fabric {

namespace {
constexpr std::int64_t kCreditSegments = 4;
}

void PacketNetwork::setup_credits() {
    const Bytes window = spec_.segment * kCreditSegments;
    for (std::uint32_t i = 0; i < ports_.size(); ++i) {
        const Link& link = topology_.link(DirectedLink::from_index(i).link);
        if (link.type != LinkType::nvlink && link.type != LinkType::pcie) continue;
        ports_[i].credited = true;
        ports_[i].credits = window;
    }
}

bool PacketNetwork::has_credit(std::uint32_t port, Bytes size, Time now) {
    Port& p = ports_[port];
    if (p.credits >= size) {
        if (p.stalled_since != Time::max()) {
            p.credit_stall += now - p.stalled_since;
            p.stalled_since = Time::max();
        }
        return true;
    }
    if (p.stalled_since == Time::max()) p.stalled_since = std::max(now, p.free_at);
    return false;
}

void PacketNetwork::return_credit(Simulator& sim, std::uint32_t link, Bytes size) {
    const Time delay = topology_.link(DirectedLink::from_index(link).link).propagation;
    sim.at(sim.now() + delay, *this,
           (static_cast<std::uint64_t>(size.count()) << 32) | (static_cast<std::uint64_t>(link) << 4) | kCredit);
}

void PacketNetwork::on_credit(Simulator& sim, std::uint32_t link, Bytes size) {
    Port& p = ports_[link];
    p.credits += size;
    // The port was waiting for this: whatever it sends now starts now, not earlier.
    p.free_at = std::max(p.free_at, sim.now());
    pump(sim, link);
}

}  // namespace fabricsim::fabric
