// ECN marking at a switch egress queue, RED style (docs/models/ "Ethernet switch"; the
// `EcnMarker` of docs/ARCHITECTURE.md). Decided when a packet is dequeued, on the queue it leaves behind
// it, with the marking probability
//
//     p(q) = 0                              q <= Kmin
//            Pmax * (q - Kmin)/(Kmax - Kmin) Kmin < q <= Kmax
//            1                              q > Kmax
//
// as in DCQCN (Zhu et al., SIGCOMM 2015, §3.1 and §5) and the HPCC ns-3 model; see
// `docs/REFERENCES.md` and docs/models/dcqcn.md.
//
// The random draw comes from the caller (the switch's per-port RNG stream, docs/ARCHITECTURE.md), so the
// marker holds no RNG and one seed gives one marking sequence.
#pragma once

#include "core/units.hpp"

namespace fabricsim::congestion {

// p(q) above for thresholds Kmin <= Kmax and Pmax in [0, 1] (RedParams::validate()).
inline double red_probability(Bytes queue, Bytes kmin, Bytes kmax, double pmax) {
    if (queue <= kmin) return 0.0;
    if (queue > kmax) return 1.0;
    // Kmin < q <= Kmax implies Kmax > Kmin: no division by zero.
    const auto above = static_cast<double>((queue - kmin).count());
    const auto span = static_cast<double>((kmax - kmin).count());
    return pmax * above / span;
}

struct RedParams {
    Bytes kmin;
    Bytes kmax;
    double pmax = 0.0;

    // NIC-style default of the HPCC ns-3 model (`run.py`): Kmin = 100 KB * bw/25G,
    // Kmax = 400 KB * bw/25G (KB = 1000 B), Pmax = 0.2: 400 KB / 1600 KB at 100 Gb/s.
    static RedParams nic(Bandwidth line_rate);

    // Throws ConfigError (roce.ecn.<name>) unless 0 <= Kmin <= Kmax and 0 <= Pmax <= 1.
    void validate() const;
};

class RedMarker {
public:
    explicit RedMarker(const RedParams& params);

    // p(q) above, in [0, 1].
    double probability(Bytes queue) const;

    // Mark iff uniform_draw < p(queue), with uniform_draw in [0, 1): never at or below Kmin,
    // always above Kmax.
    bool should_mark(Bytes queue, double uniform_draw) const {
        if (queue <= params_.kmin) return false;
        if (queue > params_.kmax) return true;
        return uniform_draw < probability(queue);
    }

    const RedParams& params() const { return params_; }

private:
    RedParams params_;
};

using EcnMarker = RedMarker;

}  // namespace fabricsim::congestion
