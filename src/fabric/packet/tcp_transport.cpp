#include "fabric/packet/tcp_transport.hpp"

#include "congestion/cubic.hpp"
#include "congestion/dctcp.hpp"
#include "congestion/newreno.hpp"
#include "core/errors.hpp"
#include "core/time_limits.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

namespace fabricsim::fabric {

namespace {
constexpr Time kMaxRto = Time::s(120);  // Linux TCP_RTO_MAX
}

TcpTransport::TcpTransport(const scenario::IwarpSpec& spec, std::int64_t payload)
    : spec_(spec), payload_(payload), min_rto_(spec.min_rto.value_or(Time::ms(200))) {
    if (payload_ <= 0 || spec_.ack_every < 1 || spec_.initial_window < 1 || spec_.dupthresh < 1)
        throw ModelError(fmt::format("iwarp: segment payload {} B, ack_every {}, initial_window {}, dupthresh {}: "
                                     "each must be positive",
                                     payload_, spec_.ack_every, spec_.initial_window, spec_.dupthresh));
    window_segments_ = static_cast<std::uint64_t>(std::max<std::int64_t>(1, spec_.receive_window.count() / payload_));
    if (window_segments_ > (std::uint64_t{1} << 24))
        throw ModelError(fmt::format("iwarp: a receive window of {} segments; at most 2^24", window_segments_));
    // The rings hold the window, plus the one segment a sender may have past it.
    mask_ = std::max<std::uint64_t>(64, std::bit_ceil(window_segments_ + 1)) - 1;
}

std::unique_ptr<congestion::TcpCongestionControl> TcpTransport::make_cc() const {
    switch (spec_.congestion_control) {
        case scenario::TcpCongestion::newreno:
            return std::make_unique<congestion::NewReno>(payload_, spec_.initial_window);
        case scenario::TcpCongestion::cubic: return std::make_unique<congestion::Cubic>(payload_, spec_.initial_window);
        case scenario::TcpCongestion::dctcp: return std::make_unique<congestion::Dctcp>(payload_, spec_.initial_window);
    }
    throw InternalError("iwarp: unknown congestion control");
}

void TcpTransport::open(std::uint32_t flow, std::uint32_t src, std::uint32_t dst, std::uint32_t channel,
                        std::uint64_t segments) {
    if (segments >= kMaxSegments)
        throw ModelError(fmt::format("iwarp: a message of {} segments; the model numbers at most 2^39", segments));
    if (flow >= flows_.size()) {
        flows_.resize(flow + 1);
        timers_.resize(flow + 1);
    }
    Flow& f = flows_[flow];
    if (f.cc == nullptr) {
        f.cc = make_cc();
        f.sacked_bits.assign((mask_ + 1) / 64, 0);
        f.retx_bits.assign((mask_ + 1) / 64, 0);
        f.placed_bits.assign((mask_ + 1) / 64, 0);
    } else {
        std::fill(f.sacked_bits.begin(), f.sacked_bits.end(), 0);
        std::fill(f.retx_bits.begin(), f.retx_bits.end(), 0);
        std::fill(f.placed_bits.begin(), f.placed_bits.end(), 0);
    }
    const auto [it, inserted] =
        index_.emplace(std::make_tuple(src, dst, channel), static_cast<std::uint32_t>(connections_.size()));
    if (inserted) {
        Connection c;
        c.window = make_cc()->state();  // a new connection: the algorithm's initial window
        connections_.push_back(c);
    }
    f.connection = it->second;
    f.cc->load(connections_[f.connection].window);
    f.end = segments;
    f.una = f.nxt = f.high_sacked = f.lost_end = f.rtx_next = f.recover = 0;
    f.in_recovery = f.timing = f.force = false;
    f.sacked = f.lost_unsent = 0;
    f.backoff = 0;
    f.rcv_nxt = 0;
    f.pending = 0;
    f.ooo = 0;
    f.ce_state = false;
    timers_[flow] = Timers{};
}

void TcpTransport::close(std::uint32_t flow) {
    connections_[flows_[flow].connection].window = flows_[flow].cc->state();
}

bool TcpTransport::may_send(std::uint32_t flow) const {
    const Flow& f = flows_[flow];
    if (f.force && f.lost_unsent > 0) return true;
    if (pipe(f) * payload_ >= f.cc->cwnd()) return false;
    if (f.lost_unsent > 0) return true;
    return f.nxt < f.end && f.nxt < f.una + window_segments_;
}

bool TcpTransport::take(std::uint32_t flow, Time now, std::uint64_t& seq) {
    Flow& f = flows_[flow];
    if (f.lost_unsent > 0) {
        f.rtx_next = std::max(f.rtx_next, f.una);
        while (f.rtx_next < f.lost_end &&
               (bit(f.sacked_bits, f.rtx_next, mask_) || bit(f.retx_bits, f.rtx_next, mask_)))
            ++f.rtx_next;
        if (f.rtx_next >= f.lost_end) throw InternalError("iwarp: a lost segment counted but none found");
        seq = f.rtx_next++;
        f.force = false;
        set(f.retx_bits, seq, mask_, true);
        --f.lost_unsent;
        if (f.timing && f.timed_seq >= seq) f.timing = false;  // Karn: no sample across a retransmission
        return true;
    }
    seq = f.nxt++;
    if (!f.timing) {
        f.timing = true;
        f.timed_seq = seq;
        f.timed_at = now;
    }
    return false;
}

// Unsacked segments below `upto` not yet known lost become lost.
void TcpTransport::mark_lost(Flow& f, std::uint64_t upto) {
    const std::uint64_t from = std::max(f.lost_end, f.una);
    for (std::uint64_t s = from; s < upto; ++s)
        if (!bit(f.sacked_bits, s, mask_) && !bit(f.retx_bits, s, mask_)) ++f.lost_unsent;
    f.rtx_next = std::min(f.rtx_next, from);
    f.lost_end = std::max(f.lost_end, upto);
}

void TcpTransport::rtt_sample(Flow& f, Connection& c, Time rtt) {
    (void)f;
    if (c.srtt == Time::zero()) {  // RFC 6298 §2.2
        c.srtt = rtt;
        c.rttvar = rtt / 2;
        return;
    }
    const Time diff = c.srtt > rtt ? c.srtt - rtt : rtt - c.srtt;  // RFC 6298 §2.3
    c.rttvar = (c.rttvar * 3 + diff) / 4;
    c.srtt = (c.srtt * 7 + rtt) / 8;
}

Time TcpTransport::rto(std::uint32_t flow) const {
    const Flow& f = flows_[flow];
    const Connection& c = connections_[f.connection];
    Time base = c.srtt == Time::zero() ? min_rto_ : std::max(min_rto_, saturating_add(c.srtt, c.rttvar * 4));
    for (int i = 0; i < f.backoff && base < kMaxRto; ++i) base = base * 2;
    return std::min(base, std::max(kMaxRto, min_rto_));
}

TcpTransport::AckResult TcpTransport::on_ack(std::uint32_t flow, Time now, std::uint64_t value, bool ece) {
    Flow& f = flows_[flow];
    AckResult r;
    if ((value & kSackBit) != 0) {
        const std::uint64_t s = value & ~kSackBit;
        if (s >= f.una && s < f.nxt && !bit(f.sacked_bits, s, mask_)) {
            set(f.sacked_bits, s, mask_, true);
            ++f.sacked;
            if (s < f.lost_end && !bit(f.retx_bits, s, mask_)) --f.lost_unsent;  // it was not lost after all
            f.high_sacked = std::max(f.high_sacked, s + 1);
            const auto thresh = static_cast<std::uint64_t>(spec_.dupthresh);
            if (f.sacked >= spec_.dupthresh && f.high_sacked >= thresh && f.high_sacked - thresh > f.lost_end)
                mark_lost(f, f.high_sacked - thresh);
        }
    } else if (value > f.una && value <= f.nxt) {
        Connection& c = connections_[f.connection];
        for (std::uint64_t s = f.una; s < value; ++s) {
            if (bit(f.sacked_bits, s, mask_)) {
                set(f.sacked_bits, s, mask_, false);
                --f.sacked;
            } else if (s < f.lost_end && !bit(f.retx_bits, s, mask_)) {
                --f.lost_unsent;
            }
            set(f.retx_bits, s, mask_, false);
        }
        r.newly = value - f.una;
        f.una = value;
        f.lost_end = std::max(f.lost_end, f.una);
        f.rtx_next = std::max(f.rtx_next, f.una);
        if (f.timing && value > f.timed_seq) {
            f.timing = false;
            rtt_sample(f, c, now - f.timed_at);
        }
        f.backoff = 0;
        const auto bytes = static_cast<std::int64_t>(r.newly) * payload_;
        if (f.in_recovery) {
            if (f.una >= f.recover) f.in_recovery = false;  // a full ACK ends recovery (RFC 6582 §3.2)
        } else {
            f.cc->on_ack(now, bytes, ece ? bytes : 0, c.srtt);
        }
    }
    // The first loss of a window: fast retransmit and one cut (RFC 5681 §3.2, RFC 6675 §5).
    if (!f.in_recovery && f.lost_unsent > 0 && f.una >= f.recover) {
        f.in_recovery = true;
        f.force = true;
        f.recover = f.nxt;
        f.cc->on_loss(now, static_cast<std::int64_t>(f.nxt - f.una) * payload_);
        r.entered_recovery = true;
    }
    r.done = f.una == f.end;
    return r;
}

bool TcpTransport::on_timeout(std::uint32_t flow, Time now) {
    Flow& f = flows_[flow];
    if (++f.backoff > kMaxBackoff) return false;
    f.cc->on_timeout(now, static_cast<std::int64_t>(f.nxt - f.una) * payload_);
    // Every unSACKed outstanding segment is lost and goes again, in order (RFC 6675 §5.1).
    for (std::uint64_t s = f.una; s < f.nxt; ++s) set(f.retx_bits, s, mask_, false);
    f.lost_unsent = static_cast<std::int64_t>(f.nxt - f.una) - f.sacked;
    f.lost_end = f.nxt;
    f.rtx_next = f.una;
    f.in_recovery = false;
    f.recover = f.nxt;  // no fast retransmit for what was sent before the timeout
    f.timing = false;
    return true;
}

TcpTransport::Received TcpTransport::on_data(std::uint32_t flow, std::uint64_t seq, bool ce) {
    Flow& f = flows_[flow];
    Received out;
    const bool dctcp = spec_.congestion_control == scenario::TcpCongestion::dctcp;
    const auto push = [&](std::uint64_t value, bool ece) { out.ack[out.acks++] = Ack{value, ece}; };
    if (seq < f.rcv_nxt || seq > f.rcv_nxt + mask_ || (seq > f.rcv_nxt && bit(f.placed_bits, seq, mask_))) {
        // A duplicate (sent again after a lost ACK, or a late copy): acknowledge what is in.
        f.pending = 0;
        push(f.rcv_nxt, dctcp && f.ce_state);
        return out;
    }
    out.fresh = true;
    if (dctcp && ce != f.ce_state) {  // RFC 8257 §3.2: the ACK of what came before keeps the old state
        if (f.pending > 0) push(f.rcv_nxt, f.ce_state);
        f.pending = 0;
        f.ce_state = ce;
    }
    const bool ece = dctcp && f.ce_state;
    if (seq == f.rcv_nxt) {
        ++f.rcv_nxt;
        bool filled = false;
        while (f.ooo > 0 && bit(f.placed_bits, f.rcv_nxt, mask_)) {
            set(f.placed_bits, f.rcv_nxt, mask_, false);
            ++f.rcv_nxt;
            --f.ooo;
            filled = true;
        }
        ++f.pending;
        if (filled || f.ooo > 0 || f.pending >= static_cast<std::uint32_t>(spec_.ack_every) || f.rcv_nxt == f.end) {
            f.pending = 0;
            push(f.rcv_nxt, ece);
        } else {
            out.arm_delayed_ack = true;
        }
        return out;
    }
    // Past a hole: placed, and SACKed at once (after acknowledging in-order data that waited).
    set(f.placed_bits, seq, mask_, true);
    ++f.ooo;
    if (f.pending > 0) {
        f.pending = 0;
        push(f.rcv_nxt, ece);
    }
    if (out.acks < out.ack.size()) push(seq | kSackBit, ece);
    return out;
}

bool TcpTransport::delayed_ack(std::uint32_t flow, Ack& ack) {
    Flow& f = flows_[flow];
    if (f.pending == 0) return false;
    f.pending = 0;
    ack = Ack{f.rcv_nxt, spec_.congestion_control == scenario::TcpCongestion::dctcp && f.ce_state};
    return true;
}

}  // namespace fabricsim::fabric
