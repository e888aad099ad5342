#include "fabric/packet/credits.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/time_limits.hpp"

#include <cstdint>

namespace fabricsim::fabric {

Credits::Credits(const Topology& topology, const QueueLayout& layout, Bytes largest_packet, FlowControlHost& host)
    : host_(host),
      ledger_(layout.port.size(), (largest_packet * kCreditSegments).count()),
      rings_(layout.port.size()),
      pending_any_(layout.port.size(), 0),
      pending_(layout.port.size() * kRing + kRing - 1) {
    if (layout.port.size() >= (std::uint32_t{1} << 31) / kRing)
        throw ModelError("credits: more queues than a credit return's event can name");
    return_delay_.reserve(layout.port.size());
    deferred_queues_.reserve(layout.port.size());  // each queue at most once: no growth while running
    for (const std::uint32_t port : layout.port)
        return_delay_.push_back(topology.link(DirectedLink::from_index(port).link).propagation);
    // Each ring on a cache line of its own: the first entry at a 64-byte boundary (until a
    // ring grows and the array moves, which costs only speed).
    const auto skip = static_cast<std::uint32_t>((64 - reinterpret_cast<std::uintptr_t>(pending_.data()) % 64) % 64 /
                                                 sizeof(Pending));
    for (std::uint32_t q = 0; q < rings_.size(); ++q) rings_[q] = Ring{skip + q * kRing, kRing, 0, 0};
}

void Credits::push(std::uint32_t q, Pending p) {
    Ring& r = rings_[q];
    if (r.size == r.capacity) {
        const auto offset = static_cast<std::uint32_t>(pending_.size());
        pending_.resize(pending_.size() + 2 * std::size_t{r.capacity});
        for (std::uint32_t i = 0; i < r.size; ++i)
            pending_[offset + i] = pending_[r.offset + ((r.head + i) & (r.capacity - 1))];
        r = Ring{offset, 2 * r.capacity, 0, r.size};
    }
    pending_[r.offset + ((r.head + r.size) & (r.capacity - 1))] = p;
    ++r.size;
    pending_any_[q] |= kAny;
}

void Credits::on_drained(Simulator& sim, std::uint32_t q, Bytes size, Time sending_until, bool idle) {
    const Time at = checked_add(sim.now(), return_delay_[q], "credits: a credit return");
    // Free now, with nothing to send until a packet is queued and offered: deferred, the one
    // held before it counted in or given its event first.
    if (idle && sending_until <= sim.now() && (pending_any_[q] & kAny) == 0) {
        sim_ = &sim;
        if ((pending_any_[q] & kDeferred) != 0) {
            undefer(sim, q);
        } else if ((pending_any_[q] & kListed) == 0) {
            deferred_queues_.push_back(q);
            pending_any_[q] |= kListed;
        }
        ledger_.held(q) = Pending{at, size.count()};
        pending_any_[q] |= kDeferred;
        return;
    }
    if ((pending_any_[q] & kDeferred) != 0) undefer(sim, q);  // it keeps its place before this one
    // The port sends past the return: woken then, it would commit nothing (pump() returns at
    // once for a port still sending), so the return needs no event of its own.
    if (sending_until > at) {
        push(q, Pending{at, size.count()});
        return;
    }
    // With none pending before it, the event carries the return itself (the common case for a
    // port that idles: its ring is not touched); else the return joins the ring, to be
    // counted after those before it.
    if ((pending_any_[q] & kAny) == 0) {
        post_alone(sim, q, Pending{at, size.count()});
        return;
    }
    push(q, Pending{at, -size.count()});
    sim.post(at, *this, std::uint64_t{q} << 1);
}

// The deferred return, due: its wake would have found nothing to send, and nothing read the
// queue's credits since, so it is counted in now with its own time (the ring is empty: none is
// before it). On its way: its event, for its own time.
void Credits::undefer(Simulator& sim, std::uint32_t q) {
    const Pending p = ledger_.held(q);
    if (p.at <= sim.now())
        ledger_.returned(q, p.at, p.units);
    else
        post_alone(sim, q, p);
    pending_any_[q] &= static_cast<std::uint8_t>(~kDeferred);
}

void Credits::post_alone(Simulator& sim, std::uint32_t q, Pending p) {
    sim.post(p.at, *this, (static_cast<std::uint64_t>(p.units) << 32) | (std::uint64_t{q} << 1) | kAlone);
}

void Credits::network_idle(Simulator& sim) {
    for (const std::uint32_t q : deferred_queues_) {
        if ((pending_any_[q] & kDeferred) != 0) undefer(sim, q);
        pending_any_[q] &= static_cast<std::uint8_t>(~kListed);
    }
    deferred_queues_.clear();
}

void Credits::settle(std::uint32_t q) {
    Ring& r = rings_[q];
    while (r.size != 0) {
        const Pending& p = pending_[r.offset + r.head];
        if (p.units < 0) return;  // its event comes first
        ledger_.returned(q, p.at, p.units);
        r.head = (r.head + 1) & (r.capacity - 1);
        --r.size;
    }
    pending_any_[q] &= static_cast<std::uint8_t>(~kAny);
}

// The return this event was posted for, and those without an event before it, in order.
void Credits::on_event(Simulator& sim, std::uint64_t arg) {
    const auto q = static_cast<std::uint32_t>((arg & 0xFFFF'FFFF) >> 1);
    if ((arg & kAlone) != 0) {
        ledger_.returned(q, sim.now(), static_cast<std::int64_t>(arg >> 32));
        host_.wake(sim, q);
        return;
    }
    settle(q);  // the returns before it that have no event
    Ring& r = rings_[q];
    const Pending p = pending_[r.offset + r.head];  // its own (events come in the ring's order)
    r.head = (r.head + 1) & (r.capacity - 1);
    --r.size;
    ledger_.returned(q, p.at, -p.units);
    if (r.size == 0) pending_any_[q] &= static_cast<std::uint8_t>(~kAny);
    host_.wake(sim, q);  // the port may be free: whatever it sends now starts now
}

}  // namespace fabricsim::fabric
