#include "fabric/packet/credits.hpp"

#include "core/simulator.hpp"

#include <algorithm>

namespace fabricsim::fabric {

Credits::Credits(const Topology& topology, const QueueLayout& layout, Bytes segment, FlowControlHost& host)
    : topology_(topology),
      layout_(layout),
      host_(host),
      credits_(layout.port.size(), segment * kCreditSegments),
      stalled_since_(layout.port.size(), Time::max()),
      stall_(layout.port.size(), Time::zero()),
      last_return_(layout.port.size(), Time::zero()),
      before_return_(layout.port.size(), Bytes::zero()) {}

bool Credits::may_send(std::uint32_t q, Bytes size, Time& start) {
    if (credits_[q] >= size) {
        // Enough only since the last return, which came after `start`: it goes then.
        if (start < last_return_[q] && before_return_[q] < size) start = last_return_[q];
        if (stalled_since_[q] != Time::max()) {
            // QPs of one priority share the queue's credits and ask with their own start times.
            stall_[q] += std::max(Time::zero(), start - stalled_since_[q]);
            stalled_since_[q] = Time::max();
        }
        return true;
    }
    stalled_since_[q] = std::min(stalled_since_[q], start);
    return false;
}

void Credits::on_drained(Simulator& sim, std::uint32_t q, Bytes size) {
    const Time delay = topology_.link(DirectedLink::from_index(layout_.port[q]).link).propagation;
    sim.at(sim.now() + delay, *this, (static_cast<std::uint64_t>(size.count()) << 32) | q);
}

void Credits::on_event(Simulator& sim, std::uint64_t arg) {
    const auto q = static_cast<std::uint32_t>(arg & 0xFFFF'FFFF);
    before_return_[q] = credits_[q];
    last_return_[q] = sim.now();
    credits_[q] += Bytes{static_cast<std::int64_t>(arg >> 32)};
    host_.wake(sim, q);  // the port was waiting for this: whatever it sends now starts now
}

void Credits::add_counters(FabricCounters& c) const {
    for (const Time t : stall_) c.credit_stall_time += t;
}

}  // namespace fabricsim::fabric
