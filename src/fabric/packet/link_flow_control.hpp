// Link-level flow control in the packet model (docs/ARCHITECTURE.md; docs/models/): how the sender on a link knows
// the receiver has room, one scheme per link. Two implement it: PFC with the Ethernet switch's
// shared-buffer MMU (pfc.hpp, RoCE fabric links) and credits (credits.hpp, NVLink, NVSwitch
// and PCIe; InfiniBand's per-VL credits build on the same code).
//
// The network calls, per packet of traffic class c crossing directed link L into node v, with
// q the egress queue of class c at L's port:
//   may_send(q, size, start)  before L's port starts it at `start`, a past or present time:
//                             ports commit lazily, back-dated to when they fell free, so the
//                             scheme answers for that moment and moves `start` later if the
//                             packet could only go later (a resume, credits back in between);
//   on_sent(q, size)          when it starts;
//   on_ingress(q, size)       when it has reached v — false: v has no room, it is dropped;
//   on_drained(q, size)       when it leaves v (forwarded, delivered, or taken by a NIC queue).
// A scheme that holds a queue back wakes its port through the FlowControlHost when it may go
// again (the port then commits what it can, back-dated as far as may_send allows); it keeps
// its own timers as an EventTarget.
#pragma once

#include "core/event_queue.hpp"
#include "core/network.hpp"
#include "core/units.hpp"

#include <cstdint>
#include <vector>

namespace fabricsim::fabric {

// Where the egress queues are: port p (a directed link's index) owns queues first[p] ..
// first[p + 1] - 1, one per traffic class; queue q carries priority (or VL) class_of[q].
struct QueueLayout {
    std::vector<std::uint32_t> first;    // by port, one past the last at the end
    std::vector<std::uint32_t> port;     // by queue
    std::vector<std::uint8_t> class_of;  // by queue
    std::uint32_t queues(std::uint32_t p) const { return first[p + 1] - first[p]; }
};

class FlowControlHost {
public:
    // Commits what queue q's port could start before now (before a pause takes hold).
    virtual void catch_up(Simulator& sim, std::uint32_t q) = 0;
    // Queue q's port may be able to start again (a resume, credits back).
    virtual void wake(Simulator& sim, std::uint32_t q) = 0;
    // Drops every packet waiting in queue q (the PFC watchdog).
    virtual void drop_queue(Simulator& sim, std::uint32_t q) = 0;

protected:
    ~FlowControlHost() = default;
};

class LinkFlowControl : public EventTarget {
public:
    virtual ~LinkFlowControl() = default;
    virtual bool may_send(std::uint32_t q, Bytes size, Time& start) = 0;
    virtual void on_sent(Simulator& sim, std::uint32_t q, Bytes size) = 0;
    virtual bool on_ingress(Simulator& sim, std::uint32_t q, Bytes size) = 0;
    virtual void on_drained(Simulator& sim, std::uint32_t q, Bytes size) = 0;
    // Held back by flow control (paused, out of credits): for deadlock detection.
    virtual bool blocked(std::uint32_t q) const = 0;
    virtual void add_counters(FabricCounters& c) const = 0;
};

}  // namespace fabricsim::fabric
