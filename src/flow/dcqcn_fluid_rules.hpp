// The per-element arithmetic of the DCQCN fluid model (dcqcn_fluid.hpp), written once for the
// CPU loop (dcqcn_fluid.cpp) and the CUDA kernels (dcqcn_fluid_cuda.cu): one call updates one
// link or one flow for one time step, reading only the previous step's values of the other
// kind, so a step is two data-parallel passes (links, then flows) on either backend.
//
// The model is the fluid model of DCQCN of Zhu et al., "Congestion Control for Large-Scale
// RDMA Deployments", SIGCOMM 2015, §5 ("fluid model"), as restated with its fixed-point
// analysis in Zhu, Ghobadi, Misra and Padhye, "ECN or Delay: Lessons Learnt from Analysis of
// DCQCN and TIMELY", CoNEXT 2016, §3 (equations 1-5 there). With p the probability that a
// packet is marked, x = R_C(t − τ*) the sender's rate one feedback delay ago in packets/s and
// p = p(t − τ*) likewise delayed, and (1 − p)^n the chance that n packets pass unmarked:
//
//   link   p_l = RED(q_l): 0 ≤ Kmin, Pmax·(q − Kmin)/(Kmax − Kmin) ≤ Kmax, 1 above   (1)
//          dq_l/dt = Σ_{f ∋ l} R_f − C_l         (q_l ≥ 0)                              (2)
//   flow   dα/dt   = g/τ' · [ (1 − (1−p)^{τ'x}) − α ]                                  (3)
//          dR_T/dt = −(R_T − R_C)/τ · (1 − (1−p)^{τx})                                  (4)
//                    + Σ_{c ∈ timer, bytes} ev_c · R_AI · (1−p)^{F·n_c}
//          dR_C/dt = −R_C·α/(2τ) · (1 − (1−p)^{τx})                                     (5)
//                    + Σ_c ev_c · (R_T − R_C)/2
//
// τ: the rate-decrease period (a cut when at least one mark came in it), τ': the alpha
// period, n_timer = T·x packets per timer event, n_bytes = B packets per byte-counter event,
// and ev_c = x·p / ((1−p)^{−n_c} − 1) the rate of increase events of counter c, which the
// papers derive from the counter restarting at every cut (it tends to 1/T and x/B as p → 0).
// A flow's p is that of its path, 1 − Π_l (1 − p_l).
//
// Two additions of ours, each reducing to the papers' model when switched off:
//  - Hyper increase. The papers leave it out; the packet model runs it (dcqcn.hpp). Past F
//    events both counters step R_T by R_HAI instead of R_AI, so the R_AI term of counter c is
//    weighted by (1−p)^{F·n_c} − (1−p)^{(F+1)·n_max} and an R_HAI term by (1−p)^{(F+1)·n_max},
//    n_max the larger counter's packets per event (both counters must be past F). R_HAI = R_AI
//    gives back equation (4).
//  - Back-pressure (PFC, InfiniBand credits): a link whose queue reached its limit q_max (the
//    XOFF its upstream pauses at, or the credit buffer) holds its senders back: it takes
//    θ_l = min(1, C_l / offered_l) of each flow's rate, offered_l = Σ share·R_C, and a flow
//    sends R_f = R_C · min_{l ∋ f} θ_l. The queue then stops growing at q_max and the link stays
//    busy; no byte is dropped. See docs/models/flow.md for what this cannot show.
//
// Integration is explicit Euler with a fixed step h and the delayed values read from a ring of
// each flow's past (p, R_C), so the delay-differential equations (3)-(5) need no solver.
#pragma once

#include "flow/flow_rules.hpp"  // FABRICSIM_HD

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace fabricsim::flow {

// Every parameter in plain SI doubles (bytes, bytes/s, seconds), converted once from the
// typed DcqcnParams by fluid_params() (dcqcn_fluid.hpp).
struct FluidParams {
    double g = 1.0 / 256;      // alpha gain
    double tau = 4e-6;         // τ: rate-decrease period (s)
    double tau_alpha = 1e-6;   // τ': alpha period (s)
    double timer = 300e-6;     // T: rate-increase timer (s)
    double byte_counter = 0;   // B (bytes); 0: no byte counter
    double fast_recovery = 1;  // F
    double rate_ai = 0;        // R_AI (bytes/s)
    double rate_hai = 0;       // R_HAI (bytes/s)
    double min_rate = 0;       // R_min (bytes/s)
    double mtu = 4096;         // bytes per packet: packet counts in (1)-(5)
    // A cut sets R_T = R_C (the papers, equation (4)); false: only after an increase event
    // since the previous cut (the NIC preset; the coupled overlay then runs dcqcn_events.hpp).
    bool clamp_target = true;
    bool periodic = false;  // the NIC's reaction (a cut per decrease period holding a CNP), not per CNP
    bool react = true;      // false: no rate control (R_C stays at line): back-pressure only
};

// Raw views of the model's arrays, the same on host and device. Links: capacity, RED
// thresholds and the back-pressure limit; the transposed uses (link_first, use_of, flow_of) to
// gather a link's arrivals. Flows: their uses (first, link_of, share), line rate, feedback delay
// in steps, and state. History: `depth` slots per flow of (p, R_C).
struct FluidArrays {
    std::size_t links = 0, flows = 0;
    std::uint32_t depth = 1;
    const double *capacity = nullptr, *kmin = nullptr, *kmax = nullptr, *pmax = nullptr, *qmax = nullptr;
    const std::uint32_t *link_first = nullptr, *use_of = nullptr, *flow_of = nullptr;
    const std::uint32_t *first = nullptr, *link_of = nullptr;
    const double* share = nullptr;
    const double* line = nullptr;
    const std::uint32_t* delay = nullptr;
    double *queue = nullptr, *mark = nullptr, *throttle = nullptr, *arrival = nullptr;        // per link
    double *rc = nullptr, *rt = nullptr, *alpha = nullptr, *send = nullptr, *left = nullptr;  // per flow
    std::uint64_t* finished = nullptr;             // per flow: the step it sent its last byte in; 0: not yet
    double *hist_p = nullptr, *hist_rc = nullptr;  // flows × depth
};

// (1): the RED marking probability of a queue of q bytes.
FABRICSIM_HD inline double red_probability(double q, double kmin, double kmax, double pmax) {
    if (q <= kmin) return 0.0;
    if (q > kmax) return 1.0;
    return pmax * (q - kmin) / (kmax - kmin);
}

// (1 − p)^n for n ≥ 0 packets, given lq = log(1 − p) (−inf when p = 1).
FABRICSIM_HD inline double unmarked(double lq, double n) { return n > 0 ? exp(n * lq) : 1.0; }

// ev_c = x·p / ((1−p)^{−n} − 1): events per second of a counter of n packets per event at
// x packets/s. Its limit x/n as p → 0 (and 0 at p = 1).
FABRICSIM_HD inline double event_rate(double x, double p, double lq, double n) {
    if (!(n > 0) || !(x > 0)) return 0.0;
    if (p <= 0.0) return x / n;
    if (p >= 1.0) return 0.0;
    const double grow = expm1(-n * lq);  // (1−p)^{−n} − 1 > 0
    return grow > 0 ? x * p / grow : x / n;
}

struct FluidRates {
    double drc, drt, dalpha;
};

// The right-hand sides of (3)-(5) for one flow: current R_C, R_T, α (bytes/s, bytes/s, 1),
// delayed path marking p_d and delayed rate rc_d.
FABRICSIM_HD inline FluidRates dcqcn_derivatives(const FluidParams& P, double rc, double rt, double alpha, double p_d,
                                                 double rc_d) {
    const double x = rc_d / P.mtu;  // packets/s one feedback delay ago
    const double lq = p_d >= 1.0 ? -INFINITY : log1p(-p_d);
    const double cut = 1.0 - unmarked(lq, P.tau * x);               // a cut in this τ
    const double alpha_mark = 1.0 - unmarked(lq, P.tau_alpha * x);  // a CNP in this τ'
    const double n_timer = P.timer * x;
    const double n_bytes = P.byte_counter > 0 ? P.byte_counter / P.mtu : 0.0;
    const double n_max = n_bytes > n_timer ? n_bytes : n_timer;
    const double past_f = unmarked(lq, (P.fast_recovery + 1.0) * n_max);  // both counters past F
    FluidRates r{};
    r.dalpha = P.g / P.tau_alpha * (alpha_mark - alpha);
    r.drt = -(rt - rc) / P.tau * cut;
    r.drc = -rc * alpha / (2.0 * P.tau) * cut;
    const double ns[2] = {n_timer, n_bytes};
    for (int c = 0; c < 2; ++c) {
        const double n = ns[c];
        if (!(n > 0)) continue;
        const double ev = event_rate(x, p_d, lq, n);
        double additive = unmarked(lq, P.fast_recovery * n) - past_f;
        if (additive < 0) additive = 0;
        r.drt += ev * (P.rate_ai * additive + P.rate_hai * past_f);
        r.drc += ev * (rt - rc) / 2.0;
    }
    return r;
}

// One step of a link: gather its arrivals (R_f of the previous step), integrate (2), then
// its marking (1) and back-pressure θ_l.
FABRICSIM_HD inline void fluid_link_step(const FluidArrays& a, std::size_t l, double h) {
    double arrival = 0.0, offered = 0.0;
    for (std::uint32_t j = a.link_first[l]; j < a.link_first[l + 1]; ++j) {
        const std::uint32_t f = a.flow_of[j];
        const double s = a.share[a.use_of[j]];
        arrival += s * a.send[f];
        if (a.left[f] > 0) offered += s * a.rc[f];
    }
    const double c = a.capacity[l];
    double q = a.queue[l] + h * (arrival - c);
    if (q < 0) q = 0;
    a.queue[l] = q;
    a.arrival[l] = arrival;
    a.mark[l] = red_probability(q, a.kmin[l], a.kmax[l], a.pmax[l]);
    a.throttle[l] = (q >= a.qmax[l] && offered > c) ? c / offered : 1.0;
}

// One step of a flow at step number `step` (from 0): its path's marking and back-pressure from
// the links' new values, the delayed (p, R_C) from its ring, (3)-(5) by Euler, then what it
// sends this step (R_C · θ, never more than the bytes it has left).
FABRICSIM_HD inline void fluid_flow_step(const FluidParams& P, const FluidArrays& a, std::size_t f, std::uint64_t step,
                                         double h) {
    if (!(a.left[f] > 0)) {
        a.send[f] = 0.0;
        return;
    }
    double keep = 1.0, theta = 1.0;
    for (std::uint32_t k = a.first[f]; k < a.first[f + 1]; ++k) {
        const std::uint32_t l = a.link_of[k];
        keep *= 1.0 - a.mark[l];
        if (a.throttle[l] < theta) theta = a.throttle[l];
    }
    const std::size_t base = f * a.depth;
    const std::uint32_t slot = static_cast<std::uint32_t>(step % a.depth);
    const std::uint32_t back = static_cast<std::uint32_t>((step + a.depth - a.delay[f]) % a.depth);
    a.hist_p[base + slot] = 1.0 - keep;
    a.hist_rc[base + slot] = a.rc[f];
    const double line = a.line[f];
    double rc = a.rc[f], rt = a.rt[f], alpha = a.alpha[f];
    if (P.react) {
        const FluidRates d = dcqcn_derivatives(P, rc, rt, alpha, a.hist_p[base + back], a.hist_rc[base + back]);
        rc += h * d.drc;
        rt += h * d.drt;
        alpha += h * d.dalpha;
        const double floor = P.min_rate < line ? P.min_rate : line;
        rt = rt > line ? line : (rt < floor ? floor : rt);
        rc = rc > line ? line : (rc < floor ? floor : rc);
        alpha = alpha > 1.0 ? 1.0 : (alpha < 0.0 ? 0.0 : alpha);
    }
    a.rc[f] = rc;
    a.rt[f] = rt;
    a.alpha[f] = alpha;
    double send = rc * theta;
    if (send * h >= a.left[f]) {
        send = a.left[f] / h;
        a.left[f] = 0.0;
        a.finished[f] = step + 1;
    } else {
        a.left[f] -= send * h;
    }
    a.send[f] = send;
}

}  // namespace fabricsim::flow
