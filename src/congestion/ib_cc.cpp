// InfiniBand congestion control; the rules and their sources are in ib_cc.hpp.
#include "congestion/ib_cc.hpp"

#include <algorithm>
#include <string>

#include "core/errors.hpp"

namespace fabricsim::congestion {

namespace {

using u128 = unsigned __int128;

const std::string kKey = "infiniband.congestion_control.";

}  // namespace

Time CctEntry::delay(Time packet_time) const {
    const u128 scaled = static_cast<u128>(packet_time.picoseconds()) * static_cast<u128>(multiplier);
    return Time::ps(static_cast<std::int64_t>(scaled >> shift));
}

Bandwidth CctEntry::rate(Bandwidth line_rate) const {
    const u128 one = u128{1} << shift;
    const u128 scaled = static_cast<u128>(line_rate.bits_per_second()) << shift;
    return Bandwidth::bps(static_cast<std::int64_t>(scaled / (one + static_cast<u128>(multiplier))));
}

Time cct_packet_time(Bandwidth line_rate, Bytes mtu) { return transmit_time(mtu + Bytes{26}, line_rate); }

std::vector<CctEntry> IbCcParams::linear_table(Time max_delay, Time packet_time, int limit) {
    if (packet_time <= Time::zero()) throw_config_error(kKey + "table", "packet time must be positive");
    if (limit < 0) throw_config_error(kKey + "ccti_limit", "must not be negative");
    // The top multiplier: max_delay = T_pkt * M / 2^s with the finest shift whose M fits.
    int shift = CctEntry::max_shift;
    u128 top = 0;
    for (;; --shift) {
        top = (static_cast<u128>(max_delay.picoseconds()) << shift) / static_cast<u128>(packet_time.picoseconds());
        if (top <= CctEntry::max_multiplier || shift == 0) break;
    }
    top = std::min<u128>(top, CctEntry::max_multiplier);  // unreachable delay: the largest there is
    std::vector<CctEntry> table(static_cast<std::size_t>(limit) + 1);
    for (int i = 1; i <= limit; ++i)
        table[static_cast<std::size_t>(i)] =
            CctEntry{shift, static_cast<int>(static_cast<u128>(i) * top / static_cast<u128>(limit))};
    return table;
}

IbCcParams IbCcParams::defaults(Bandwidth line_rate, Bytes mtu) {
    IbCcParams p;
    p.table = linear_table(kCctMaxDelay, cct_packet_time(line_rate, mtu), p.ccti_limit);
    return p;
}

void IbCcParams::validate() const {
    if (ccti_increase < 0 || ccti_increase > 255)
        throw_config_error(kKey + "ccti_increase", "must be in 0..255, got " + std::to_string(ccti_increase));
    if (table.empty()) throw_config_error(kKey + "table", "must have at least one entry");
    if (table.size() > static_cast<std::size_t>(max_table_entries))
        throw_config_error(kKey + "table", "has more than " + std::to_string(max_table_entries) + " entries");
    for (const CctEntry& e : table)
        if (e.shift < 0 || e.shift > CctEntry::max_shift || e.multiplier < 0 || e.multiplier > CctEntry::max_multiplier)
            throw_config_error(kKey + "table", "entries need shift 0..3 and multiplier 0..16383");
    if (ccti_limit < 0 || static_cast<std::size_t>(ccti_limit) >= table.size())
        throw_config_error(kKey + "ccti_limit", "must index the table (0.." + std::to_string(table.size() - 1) +
                                                    "), got " + std::to_string(ccti_limit));
    if (ccti_min < 0 || ccti_min > 255 || ccti_min > ccti_limit)
        throw_config_error(kKey + "ccti_min", "must be in 0..min(255, ccti_limit), got " + std::to_string(ccti_min));
    if (ccti_timer <= Time::zero() || ccti_timer > timer_unit * max_timer_units)
        throw_config_error(kKey + "ccti_timer", "must be in (0, 65535 x 1.024us]");
}

IbCongestionControl::IbCongestionControl(const IbCcParams& params, Bandwidth line_rate)
    : params_(params), line_rate_(line_rate) {
    params_.validate();
    if (line_rate_ <= Bandwidth::zero())
        throw_config_error("infiniband.congestion_control", "line rate must be positive");
    set_ccti(params_.ccti_min);
}

void IbCongestionControl::set_ccti(int ccti) {
    ccti_ = ccti;
    rate_ = std::min(line_rate_, params_.table[static_cast<std::size_t>(ccti_)].rate(line_rate_));
}

void IbCongestionControl::advance(Time now) {
    while (next_decrease_ <= now) {
        // The timer only runs while CCTI > CCTI_Min (hfi1 cca_timer_fn).
        set_ccti(ccti_ - 1);
        next_decrease_ = ccti_ > params_.ccti_min ? next_decrease_ + params_.ccti_timer : Time::max();
    }
}

void IbCongestionControl::on_cnp(Time now) {
    advance(now);
    set_ccti(std::min(ccti_ + params_.ccti_increase, params_.ccti_limit));
    // A BECN starts an idle timer but does not restart a running one (hfi1 process_becn).
    if (next_decrease_ == Time::max() && ccti_ > params_.ccti_min) next_decrease_ = now + params_.ccti_timer;
}

FecnMarker::FecnMarker(const FecnMarkerParams& params) : params_(params) { params_.validate(); }

void FecnMarkerParams::validate() const {
    if (threshold < Bytes::zero()) throw_config_error(kKey + "threshold", "must not be negative");
    if (marking_rate < 0 || marking_rate > 0xffff)
        throw_config_error(kKey + "marking_rate", "must be in 0..65535, got " + std::to_string(marking_rate));
    if (packet_size < Bytes::zero() || packet_size > Bytes{0x3fc0})
        throw_config_error(kKey + "packet_size", "must be in 0B..16320B");
}

}  // namespace fabricsim::congestion
