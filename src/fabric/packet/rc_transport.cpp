#include "fabric/packet/rc_transport.hpp"

#include "core/time_limits.hpp"

#include <algorithm>

namespace fabricsim::fabric {

std::uint32_t RcTransport::open(std::uint32_t slot, std::uint64_t packets, std::uint32_t qps, bool recovers) {
    if (slot >= messages_.size()) {  // a new slot (the network's pool grew): once per slot, not per message
        messages_.resize(slot + 1);
        parts_.resize(slot + 1);
        seen_.resize(slot + 1);
    }
    Message& m = messages_[slot];
    m = Message{};
    m.packets = packets;
    m.qps = qps;
    m.recovers = recovers;
    std::vector<Part>& parts = parts_[slot];
    parts.resize(qps);
    std::uint32_t empty = 0;
    for (std::uint32_t j = 0; j < qps; ++j) {
        const std::uint64_t begin = qp_part_begin(j, packets, qps);
        const std::uint64_t end = j + 1 == qps ? packets : qp_part_begin(j + 1, packets, qps);
        parts[j] = Part{begin, begin, begin, end, false};
        if (end == begin) ++empty;  // more QPs than packets: an empty part
    }
    m.parts_done = empty;
    seen_[slot].clear();
    if (recovers && params_.ooo_placement) seen_[slot].resize((packets + 63) / 64, 0);
    return empty;
}

RcTransport::Received RcTransport::on_data(std::uint32_t slot, std::uint64_t seq) {
    const Message& m = messages_[slot];
    Part& part = parts_[slot][qp_part_of(seq, m.packets, m.qps)];
    const auto ack = [&](bool placed) { return Received{placed, Reply::ack, part.expected - 1}; };
    if (!m.recovers) {  // lossless: count it in, in any order
        ++part.expected;
        return ack_due(part, part.expected) ? ack(true) : Received{true};
    }
    std::vector<std::uint64_t>& seen = seen_[slot];
    if (!seen.empty()) {  // out-of-order placement
        std::uint64_t& word = seen[seq / 64];
        const std::uint64_t bit = std::uint64_t{1} << (seq % 64);
        if ((word & bit) != 0) return part.expected > part.begin ? ack(false) : Received{false};
        word |= bit;
        const std::uint64_t before = part.expected;
        while (part.expected < part.end && (seen[part.expected / 64] >> (part.expected % 64) & 1) != 0) ++part.expected;
        const bool due = part.expected != before && (ack_due(part, part.expected) || part.expected - before > 1);
        return due ? ack(true) : Received{true};
    }
    if (seq == part.expected) {  // go-back-N: in order
        ++part.expected;
        part.nak_sent = false;
        return ack_due(part, part.expected) ? ack(true) : Received{true};
    }
    if (seq > part.expected) {  // past a gap: one NAK for it
        if (part.nak_sent) return Received{false};
        part.nak_sent = true;
        return Received{false, Reply::nak, part.expected};
    }
    // A duplicate (sent again after a lost ACK): acknowledge again what is in.
    return part.expected > part.begin ? ack(false) : Received{false};
}

RcTransport::Acked RcTransport::on_ack(std::uint32_t slot, std::uint64_t seq, Time now) {
    Message& m = messages_[slot];
    const std::uint32_t j = qp_part_of(seq, m.packets, m.qps);
    Part& part = parts_[slot][j];
    Acked a;
    a.part = j;
    if (seq + 1 <= part.acked) return a;  // an older ACK, overtaken
    a.newly = seq + 1 - part.acked;
    part.acked = seq + 1;
    a.part_done = part.acked == part.end;
    if (a.part_done) ++m.parts_done;
    if (m.recovers) {  // progress: the timer and the retry count start again
        m.rto_at = saturating_add(now, params_.rto);
        m.retries = 0;
    }
    return a;
}

void RcTransport::on_nak(std::uint32_t slot, std::uint64_t seq) {
    Part& part = parts_[slot][part_of(slot, seq)];
    part.acked = std::max(part.acked, seq);
}

std::uint64_t RcTransport::go_back_end(std::uint32_t slot, std::uint64_t from, std::uint64_t made) const {
    return std::min(parts_[slot][part_of(slot, from)].end, made);
}

bool RcTransport::arm(std::uint32_t slot, Time now) {
    Message& m = messages_[slot];
    m.rto_at = saturating_add(now, params_.rto);
    if (m.rto_pending || m.rto_at == Time::max()) return false;  // max: a timeout past the end of time never fires
    m.rto_pending = true;
    return true;
}

RcTransport::Timer RcTransport::on_timer(std::uint32_t slot, Time now, std::uint64_t made) {
    Message& m = messages_[slot];
    m.rto_pending = false;
    if (m.parts_done == m.qps) return Timer::idle;
    if (m.rto_at > now) {  // acknowledgements came since: wait on
        if (m.rto_at == Time::max()) return Timer::idle;
        m.rto_pending = true;
        return Timer::wait;
    }
    // The timer covers packets sent and not acknowledged; a message whose every sent packet is
    // acknowledged waits for its NIC to send more, which is no loss.
    const std::vector<Part>& parts = parts_[slot];
    const bool outstanding =
        std::any_of(parts.begin(), parts.end(), [&](const Part& p) { return p.acked < std::min(p.end, made); });
    if (!outstanding) return Timer::rearm;
    // Only a run with faults can lose a path for good; elsewhere RC retries as long as it takes.
    if (params_.gives_up && ++m.retries > kRetryLimit) return Timer::give_up;
    return Timer::go_back;
}

}  // namespace fabricsim::fabric
