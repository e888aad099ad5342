// DCQCN's reaction point as the NIC runs it, on marks drawn from the fluid queues' marking
// probability: the coupled overlay's rate control for the NIC preset (flow_congestion.hpp,
// docs/models/flow.md, "The NIC's reaction point").
//
// The fluid equations (3)-(5) of dcqcn_fluid_rules.hpp (Zhu et al., CoNEXT 2016, §3) are the
// papers' reaction point in the mean: a cut sets R_T = R_C and increase events come at their
// mean rate. The NIC preset differs in ways a mean field of the rates cannot carry
// (congestion/dcqcn.cpp, Dcqcn::on_cnp, cut and increase):
//  - a cut keeps R_T unless an increase event came since the previous cut
//    (`clamp_target_rate: false`), so a crash from line rate to R_min leaves R_T at line;
//  - a cut restarts the increase timer, so the first increase event comes a whole period T
//    after the last cut and takes R_C halfway back to R_T at once;
//  - whether a decrease period holds a CNP is a chance per QP, so QPs on one port are cut
//    at different times and drift apart.
// On an incast every sender is cut together and jumps together 300 µs later; a mean rate of
// increase events smooths that jump away, and deterministic cuts keep the QPs in lock step.
//
// So with the NIC's periodic reaction a QP runs the NIC's state machine (the same periods, the
// same rules, in doubles), and the only mean-field quantity is the marking. The packets a QP
// sends leave the switch queues on its path Σ q/C later and are marked there with the RED
// probability of the queue they leave (the packet model marks at dequeue); a CNP returns one
// feedback delay after that. So in a step of h, n of its packets bring their marks back
// and it gets a CNP with probability 1 − (1−p)^n, drawn from the run's random stream
// (flow_congestion.cpp keeps each QP's packets in flight by the step they come back in).
// Taking the marks on what the QP sends now instead (the fluid equations' x = R_C(t − τ*))
// cuts a sender that jumps into a deep queue at once, where the packet model's sender first
// hears of it when its own packets reach the head of that queue.
#pragma once

#include "core/rng.hpp"
#include "flow/dcqcn_fluid_rules.hpp"

#include <algorithm>
#include <cmath>

namespace fabricsim::flow {

struct DcqcnEventState {
    bool started = false;                          // a first CNP came (the NIC's timers run from it)
    bool cnp_alpha = false, cnp_decrease = false;  // a CNP in the current alpha / decrease period
    double next_alpha = INFINITY, next_decrease = INFINITY, next_increase = INFINITY;  // s
    double bytes_since = 0;               // since the last cut or byte-counter event
    int timer_stage = 0, byte_stage = 0;  // increase events since the last cut (≤ F + 1)
};

// Dcqcn::increase: fast recovery for the first F events of both counters, then additive,
// then hyper once both are past F; R_C halfway to R_T.
inline void dcqcn_event_increase(const FluidParams& P, DcqcnEventState& e, bool timer, double& rc, double& rt,
                                 double line) {
    const int f = static_cast<int>(P.fast_recovery);
    const int t = e.timer_stage, b = P.byte_counter > 0 ? e.byte_stage : e.timer_stage;
    if (std::max(t, b) >= f) rt = std::min(line, rt + (std::min(t, b) > f ? P.rate_hai : P.rate_ai));
    rc = (rc + rt) / 2;
    int& stage = timer ? e.timer_stage : e.byte_stage;
    stage = std::min(stage + 1, f + 1);
}

// Dcqcn::advance: the alpha, decrease and increase periods due by `now` (s), in time order.
inline void dcqcn_event_periods(const FluidParams& P, DcqcnEventState& e, double& rc, double& rt, double& alpha,
                                double now, double line) {
    for (;;) {
        const double due = std::min({e.next_alpha, e.next_decrease, e.next_increase});
        if (!(due <= now)) return;
        if (e.next_alpha == due) {
            alpha = alpha * (1 - P.g) + (e.cnp_alpha ? P.g : 0.0);
            e.cnp_alpha = false;
            e.next_alpha += P.tau_alpha;
        } else if (e.next_decrease == due) {
            if (e.cnp_decrease) {  // Dcqcn::cut
                if (P.clamp_target || e.timer_stage != 0 || e.byte_stage != 0) rt = rc;
                rc = std::max(std::min(P.min_rate, line), rc * (1 - alpha / 2));
                e.timer_stage = e.byte_stage = 0;
                e.bytes_since = 0;
                e.next_increase = due + P.timer;
            }
            e.cnp_decrease = false;
            e.next_decrease += P.tau;
        } else {
            e.next_increase += P.timer;
            dcqcn_event_increase(P, e, true, rc, rt, line);
        }
    }
}

// The marks that reach a QP in one step, on whole packets. A switch marks packets (RED at
// dequeue) and the receiver answers each marked one with a CNP (Zhu et al., SIGCOMM 2015,
// §3.1; the NIC preset's cnp_interval is 0, so none is held back), so a step in which only
// part of a packet leaves its last queue brings no mark: that part counts with the next.
// `partial` carries it; `back` is the packets whose marks came back this step, `p` the marking
// probability of the queue they left. Returns the log of the chance that none of the whole
// packets was marked (0: none came, or p = 0; −∞: p = 1 and one came). Drawn on fractions
// instead, a queue above Kmax (p = 1) cut a QP at R_min = 1 Gb/s in every 4 µs decrease
// period, where its 4 KiB packets, 33 µs apart, bring at most one CNP each.
inline double unmarked_log_whole(double& partial, double back, double p) {
    partial += back;
    const double whole = std::floor(partial);
    partial -= whole;
    if (whole <= 0 || p <= 0) return 0.0;
    return p >= 1 ? -INFINITY : whole * std::log1p(-p);
}

// One step of h ending at `now` (s): `unmarked_log` is the log of the chance that none of the
// QP's packets whose marks reach it in this step was marked (0: none marked, or none came),
// `sent` the bytes it sent this step; `rng` draws whether a CNP came.
inline void dcqcn_event_step(const FluidParams& P, DcqcnEventState& e, double& rc, double& rt, double& alpha,
                             double unmarked_log, double sent, double now, double line, Rng& rng) {
    dcqcn_event_periods(P, e, rc, rt, alpha, now, line);
    const bool cnp = unmarked_log < 0 && rng.uniform01() < -std::expm1(unmarked_log);
    if (cnp && !e.started) {  // Dcqcn::on_cnp, the first: α = 1, R_T = R_C, a cut one period on
        e.started = true;
        alpha = 1;
        rt = rc;
        e.cnp_decrease = true;
        e.next_alpha = now + P.tau_alpha;
        e.next_decrease = now + P.tau;
    } else if (cnp) {
        e.cnp_alpha = e.cnp_decrease = true;
    }
    if (e.started && P.byte_counter > 0) {
        e.bytes_since += sent;
        while (e.bytes_since >= P.byte_counter) {
            e.bytes_since -= P.byte_counter;
            dcqcn_event_increase(P, e, false, rc, rt, line);
        }
    }
}

// An idle gap up to `now` (s): no CNPs, so α decays every τ', no cut, and the timer's
// increase events come as they are due.
inline void dcqcn_event_idle(const FluidParams& P, DcqcnEventState& e, double& rc, double& rt, double& alpha,
                             double now, double line) {
    // A CNP still pending counts at its periods; then every alpha period decays α and no
    // decrease period cuts, in closed form.
    dcqcn_event_periods(P, e, rc, rt, alpha, std::min(now, std::max(e.next_alpha, e.next_decrease)), line);
    if (e.next_alpha <= now) {
        const double k = std::floor((now - e.next_alpha) / P.tau_alpha) + 1;
        alpha *= std::pow(1 - P.g, k);
        e.next_alpha += k * P.tau_alpha;
    }
    if (e.next_decrease <= now) e.next_decrease += (std::floor((now - e.next_decrease) / P.tau) + 1) * P.tau;
    while (e.next_increase <= now) {
        if (rc >= line && rt >= line) {  // nothing left to raise: the timer's grid only
            e.next_increase += (std::floor((now - e.next_increase) / P.timer) + 1) * P.timer;
            break;
        }
        e.next_increase += P.timer;
        dcqcn_event_increase(P, e, true, rc, rt, line);
    }
}

}  // namespace fabricsim::flow
