// The standing queue DCQCN keeps at a saturated port, from the fixed point of its fluid model
// (dcqcn_fluid_rules.hpp; Zhu et al., "ECN or Delay", CoNEXT 2016, §3): N flows sharing a port
// of capacity C settle at R_C = C/N each, with the marking probability p* that balances
// DCQCN's cuts against its increases, and the queue RED needs to mark with p*:
//
//   α = 1 − u(τ'x),  cut = 1 − u(τx),  x = C/(N·mtu),  u(n) = (1 − p)^n
//   R_C·α·cut² = τ²·E·Σ_c ev_c·[R_AI·(u(F·n_c) − u((F+1)·n_max)) + R_HAI·u((F+1)·n_max)]
//   q* = Kmin + p*·(Kmax − Kmin)/Pmax   (p* ≤ Pmax; above, the queue sits at Kmax)
//
// (E = Σ_c ev_c, the increase events per second; the derivation is in the header above and
// in tests/flow/test_dcqcn_fluid.cpp.) The flow model (`simulation.flow_congestion: dcqcn`)
// charges a message that starts at a saturated RoCE switch port q*/C of queueing there; its
// rates stay max-min, the fair share DCQCN's fixed point also gives (docs/models/flow.md).
#pragma once

#include "congestion/red_marker.hpp"
#include "fabric/topology.hpp"
#include "flow/dcqcn_fluid_rules.hpp"
#include "scenario/spec.hpp"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace fabricsim::flow {

// p* for n flows on a link of `capacity` bytes/s, by bisection in [1e-12, 1).
double dcqcn_fixed_point_marking(const FluidParams& params, double capacity, int flows);
// q* in bytes (the RED inversion above).
double dcqcn_standing_queue(const FluidParams& params, const congestion::RedParams& red, double capacity, int flows);

// Per directed link of a RoCE fabric: the queueing a message meets at a saturated port with
// n flows on it. Switch egress ports with ECN: q*/C (cached per link and n); elsewhere (NICs,
// NVLink, PCIe, a fabric without ECN or DCQCN) half a packet, the flow model's estimate
// without congestion control.
class StandingQueues {
public:
    StandingQueues(const fabric::Topology& topology, const scenario::ClusterSpec& cluster);
    Time delay(std::uint32_t directed_link, std::size_t flows, std::uint32_t unit) const;

private:
    const fabric::Topology& topology_;
    FluidParams params_;
    bool on_ = false;
    std::vector<congestion::RedParams> red_;                 // per directed link; pmax 0: does not mark
    mutable std::unordered_map<std::uint64_t, Time> cache_;  // (link, flows) -> delay
};

}  // namespace fabricsim::flow
