#include "fabric/packet/pfc.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/time_limits.hpp"
#include "fabric/pfc_headroom.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

std::uint8_t Pfc::lossless_mask(const scenario::RoceSpec& roce) {
    std::uint8_t mask = 0;
    if (roce.lossless && roce.pfc.enabled)
        for (int p : roce.pfc.priorities) mask |= static_cast<std::uint8_t>(1u << p);
    return mask;
}

Pfc::Pfc(const Topology& topology, const QueueLayout& layout, const scenario::RoceSpec& roce, Bytes mtu,
         FlowControlHost& host)
    : topology_(topology),
      layout_(layout),
      roce_(roce),
      host_(host),
      pfc_(roce.lossless && roce.pfc.enabled),
      lossless_(lossless_mask(roce)),
      mmu_(topology, layout, roce, mtu, lossless_),
      pause_(layout.port.size()),
      ever_paused_(layout.port.size() / 64 + 1, 0),
      refresh_at_(layout.port.size()),
      egress_drops_(layout.port.size(), 0) {
    for (std::uint32_t q = 0; q < layout.port.size(); ++q) mmu_.pause_state(q).lossless = mmu_.lossless(q);
    quanta_.resize(layout.first.size() - 1);
    // Beyond the end of simulated time (a link of a few bit/s) a pause simply never expires.
    for (std::uint32_t i = 0; i < quanta_.size(); ++i) {
        const Bandwidth rate = topology.link(DirectedLink::from_index(i).link).bandwidth;
        const Bytes pause{0xFFFF * 512 / 8};
        quanta_[i] =
            transmit_time(Bytes{1}, rate) > Time::max() / pause.count() ? Time::max() : transmit_time(pause, rate);
    }
}

bool Pfc::applies_to(DirectedLink link) const {
    const Node& to = topology_.node(topology_.target(link));
    return is_fabric_switch(to.kind) ||
           (SwitchMmu::receives_from_fabric(to) && is_fabric_switch(topology_.node(topology_.source(link)).kind));
}

void Pfc::maybe_resume_upstream(Simulator& sim, std::uint32_t q) {
    if (mmu_.held(q) <= mmu_.xon(q, mmu_.threshold(q))) {
        mmu_.pause_state(q).pausing = false;
        send_pause(sim, q, false);
    }
}

// The frame goes back along q's link (from the switch to the port that feeds it).
void Pfc::send_pause(Simulator& sim, std::uint32_t q, bool pause) {
    const Link& l = topology_.link(DirectedLink::from_index(layout_.port[q]).link);
    const Time arrival =
        checked_add(sim.now(), saturating_add(transmit_time(kPauseFrameOnWire, l.bandwidth), l.propagation),
                    "PFC: a pause frame's arrival");
    sim.post(arrival, *this, (std::uint64_t{q} << 3) | (pause ? kPause : kResume));
    ++pauses_sent_;
    if (pause) {
        refresh_at_[q] = saturating_add(sim.now(), quanta_[layout_.port[q]] / 2);
        if (refresh_at_[q] != Time::max())  // else the pause outlasts the run
            sim.post(refresh_at_[q], *this, (std::uint64_t{q} << 3) | kRefresh);
    }
}

void Pfc::on_event(Simulator& sim, std::uint64_t arg) {
    const auto q = static_cast<std::uint32_t>(arg >> 3);
    switch (static_cast<Kind>(arg & 7)) {
        case kPause: on_pause(sim, q, true); return;
        case kResume: on_pause(sim, q, false); return;
        case kRefresh:
            if (mmu_.pause_state(q).pausing && refresh_at_[q] == sim.now()) send_pause(sim, q, true);
            return;
        case kExpiry:
            if (pause_[q].paused && pause_[q].until == sim.now()) resume(sim, q);  // else refreshed or resumed since
            return;
        case kWatchdog: {
            Pause& p = pause_[q];
            if (!p.paused || sim.now() - p.since < *roce_.pfc.watchdog) return;  // resumed since
            ++watchdog_triggers_;
            p.paused = false;
            p.resumed = sim.now();
            p.total += sim.now() - p.since;
            p.watchdog_dropping = true;
            host_.drop_queue(sim, q);
            // The port no longer honours pauses: it sends from now on. Without this wake a NIC
            // uplink's QP queues (DCQCN pacing keeps them out of the port's queue, so the drop
            // leaves them) waited for some later event, which then back-dated their sends to
            // before itself: "event scheduled in the past".
            host_.wake(sim, q);
            return;
        }
    }
    throw InternalError("PFC: unknown event");
}

void Pfc::on_pause(Simulator& sim, std::uint32_t q, bool pause) {
    host_.catch_up(sim, q);  // what the port started before the frame arrived goes on
    Pause& p = pause_[q];
    const Time now = sim.now();
    if (pause) {
        ever_paused_[q >> 6] |= std::uint64_t{1} << (q & 63);
        ++p.frames;
        if (p.watchdog_dropping) return;  // the watchdog has taken it out of PFC
        if (!p.paused) {
            p.paused = true;
            p.since = now;
            if (roce_.pfc.watchdog && saturating_add(now, *roce_.pfc.watchdog) != Time::max())
                sim.post(now + *roce_.pfc.watchdog, *this, (std::uint64_t{q} << 3) | kWatchdog);
        }
        p.until = saturating_add(now, quanta_[layout_.port[q]]);
        if (p.until != Time::max()) sim.post(p.until, *this, (std::uint64_t{q} << 3) | kExpiry);
        return;
    }
    if (p.watchdog_dropping) {  // the peer has drained: back to lossless
        p.watchdog_dropping = false;
        return;
    }
    if (p.paused) resume(sim, q);
}

void Pfc::resume(Simulator& sim, std::uint32_t q) {
    Pause& p = pause_[q];
    p.paused = false;
    p.resumed = sim.now();
    p.total += sim.now() - p.since;
    host_.wake(sim, q);
}

void Pfc::add_counters(FabricCounters& c) const {
    c.pfc_pauses_sent += pauses_sent_;
    c.lossless_drops += lossless_drops_;
    c.drops += lossless_drops_ + drops_;
    c.pfc_watchdog_triggers += watchdog_triggers_;
    for (const Pause& p : pause_) c.paused_time += p.total;
}

}  // namespace fabricsim::fabric
