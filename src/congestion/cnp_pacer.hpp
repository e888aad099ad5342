// DCQCN notification point pacing: the receiving NIC sends a CNP for a queue pair when an
// ECN-marked packet of it arrives, at most once per `cnp_interval` (Zhu et al., SIGCOMM 2015,
// §3.1: 50 us). Interval zero sends a CNP for every marked packet (the NIC-style setting of
// the HPCC ns-3 model; `docs/REFERENCES.md`). One object per QP, plain data.
#pragma once

#include "core/units.hpp"

namespace fabricsim::congestion {

class CnpPacer {
public:
    // Throws ConfigError (roce.dcqcn.cnp_interval) for a negative interval.
    explicit CnpPacer(Time cnp_interval);

    // A marked packet of this QP arrived at `now` (never earlier than the previous call).
    // True when the NIC sends a CNP now: the first marked packet, and then any marked packet
    // at least cnp_interval after the last CNP sent.
    bool on_marked_packet(Time now) {
        if (sent_any_ && now - last_cnp_ < interval_) return false;
        sent_any_ = true;
        last_cnp_ = now;
        return true;
    }

    Time interval() const { return interval_; }

private:
    Time interval_;
    Time last_cnp_;
    bool sent_any_ = false;
};

}  // namespace fabricsim::congestion
