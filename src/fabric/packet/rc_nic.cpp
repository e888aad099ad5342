// The NIC side of RC (rc_transport.hpp; docs/models/packet.md, "Transport"): the network tells
// the transport what reached each end and carries out what it answers — a 64-byte ACK or NAK on
// the control priority (InfiniBand: the QP's own service level), routed back to the sending NIC
// like any packet; going back N packets through the message's source ports; the retransmission
// timer's event. The message slot's fields here are the network's (what it has made, what is
// still in flight); the sequence state is the transport's.
#include "fabric/packet/packet_network.hpp"

#include "core/simulator.hpp"

#include <algorithm>

namespace fabricsim::fabric {

void PacketNetwork::setup_transport(std::uint32_t slot) {
    MessageState& m = messages_[slot];
    if (!m.tcp) m.parts_acked = rc_.open(slot, m.packets, m.qps, m.recovers);
}

bool PacketNetwork::receive(Simulator& sim, NodeId nic, std::uint32_t packet) {
    const std::uint32_t slot = packets_[packet].message;
    if (messages_[slot].tcp) return tcp_receive(sim, nic, packet);
    const RcTransport::Received r = rc_.on_data(slot, packets_[packet].seq);
    if (r.reply != RcTransport::Reply::none)
        send_control(sim, nic, r.reply == RcTransport::Reply::ack ? kAckFrame : kNakFrame, slot, r.seq);
    return r.placed;
}

void PacketNetwork::send_control(Simulator& sim, NodeId from, PacketType type, std::uint32_t target,
                                 std::uint64_t seq) {
    std::uint32_t port;
    if (type == kCnpFrame) {
        port = egress_port(sim, from, FlowKey{nic_.dst(target), nic_.src(target), nic_.number(target)}, seq);
    } else {
        MessageState& m = messages_[target];
        ++m.control_out;
        port = routed_egress(sim, target, true, seq, 0, from);
    }
    const std::uint32_t k = new_packet();
    // RoCE: the control priority; InfiniBand: the QP's own service level.
    const std::uint8_t prio = !ib_ ? control_prio_ : type == kCnpFrame ? nic_.prio(target) : messages_[target].prio;
    packets_[k] = make_packet(target, seq, kControlBytes, port, sim.now(), prio, type);
    packets_[k].generation = generation_bits(type == kCnpFrame ? 0 : messages_[target].generation);
    enqueue(port, k);
    if (ports_[port].free_at <= sim.now()) pump(sim, port);  // else its sending packet's arrival pumps it
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
    if (pk.type == kNakFrame) {
        rc_.on_nak(slot, pk.seq);
        go_back(sim, slot, pk.seq);
    } else {
        const RcTransport::Acked a = rc_.on_ack(slot, pk.seq, sim.now());
        if (a.part_done) ++m.parts_acked;
        if (a.newly > 0 && m.qp != kNone)
            nic_.cc_call(sim, m.qp + a.part, NicScheduler::CcInput::ack,
                         Bytes{static_cast<std::int64_t>(a.newly) * m.unit});
    }
    maybe_release(slot);
}

// Sends part of the message again from packet `from` up to what it has made of that part.
void PacketNetwork::go_back(Simulator& sim, std::uint32_t slot, std::uint64_t from) {
    MessageState& m = messages_[slot];
    const std::uint64_t end = rc_.go_back_end(slot, from, m.injected);
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
        ports_[idx].source = true;
        pump(sim, idx);
    }
}

void PacketNetwork::arm_rto(Simulator& sim, std::uint32_t slot) {
    if (rc_.arm(slot, sim.now()))
        sim.post(rc_.deadline(slot), *this, event((std::uint64_t{slot} << 32) | messages_[slot].generation, kRto));
}

void PacketNetwork::on_rto(Simulator& sim, std::uint64_t arg) {
    const auto slot = static_cast<std::uint32_t>(arg >> 32);
    MessageState& m = messages_[slot];
    if (m.generation != static_cast<std::uint32_t>(arg & 0xFFFF'FFFF)) return;  // a finished message's
    switch (rc_.on_timer(slot, sim.now(), m.injected)) {
        case RcTransport::Timer::idle: return;
        case RcTransport::Timer::wait:
            sim.post(rc_.deadline(slot), *this, event((std::uint64_t{slot} << 32) | m.generation, kRto));
            return;
        case RcTransport::Timer::rearm: arm_rto(sim, slot); return;
        case RcTransport::Timer::give_up:  // the QP would go to the error state: the message is lost
            ++timeouts_;
            if (!m.delivered) ++abandoned_;
            m.resend = kNoSeq;
            return;
        case RcTransport::Timer::go_back:
            ++timeouts_;
            for (std::uint32_t j = 0; j < rc_.parts(slot); ++j)
                if (rc_.acked(slot, j) < rc_.end(slot, j)) go_back(sim, slot, rc_.acked(slot, j));
            arm_rto(sim, slot);
            if (sampler_) sampler_->arm(sim);  // the network may have fallen idle with everything lost
            return;
    }
}

void PacketNetwork::finish_message(Simulator& sim, std::uint32_t slot) {
    MessageState& m = messages_[slot];
    m.delivered = true;
    if (m.recovers && rc_.gave_up(slot)) --abandoned_;  // a copy sent before RC gave up got through
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
