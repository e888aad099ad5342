// The congestion-control interface of a queue pair (docs/models/ "Congestion control").
//
// An object of this interface is a pure state machine, one per queue pair: the NIC tells it
// what happened (an ACK, a CNP, bytes put on the wire, a timer it asked for fell due) and
// reads back the rate it may send at. It never touches the event queue, a port or the
// network, so every algorithm is unit-tested with a hand-driven clock.
//
// Contract with the NIC (the same for every implementation):
//   - `now` never goes backwards between calls;
//   - next_timer() is the earliest time the object wants on_timer(); Time::max() when none.
//     The NIC calls on_timer(now) once now >= next_timer(); the object handles every event
//     due at or before `now`, in time order, so a late or coalesced call is harmless;
//   - an input at time t (on_ack, on_cnp, on_sent) sees every timer event at or before t
//     already applied, whatever order the NIC's own events at t ran in;
//   - rate() is the sending rate after all of the above; it never exceeds the line rate.
//
// Hot path: these calls happen per packet, so they do not allocate, hold no std::function
// and use integer time (Time, picoseconds), sizes (Bytes) and rates (Bandwidth, bits/s).
#pragma once

#include "core/units.hpp"

#include <cstdint>

namespace fabricsim::congestion {

class CongestionControl {
public:
    virtual ~CongestionControl() = default;

    // `acked` bytes of this QP were acknowledged at `now`.
    virtual void on_ack(Time now, Bytes acked) = 0;
    // A congestion notification packet for this QP arrived at `now`.
    virtual void on_cnp(Time now) = 0;
    // The NIC put `size` bytes of this QP on the wire at `now`.
    virtual void on_sent(Time now, Bytes size) = 0;
    // The time asked for by next_timer() has come (now >= next_timer()).
    virtual void on_timer(Time now) = 0;
    // Earliest time the object needs on_timer(); Time::max() when it needs none.
    virtual Time next_timer() const = 0;
    // The rate the QP may send at now.
    virtual Bandwidth rate() const = 0;
    // The index into a congestion control table the rate comes from (IB CC's CCTI), for
    // reports; -1 where the algorithm has no table.
    virtual std::int32_t table_index() const { return -1; }
};

// No congestion control: always the line rate, never a timer. InfiniBand QPs without IB CC
// and RoCE runs with DCQCN disabled use it.
class NoCongestionControl final : public CongestionControl {
public:
    explicit NoCongestionControl(Bandwidth line_rate) : line_rate_(line_rate) {}
    void on_ack(Time, Bytes) override {}
    void on_cnp(Time) override {}
    void on_sent(Time, Bytes) override {}
    void on_timer(Time) override {}
    Time next_timer() const override { return Time::max(); }
    Bandwidth rate() const override { return line_rate_; }

private:
    Bandwidth line_rate_;
};

}  // namespace fabricsim::congestion
