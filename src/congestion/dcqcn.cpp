// DCQCN reaction point; the rules, their sources and the rounding are in dcqcn.hpp.
#include "congestion/dcqcn.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/errors.hpp"
#include "core/time_limits.hpp"

namespace fabricsim::congestion {

namespace {

using u128 = unsigned __int128;

// rate * num / den in 128 bits, rounded down; the result fits a Bandwidth for num <= den.
Bandwidth scale_down(Bandwidth rate, std::uint64_t num, std::uint64_t den) {
    const u128 product = static_cast<u128>(rate.bits_per_second()) * num;
    return Bandwidth::bps(static_cast<std::int64_t>(product / den));
}

// ceil((a + b) / 2) for non-negative rates: the averaging step of every increase.
Bandwidth average_up(Bandwidth a, Bandwidth b) {
    const std::int64_t x = a.bits_per_second(), y = b.bits_per_second();
    return Bandwidth::bps(x / 2 + y / 2 + ((x % 2) | (y % 2)));
}

// First point of the grid next + k*period (k >= 0) strictly after now; Time::max() (never)
// when that point lies past the end of simulated time.
Time next_after(Time next, Time period, Time now) {
    if (next == Time::max() || next > now) return next;
    const std::int64_t k = (now - next) / period + 1;
    if (k > (Time::max() - next) / period) return Time::max();
    return next + period * k;
}

// base * line_rate / 25 Gb/s, rounded down: the NIC-style scaling of the HPCC ns-3 model's
// run.py (docs/models/dcqcn.md, the `nic` parameter set).
Bandwidth per_25g(Bandwidth base, Bandwidth line_rate) {
    const u128 product = static_cast<u128>(base.bits_per_second()) * static_cast<u128>(line_rate.bits_per_second());
    return Bandwidth::bps(static_cast<std::int64_t>(product / 25'000'000'000ULL));
}

}  // namespace

DcqcnParams DcqcnParams::paper() {
    DcqcnParams p;
    p.reaction = DcqcnReaction::per_cnp;
    p.g = 1.0 / 256.0;
    p.alpha_update_interval = Time::us(55);
    p.rate_decrease_interval = Time::zero();  // per CNP; the receiver paces CNPs
    p.rate_increase_timer = Time::us(55);
    p.byte_counter = Bytes{10'000'000};
    p.fast_recovery_steps = 5;
    p.rate_ai = Bandwidth::Mbps(40);
    p.rate_hai = Bandwidth::Mbps(400);  // 10 x R_AI: the usual choice, unverified
    p.min_rate = Bandwidth::Mbps(100);  // not in the paper: fabricsim's floor
    p.clamp_target_rate = true;         // the paper always sets R_T = R_C on a cut
    p.cnp_interval = Time::us(50);
    return p;
}

DcqcnParams DcqcnParams::nic(Bandwidth line_rate) {
    DcqcnParams p;
    p.reaction = DcqcnReaction::periodic;
    p.g = 1.0 / 256.0;
    p.alpha_update_interval = Time::us(1);
    p.rate_decrease_interval = Time::us(4);
    p.rate_increase_timer = Time::us(300);
    p.byte_counter = Bytes::zero();
    p.fast_recovery_steps = 1;
    p.rate_ai = per_25g(Bandwidth::Mbps(5), line_rate);
    p.rate_hai = per_25g(Bandwidth::Mbps(50), line_rate);
    p.min_rate = Bandwidth::Mbps(1000);
    p.clamp_target_rate = false;
    p.cnp_interval = Time::zero();
    return p;
}

void DcqcnParams::validate() const {
    const std::string key = "roce.dcqcn.";
    if (!(g > 0.0 && g <= 1.0)) throw_config_error(key + "g", "must be in (0, 1], got " + std::to_string(g));
    if (alpha_update_interval <= Time::zero()) throw_config_error(key + "alpha_update_interval", "must be positive");
    if (reaction == DcqcnReaction::periodic && rate_decrease_interval <= Time::zero())
        throw_config_error(key + "rate_decrease_interval", "must be positive for the periodic (nic) reaction");
    if (rate_increase_timer <= Time::zero()) throw_config_error(key + "rate_increase_timer", "must be positive");
    if (byte_counter < Bytes::zero()) throw_config_error(key + "byte_counter", "must not be negative");
    if (fast_recovery_steps < 0) throw_config_error(key + "fast_recovery_steps", "must not be negative");
    if (rate_ai < Bandwidth::zero()) throw_config_error(key + "rate_ai", "must not be negative");
    if (rate_hai < Bandwidth::zero()) throw_config_error(key + "rate_hai", "must not be negative");
    if (min_rate <= Bandwidth::zero()) throw_config_error(key + "min_rate", "must be positive");
    if (cnp_interval < Time::zero()) throw_config_error(key + "cnp_interval", "must not be negative");
}

Dcqcn::Dcqcn(const DcqcnParams& params, Bandwidth line_rate)
    : params_(params), line_rate_(line_rate), current_(line_rate), target_(line_rate) {
    params_.validate();
    if (line_rate_ <= Bandwidth::zero()) throw_config_error("roce.dcqcn", "line rate must be positive");
    if (params_.min_rate > line_rate_) throw_config_error("roce.dcqcn.min_rate", "must not exceed the line rate");
    // The one floating-point step: g becomes a fixed-point fraction, exact for powers of two.
    g_fixed_ = static_cast<std::uint64_t>(std::llround(params_.g * static_cast<double>(alpha_one)));
    g_fixed_ = std::clamp<std::uint64_t>(g_fixed_, 1, alpha_one);
}

std::uint64_t Dcqcn::decayed(std::uint64_t a) const {
    return a - static_cast<std::uint64_t>((static_cast<u128>(a) * g_fixed_) >> alpha_bits);
}

void Dcqcn::update_alpha() {
    alpha_ = decayed(alpha_);
    if (alpha_cnp_seen_) alpha_ += g_fixed_;  // never above 2^32: a - floor(a*g) + g <= 1 for a <= 1
    alpha_cnp_seen_ = false;
}

void Dcqcn::cut(Time now) {
    if (params_.clamp_target_rate || timer_stage_ != 0 || byte_stage_ != 0) target_ = current_;
    const std::uint64_t keep = 2 * alpha_one - alpha_;  // (1 - alpha/2) * 2^33
    current_ = std::max(params_.min_rate, scale_down(current_, keep, 2 * alpha_one));
    timer_stage_ = 0;
    byte_stage_ = 0;
    bytes_since_event_ = Bytes::zero();
    next_increase_ = saturating_add(now, params_.rate_increase_timer);
}

void Dcqcn::increase(Increase kind) {
    const int f = params_.fast_recovery_steps;
    const int t = timer_stage_;
    const int b = params_.byte_counter > Bytes::zero() ? byte_stage_ : timer_stage_;
    if (std::max(t, b) >= f) {
        const Bandwidth step = std::min(t, b) > f ? params_.rate_hai : params_.rate_ai;
        // R_T <= line: compare the step with the room left, as R_T + step may not fit 64 bits.
        target_ = step >= line_rate_ - target_ ? line_rate_ : target_ + step;
    }
    current_ = average_up(current_, target_);
    int& stage = kind == Increase::timer ? timer_stage_ : byte_stage_;
    stage = std::min(stage + 1, f + 1);  // every stage past F behaves alike
}

bool Dcqcn::nothing_left_to_do() const {
    return current_ == line_rate_ && target_ == line_rate_ && !alpha_cnp_seen_ && !decrease_cnp_seen_ &&
           decayed(alpha_) == alpha_ && timer_stage_ > params_.fast_recovery_steps;
}

void Dcqcn::advance(Time now) {
    if (!started_ || asleep_) return;
    for (;;) {
        const Time due = std::min({next_alpha_, next_decrease_, next_increase_});
        if (due > now || due == Time::max()) return;  // max: past the end of time, never
        if (next_alpha_ == due) {
            if (params_.reaction == DcqcnReaction::per_cnp) alpha_cnp_seen_ = false;
            update_alpha();
            next_alpha_ = saturating_add(next_alpha_, params_.alpha_update_interval);
        } else if (next_decrease_ == due) {
            if (decrease_cnp_seen_) cut(due);
            decrease_cnp_seen_ = false;
            next_decrease_ = saturating_add(next_decrease_, params_.rate_decrease_interval);
        } else {
            next_increase_ = saturating_add(next_increase_, params_.rate_increase_timer);
            increase(Increase::timer);
        }
        if (nothing_left_to_do()) {
            asleep_ = true;
            return;
        }
    }
}

void Dcqcn::wake(Time now) {
    if (!asleep_) return;
    asleep_ = false;
    next_alpha_ = next_after(next_alpha_, params_.alpha_update_interval, now);
    if (params_.reaction == DcqcnReaction::periodic)
        next_decrease_ = next_after(next_decrease_, params_.rate_decrease_interval, now);
    next_increase_ = next_after(next_increase_, params_.rate_increase_timer, now);
}

void Dcqcn::on_cnp(Time now) {
    advance(now);
    wake(now);
    const bool first = !started_;
    started_ = true;
    if (params_.reaction == DcqcnReaction::per_cnp) {
        if (first) alpha_ = alpha_one;
        cut(now);
        alpha_cnp_seen_ = true;  // this update counts the CNP: alpha = (1-g)*alpha + g
        update_alpha();
        next_alpha_ = saturating_add(now, params_.alpha_update_interval);  // decay only after a quiet interval
        return;
    }
    if (first) {
        alpha_ = alpha_one;
        target_ = current_;
        alpha_cnp_seen_ = false;
        decrease_cnp_seen_ = true;
        next_alpha_ = saturating_add(now, params_.alpha_update_interval);
        next_decrease_ = saturating_add(now, params_.rate_decrease_interval);
        return;
    }
    alpha_cnp_seen_ = true;
    decrease_cnp_seen_ = true;
}

void Dcqcn::on_sent(Time now, Bytes size) {
    advance(now);
    if (!started_ || params_.byte_counter <= Bytes::zero()) return;
    bytes_since_event_ += size;
    while (bytes_since_event_ >= params_.byte_counter) {
        bytes_since_event_ -= params_.byte_counter;
        increase(Increase::bytes);
    }
    if (!asleep_ && nothing_left_to_do()) asleep_ = true;
}

void Dcqcn::on_ack(Time now, Bytes) { advance(now); }

void Dcqcn::on_timer(Time now) { advance(now); }

Time Dcqcn::next_timer() const {
    if (!started_ || asleep_) return Time::max();
    return std::min({next_alpha_, next_decrease_, next_increase_});
}

}  // namespace fabricsim::congestion
