// A hand-driven clock for the congestion tests: plays the NIC's part of the contract in
// congestion_control.hpp (call on_timer when next_timer() falls due), with no simulator.
#pragma once

#include "congestion/congestion_control.hpp"

namespace fabricsim::congestion::testing {

// Runs every timer the object asks for up to and including `until`, each at its own time.
inline void run_timers_until(CongestionControl& cc, Time until) {
    while (cc.next_timer() <= until) cc.on_timer(cc.next_timer());
}

// A CNP at `t`, after the timers due by then, as a NIC's event loop would deliver it.
inline void cnp_at(CongestionControl& cc, Time t) {
    run_timers_until(cc, t);
    cc.on_cnp(t);
}

}  // namespace fabricsim::congestion::testing
