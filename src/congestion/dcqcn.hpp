// DCQCN reaction point: the sender-side rate control of RoCEv2, one object per queue pair.
//
// Sources: Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015,
// §3.1 (the algorithm; "paper" below) and the NIC-style variant (after Mellanox ConnectX-4
// and later) as the HPCC ns-3 model runs it (`run.py --cc dcqcn`), restated in
// `docs/REFERENCES.md`. Parameters and their sources: docs/models/dcqcn.md.
//
// State: current rate R_C, target rate R_T, congestion estimate alpha in [0, 1], and the
// number of rate-increase events since the last cut (timer count T, byte count BC).
// Before the first CNP: R_C = R_T = line rate and no timer runs.
//
//   first CNP:        alpha = 1 and the timers start (NIC style also sets R_T = R_C)
//   cut (a "decrease"):
//       R_T = R_C                     if clamp_target_rate, or if an increase event happened
//                                     since the last cut (otherwise the old target is kept)
//       R_C = max(R_min, R_C * (1 - alpha/2))
//       T = BC = 0; the increase timer restarts; the byte counter restarts
//   increase event (timer every rate_increase_timer; byte counter every byte_counter bytes
//   sent), with T and BC counted before the event (BC taken equal to T without a byte counter):
//       max(T, BC) <  F:   fast recovery    R_C = (R_C + R_T) / 2
//       min(T, BC) >  F:   hyper increase   R_T = min(line, R_T + R_HAI); R_C = (R_C + R_T) / 2
//       otherwise:         additive         R_T = min(line, R_T + R_AI);  R_C = (R_C + R_T) / 2
//     (single counter: F fast-recovery steps, one additive step, then hyper increase)
//
// The two reactions differ in when alpha moves and when the rate is cut:
//   per_cnp  (paper, §3.1): every CNP cuts at once, then alpha = (1-g)*alpha + g; when no CNP
//            came for alpha_update_interval, alpha = (1-g)*alpha (again every interval). The
//            receiver paces CNPs (cnp_interval, CnpPacer), which bounds the cut rate.
//   periodic (NIC): every alpha_update_interval  alpha = (1-g)*alpha + g  if a CNP arrived in
//            that interval, else (1-g)*alpha; every rate_decrease_interval the rate is cut if a
//            CNP arrived since the last check. Both periods are anchored at the first CNP.
//            The first CNP only arms the flags of the decrease check, not of the alpha update.
// Events due at the same instant run alpha update, then decrease check, then increase timer;
// a cut restarts the increase timer, so an increase due at the same instant is dropped.
// A period may be as long as the input allows: an event it would put past the end of
// simulated time (Time::max(), core/time_limits.hpp) never comes due.
//
// Numbers (deterministic on every machine, no floating point after construction):
//   rates are integer bits/s. A cut rounds down: R_C*(1 - alpha/2) = floor(R_C*(2^33 - a)/2^33)
//   (128-bit product); an average rounds up: ceil((R_C + R_T)/2), so R_C reaches R_T exactly.
//   alpha is fixed point, a = alpha * 2^32 in [0, 2^32]; g is rounded once to g_q = round(g*2^32)
//   (1/256 is exact); (1-g)*alpha = a - floor(a*g_q / 2^32). Decay therefore rounds alpha up by
//   under 2^-32 per step and stops at a < 2^32/g_q (about 6e-8 for g = 1/256).
//
// The object never touches the event queue (docs/models/): the NIC asks next_timer() and calls
// on_timer(). Once R_C = R_T = line rate, alpha has stopped moving and the increase stage is
// past F, every timer event would change nothing, so the object stops asking for timers until
// the next CNP (then the periods resume on their original grid): an idle QP costs no events.
#pragma once

#include <cstdint>

#include "congestion/congestion_control.hpp"
#include "core/units.hpp"

namespace fabricsim::congestion {

enum class DcqcnReaction {
    per_cnp,   // SIGCOMM'15 §3.1: cut and alpha update on every CNP
    periodic,  // NIC style: alpha update and decrease check on fixed periods with CNP flags
};

struct DcqcnParams {
    DcqcnReaction reaction = DcqcnReaction::periodic;
    double g = 1.0 / 256.0;          // alpha gain (EWMA_GAIN), 0 < g <= 1
    Time alpha_update_interval;      // alpha period tau' (ALPHA_RESUME_INTERVAL)
    Time rate_decrease_interval;     // periodic only (RATE_DECREASE_INTERVAL)
    Time rate_increase_timer;        // T (RP_TIMER)
    Bytes byte_counter;              // B (BYTE_COUNTER); zero disables
    int fast_recovery_steps = 5;     // F (FAST_RECOVERY_TIMES)
    Bandwidth rate_ai;               // R_AI (RATE_AI)
    Bandwidth rate_hai;              // R_HAI (RATE_HAI)
    Bandwidth min_rate;              // R_min (MIN_RATE)
    bool clamp_target_rate = false;  // CLAMP_TARGET_RATE
    Time cnp_interval;               // notification point: at most one CNP per QP per
                                     // interval; zero = one per marked packet

    // SIGCOMM'15 values (40G NICs in the paper; not scaled with line rate).
    static DcqcnParams paper();
    // NIC-style values of the HPCC ns-3 model; R_AI, R_HAI scale with line_rate / 25 Gb/s.
    static DcqcnParams nic(Bandwidth line_rate);

    // Throws ConfigError (key path roce.dcqcn.<name>) for a value the model cannot run.
    void validate() const;
};

class Dcqcn final : public CongestionControl {
public:
    static constexpr int alpha_bits = 32;
    static constexpr std::uint64_t alpha_one = std::uint64_t{1} << alpha_bits;

    // Validates params; throws ConfigError if line_rate is not positive or below min_rate.
    Dcqcn(const DcqcnParams& params, Bandwidth line_rate);

    void on_ack(Time now, Bytes acked) override;
    void on_cnp(Time now) override;
    void on_sent(Time now, Bytes size) override;
    void on_timer(Time now) override;
    Time next_timer() const override;
    Bandwidth rate() const override { return current_; }

    Bandwidth target_rate() const { return target_; }
    Bandwidth line_rate() const { return line_rate_; }
    // alpha in units of 2^-32 (exact) and as a number (reports and tests only).
    std::uint64_t alpha_fixed() const { return alpha_; }
    double alpha() const { return static_cast<double>(alpha_) / static_cast<double>(alpha_one); }
    // Increase events since the last cut, saturated at F + 1.
    int timer_stage() const { return timer_stage_; }
    int byte_stage() const { return byte_stage_; }
    // True once the object needs no timer until the next CNP (see the header comment).
    bool idle() const { return started_ && asleep_; }
    const DcqcnParams& params() const { return params_; }

private:
    enum class Increase { timer, bytes };

    void advance(Time now);
    void wake(Time now);
    void update_alpha();
    void cut(Time now);
    void increase(Increase kind);
    std::uint64_t decayed(std::uint64_t a) const;
    bool nothing_left_to_do() const;

    DcqcnParams params_;
    Bandwidth line_rate_;
    std::uint64_t g_fixed_ = 0;

    Bandwidth current_;
    Bandwidth target_;
    std::uint64_t alpha_ = alpha_one;
    int timer_stage_ = 0;
    int byte_stage_ = 0;
    Bytes bytes_since_event_;
    bool started_ = false;
    bool asleep_ = false;
    bool alpha_cnp_seen_ = false;     // periodic: a CNP since the last alpha update
    bool decrease_cnp_seen_ = false;  // periodic: a CNP since the last decrease check

    Time next_alpha_ = Time::max();
    Time next_decrease_ = Time::max();
    Time next_increase_ = Time::max();
};

}  // namespace fabricsim::congestion
