// Credit-based flow control on the links inside a server (NVLink, NVSwitch, PCIe), as those
// links run it in hardware: a sender holds credits for the receiver's buffer, spends them on
// every packet it starts and gets them back when the receiver has passed the packet on; it
// never sends without them, so nothing is dropped and a stalled receiver stalls its senders
// (PCIe Base Specification, flow-control credits; NVLink's link-level credits).
//
// Here a link's credits are kCreditSegments of the largest packet that crosses it — a segment
// (simulation.packet.segment) of a message inside the server, or an MTU packet of a message on
// its way to or from the fabric, whichever is larger — enough to cover the link's round trip
// many times over; credits for fewer bytes than one packet would hold it back for ever. A
// packet's credits return one link propagation delay after it leaves the receiving node (or is
// delivered there). Time a queue spends with a packet waiting and no credit adds to
// credit_stall_time_s.
//
// A return wakes the sending port only where the wake could start something: when the port
// may be free by the time the credits are back. A port still sending then (its transmission
// ends after the return) commits nothing when woken, and nothing reads its queue's credits
// before it falls free, so such a return waits in the queue's list of pending returns and is
// counted in when the port next asks (may_send), as the event would have counted it (issue 19:
// on perm-1024 half the 1.0 M returns, one event each before).
//
// A return to a port that has fallen free and has nothing to send (no packet queued, no
// messages of its own to start) would wake a port that commits nothing, unless a packet is
// queued there before the return comes back; and a packet queued at a free port is offered at
// once (may_send). Such a return, when the queue has none pending, is deferred: held by the
// queue with no event until the port next asks (may_send) or the next return comes. Nothing
// reads the queue's credits in between, so a deferred return that is due by then is counted in
// then, with its own time, as its event would have counted it; one still on its way gets its
// event then (issue 19: on perm-1024 the returns to a receiving NIC's PCIe port, which idles
// between packets). A port that becomes a source (will_send) and a network that falls idle
// (no packet left in it) undefer too: the latter so that the clock runs on to the last return
// as it did when each had one.
#pragma once

#include "fabric/packet/credit_ledger.hpp"
#include "fabric/packet/link_flow_control.hpp"
#include "fabric/topology.hpp"

#include <vector>

namespace fabricsim::fabric {

class Credits final : public LinkFlowControl {
public:
    static constexpr std::int64_t kCreditSegments = 4;

    // `largest_packet`: max(segment, MTU), the most one packet on these links can carry.
    Credits(const Topology& topology, const QueueLayout& layout, Bytes largest_packet, FlowControlHost& host);

    // NVLink and PCIe links.
    static bool applies_to(const Link& link) { return link.type == LinkType::nvlink || link.type == LinkType::pcie; }
    bool may_send(std::uint32_t q, Bytes size, Time& start) override {
        if (const std::uint8_t held = pending_any_[q] & (kAny | kDeferred); held != 0) {
            if (held == kDeferred)
                undefer(*sim_, q);
            else
                settle(q);
        }
        return ledger_.may_send(q, size.count(), start);
    }
    void on_sent(Simulator&, std::uint32_t q, Bytes size) override { ledger_.spend(q, size.count()); }
    bool on_ingress(Simulator&, std::uint32_t, Bytes) override { return true; }
    void on_drained(Simulator& sim, std::uint32_t q, Bytes size) override { on_drained(sim, q, size, Time::zero()); }
    // `sending_until`: the end of the sending port's last committed transmission (its free_at);
    // a return before it needs no event. `idle`: the sending port has nothing to send and no
    // way to make a packet but a queued one (one queue, empty, no source, not paced, up): with
    // sending_until past, the return may be deferred until the port asks.
    void on_drained(Simulator& sim, std::uint32_t q, Bytes size, Time sending_until, bool idle = false);
    // Queue q's port may send without a packet queued first (it has become a source): its
    // deferred return is counted in if due, else gets its event.
    void will_send(Simulator& sim, std::uint32_t q) {
        if ((pending_any_[q] & kDeferred) != 0) undefer(sim, q);
    }
    // No packet is left in the network: deferred returns get their events (or are due).
    void network_idle(Simulator& sim);
    bool blocked(std::uint32_t q) const override { return ledger_.blocked(q); }
    void add_counters(FabricCounters& c) const override { c.credit_stall_time += ledger_.total_stall(); }
    void on_event(Simulator& sim, std::uint64_t arg) override;

private:
    // A return on its way back to the sender: due at `at`, `units` bytes; negative when an
    // event was posted for it (on_event counts it in then, with those before it).
    struct Pending {
        Time at;
        std::int64_t units;
    };
    // Queue q's pending returns, oldest first (drains come in time order and the delay is the
    // queue's own), in pending_[offset, offset + capacity) as a ring. Sized at construction for
    // kCreditSegments packets of the largest size; a queue with more (smaller packets) moves to
    // a ring twice the size at the end (at most a few times a run: never once its largest
    // backlog of returns has been seen).
    struct Ring {
        std::uint32_t offset = 0;
        std::uint32_t capacity = 0;  // a power of two
        std::uint32_t head = 0;
        std::uint32_t size = 0;
    };
    static constexpr std::uint32_t kRing = 4;   // 64 bytes: one cache line
    static constexpr std::uint64_t kAlone = 1;  // an event's flag: the return it carries is all
    void push(std::uint32_t q, Pending p);
    void undefer(Simulator& sim, std::uint32_t q);
    // An event that carries the return itself (kAlone): for a queue with nothing in its ring.
    void post_alone(Simulator& sim, std::uint32_t q, Pending p);
    // Counts in the returns waiting at the front that have no event: all of them are past (a
    // queue is asked only when its port is free, and each came back before the port fell free).
    void settle(std::uint32_t q);

    FlowControlHost& host_;
    // In bytes; beside each queue's record, its deferred return (while kDeferred: never with a
    // return in its ring, as a return that cannot be deferred undefers the one held first),
    // read by may_send with the record.
    BasicCreditLedger<Pending> ledger_;
    // By queue: its link's propagation delay, after which drained credits are back (a flat
    // table, read once per packet, instead of the queue's port and then its link).
    std::vector<Time> return_delay_;
    std::vector<Ring> rings_;  // by queue
    // By queue: kAny while its ring holds a return, kDeferred while it holds a deferred one,
    // kListed while it is in deferred_queues_. A byte per queue stays in cache where the
    // rings' records (16 bytes each) do not: may_send reads it at every credit port's send.
    std::vector<std::uint8_t> pending_any_;
    static constexpr std::uint8_t kAny = 1, kDeferred = 2, kListed = 4;
    // Queues that have had a return deferred since the network was last idle (each once: at
    // most one entry per queue).
    std::vector<std::uint32_t> deferred_queues_;
    // The simulator of the last deferring drain, for may_send's undefer (the interface's
    // may_send has none): there is one per run.
    Simulator* sim_ = nullptr;
    std::vector<Pending> pending_;
};

}  // namespace fabricsim::fabric
