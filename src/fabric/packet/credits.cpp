#include "fabric/packet/credits.hpp"

#include "core/simulator.hpp"
#include "core/time_limits.hpp"

namespace fabricsim::fabric {

Credits::Credits(const Topology& topology, const QueueLayout& layout, Bytes largest_packet, FlowControlHost& host)
    : host_(host), ledger_(layout.port.size(), (largest_packet * kCreditSegments).count()) {
    return_delay_.reserve(layout.port.size());
    for (const std::uint32_t port : layout.port)
        return_delay_.push_back(topology.link(DirectedLink::from_index(port).link).propagation);
}

void Credits::on_drained(Simulator& sim, std::uint32_t q, Bytes size) {
    sim.post(checked_add(sim.now(), return_delay_[q], "credits: a credit return"), *this,
             (static_cast<std::uint64_t>(size.count()) << 32) | q);
}

void Credits::on_event(Simulator& sim, std::uint64_t arg) {
    const auto q = static_cast<std::uint32_t>(arg & 0xFFFF'FFFF);
    ledger_.returned(q, sim.now(), static_cast<std::int64_t>(arg >> 32));
    host_.wake(sim, q);  // the port was waiting for this: whatever it sends now starts now
}

}  // namespace fabricsim::fabric
