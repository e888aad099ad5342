// RDMA reliable connection (RC) in the packet model (docs/models/packet.md, "Transport").
//
// A message that crosses the fabric is split over its connection's QPs in contiguous parts
// (packet sequence numbers per part). The receiving NIC acknowledges every ack_every packets
// of a part and its last one with a 64-byte ACK on the control priority, routed back to the
// sending NIC like any packet (IBA Vol. 1 §9.7; RoCEv2 uses the same transport).
//
// Lossless (PFC): nothing is lost, every packet is placed, in whatever order it comes, and
// ACKs only load the reverse path and free the sender's state.
//
// Lossy (cluster.roce.lossless: false, or a priority that is not in pfc.priority): go-back-N,
// as RC NICs do. The receiver takes only the
// next packet in order; the first one past a gap is answered with one NAK naming the missing
// packet, and the sender sends again from there. A tail loss has no later packet to reveal
// it: a retransmission timeout (cluster.roce.retransmit_timeout) sends again from the first
// unacknowledged packet of each part. With out-of-order placement (spraying, adaptive
// routing; current NICs place such packets directly) the receiver keeps every new packet,
// acknowledges what is complete in order, and loss is recovered by the timeout alone.
//
// With faults or the PFC watchdog (docs/models/faults.md) the lossless class loses packets too
// and recovers the same way. With faults, after kRetryLimit timeouts in a row without progress
// RC gives up on the message, as a QP goes to the error state once its retry count is spent
// (a failed NIC or a cut-off destination would otherwise be retried for ever).
#include "fabric/packet/packet_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/time_limits.hpp"

#include <algorithm>

namespace fabricsim::fabric {

void PacketNetwork::setup_transport(MessageState& m) {
    m.parts.resize(m.qps);
    for (std::uint32_t j = 0; j < m.qps; ++j) {
        const std::uint64_t begin = part_begin(m, j);
        m.parts[j] = Part{begin, begin, j + 1 == m.qps ? m.packets : part_begin(m, j + 1), false};
        if (m.parts[j].end == begin) ++m.parts_acked;  // more QPs than packets: an empty part
    }
    m.seen.clear();
    if (m.recovers && spec_.ooo_placement) m.seen.resize((m.packets + 63) / 64, 0);
}

bool PacketNetwork::receive(Simulator& sim, NodeId nic, std::uint32_t packet) {
    const std::uint32_t slot = packets_[packet].message;
    const std::uint64_t seq = packets_[packet].seq;
    MessageState& m = messages_[slot];
    if (m.tcp) return tcp_receive(sim, nic, packet);
    Part& part = m.parts[part_of(m, seq)];
    const std::uint64_t begin = part_begin(m, part_of(m, seq));
    const auto ack_due = [&](std::uint64_t next) { return (next - begin) % ack_every_ == 0 || next == part.end; };
    if (!m.recovers) {  // lossless: count it in, in any order
        ++part.expected;
        if (ack_due(part.expected)) send_control(sim, nic, kAckFrame, slot, part.expected - 1);
        return true;
    }
    if (!m.seen.empty()) {  // out-of-order placement
        std::uint64_t& word = m.seen[seq / 64];
        const std::uint64_t bit = std::uint64_t{1} << (seq % 64);
        if ((word & bit) != 0) {
            if (part.expected > begin) send_control(sim, nic, kAckFrame, slot, part.expected - 1);
            return false;
        }
        word |= bit;
        const std::uint64_t before = part.expected;
        while (part.expected < part.end && (m.seen[part.expected / 64] >> (part.expected % 64) & 1) != 0)
            ++part.expected;
        if (part.expected != before && (ack_due(part.expected) || part.expected - before > 1))
            send_control(sim, nic, kAckFrame, slot, part.expected - 1);
        return true;
    }
    if (seq == part.expected) {  // go-back-N: in order
        ++part.expected;
        part.nak_sent = false;
        if (ack_due(part.expected)) send_control(sim, nic, kAckFrame, slot, part.expected - 1);
        return true;
    }
    if (seq > part.expected) {  // past a gap: one NAK for it
        if (!part.nak_sent) {
            part.nak_sent = true;
            send_control(sim, nic, kNakFrame, slot, part.expected);
        }
        return false;
    }
    // A duplicate (sent again after a lost ACK): acknowledge again what is in.
    if (part.expected > begin) send_control(sim, nic, kAckFrame, slot, part.expected - 1);
    return false;
}

void PacketNetwork::send_control(Simulator& sim, NodeId from, PacketType type, std::uint32_t target,
                                 std::uint64_t seq) {
    std::uint32_t port;
    if (type == kCnpFrame) {
        port = egress_port(sim, from, FlowKey{nic_.dst(target), nic_.src(target), nic_.number(target)}, seq);
    } else {
        MessageState& m = messages_[target];
        ++m.control_out;
        port = routed_egress(sim, m, true, seq, 0, from);
    }
    const std::uint32_t k = new_packet();
    // RoCE: the control priority; InfiniBand: the QP's own service level.
    const std::uint8_t prio = !ib_ ? control_prio_ : type == kCnpFrame ? nic_.prio(target) : messages_[target].prio;
    packets_[k] = make_packet(target, seq, kControlBytes, port, sim.now(), prio, type);
    packets_[k].generation = generation_bits(type == kCnpFrame ? 0 : messages_[target].generation);
    enqueue(port, k);
    pump(sim, port);
}

// A CNP, ACK or NAK has reached the sending NIC.
void PacketNetwork::on_control(Simulator& sim, std::uint32_t packet) {
    const Packet pk = packets_[packet];
    discard(sim, packet);
    if (pk.type == kCnpFrame) {
        nic_.cc_call(sim, pk.message, NicScheduler::CcInput::cnp);
        return;
    }
    if (messages_[pk.message].tcp) return tcp_on_ack(sim, pk);
    const std::uint32_t slot = pk.message;
    MessageState& m = messages_[slot];
    --m.control_out;
    const std::uint32_t j = part_of(m, pk.seq);
    Part& part = m.parts[j];
    if (pk.type == kNakFrame) {
        part.acked = std::max(part.acked, pk.seq);
        go_back(sim, slot, pk.seq);
    } else if (pk.seq + 1 > part.acked) {
        const std::uint64_t newly = pk.seq + 1 - part.acked;
        part.acked = pk.seq + 1;
        if (part.acked == part.end) ++m.parts_acked;
        if (m.qp != kNone)
            nic_.cc_call(sim, m.qp + j, NicScheduler::CcInput::ack, Bytes{static_cast<std::int64_t>(newly) * m.unit});
        if (m.recovers) {  // progress: the timer and the retry count start again
            m.rto_at = saturating_add(sim.now(), rto_);
            m.retries = 0;
        }
    }
    maybe_release(slot);
}

// Sends part of the message again from packet `from` up to what it has sent of that part.
void PacketNetwork::go_back(Simulator& sim, std::uint32_t slot, std::uint64_t from) {
    MessageState& m = messages_[slot];
    const std::uint64_t end = std::min(m.parts[part_of(m, from)].end, m.injected);
    if (from >= end) return;
    if (m.resend == kNoSeq) {
        m.resend = from;
        m.resend_end = end;
    } else {
        m.resend = std::min(m.resend, from);
        m.resend_end = std::max(m.resend_end, end);
    }
    offer(sim, slot);
}

// Puts the message (once) on each egress port its source may send it from, and lets them send.
void PacketNetwork::offer(Simulator& sim, std::uint32_t slot) {
    const MessageState& m = messages_[slot];
    for (std::uint32_t port : routing_.candidates(m.flow.src, m.flow)) {
        const std::uint32_t idx = egress_of(m.flow.src, port);
        auto& inj = ports_[idx].injectors;
        if (std::none_of(inj.begin(), inj.end(),
                         [&](const Injector& i) { return i.message == slot && i.generation == m.generation; }))
            inj.push_back({slot, m.generation});
        pump(sim, idx);
    }
}

void PacketNetwork::arm_rto(Simulator& sim, std::uint32_t slot) {
    MessageState& m = messages_[slot];
    m.rto_at = saturating_add(sim.now(), rto_);
    if (m.rto_pending || m.rto_at == Time::max()) return;  // max: a timeout past the end of time never fires
    m.rto_pending = true;
    sim.at(m.rto_at, *this, event((std::uint64_t{slot} << 32) | m.generation, kRto));
}

void PacketNetwork::on_rto(Simulator& sim, std::uint64_t arg) {
    const auto slot = static_cast<std::uint32_t>(arg >> 32);
    MessageState& m = messages_[slot];
    if (m.generation != static_cast<std::uint32_t>(arg & 0xFFFF'FFFF)) return;  // a finished message's
    m.rto_pending = false;
    if (m.parts_acked == m.qps) return;
    if (m.rto_at > sim.now()) {  // acknowledgements came since: wait on
        if (m.rto_at == Time::max()) return;
        m.rto_pending = true;
        sim.at(m.rto_at, *this, event((std::uint64_t{slot} << 32) | m.generation, kRto));
        return;
    }
    // The timer covers packets sent and not acknowledged; a message whose every sent packet is
    // acknowledged waits for its NIC to send more, which is no loss.
    bool outstanding = false;
    for (const Part& part : m.parts) outstanding = outstanding || part.acked < std::min(part.end, m.injected);
    if (!outstanding) {
        arm_rto(sim, slot);
        return;
    }
    ++timeouts_;
    // Only a run with faults can lose a path for good; elsewhere RC retries as long as it takes.
    if (spec_.recover_lossless &&
        ++m.retries > kRetryLimit) {  // the QP would go to the error state: the message is lost
        if (!m.delivered) ++abandoned_;
        m.resend = kNone;
        return;
    }
    for (const Part& part : m.parts)
        if (part.acked < part.end) go_back(sim, slot, part.acked);
    arm_rto(sim, slot);
    if (sampler_) sampler_->arm(sim);  // the network may have fallen idle with everything lost
}

void PacketNetwork::finish_message(Simulator& sim, std::uint32_t slot) {
    MessageState& m = messages_[slot];
    m.delivered = true;
    if (m.retries > kRetryLimit) --abandoned_;  // a copy sent before RC gave up got through
    const MessageId id = m.id;
    DeliveryListener* listener = m.listener;
    maybe_release(slot);
    listener->on_delivered(sim, id);  // may send: a free slot may be reused at once
}

void PacketNetwork::maybe_release(std::uint32_t slot) {
    MessageState& m = messages_[slot];
    // Once only: a late copy of a data packet can make the receiver acknowledge again after
    // the slot was freed, and that ACK's arrival must not free it a second time.
    if (m.released || !m.delivered || (m.reliable && (m.parts_acked < m.qps || m.control_out > 0))) return;
    m.released = true;
    free_messages_.push_back(slot);
}

}  // namespace fabricsim::fabric
