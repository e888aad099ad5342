// iWARP in the packet model (docs/models/iwarp.md): RDMA over TCP on lossy Ethernet.
//
// The fabric is the RoCE model's Ethernet (queues per priority, the switch MMU, RED/ECN marking
// at egress), usually without PFC: a full buffer drops at the MMU's dynamic threshold
// (pfc.cpp, lossy priorities). Each message that crosses the fabric is carried by its RNIC's
// TCP offload engine (TcpTransport, tcp_transport.hpp) instead of RC: the source sends a
// segment only when the engine's window lets it (inject()), the receiving NIC answers with
// ACKs on the control priority (cumulative or SACK, ECN echo in the frame's CE bit), and the
// sending NIC's engine recovers losses by SACK-driven fast retransmit or its retransmission
// timer. This file is the glue between the engine and the network's packets and events.
#include "fabric/packet/packet_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/time_limits.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

void PacketNetwork::setup_iwarp() {
    if (!spec_.iwarp.enabled) return;
    if (spec_.technology != scenario::Technology::roce)
        throw ModelError("packet model: iWARP runs over an Ethernet fabric (technology roce or iwarp)");
    tcp_ = std::make_unique<TcpTransport>(spec_.iwarp, spec_.mtu.count());
    dcqcn_ = false;  // TCP's congestion control instead of DCQCN
    // The send jitter (IwarpSpec::send_jitter); unset (a spec not read from a scenario, where the
    // loader sets it from cluster.server.nic): one full segment at the fastest NIC uplink.
    if (spec_.iwarp.send_jitter) {
        tcp_jitter_ = *spec_.iwarp.send_jitter;
    } else {
        Bandwidth nic = Bandwidth::bps(0);
        for (std::uint32_t i = 0; i < ports_.size(); ++i) {
            const DirectedLink d = DirectedLink::from_index(i);
            if (topology_.node(topology_.source(d)).kind == NodeKind::nic &&
                is_fabric_switch(topology_.node(topology_.target(d)).kind))
                nic = std::max(nic, topology_.link(d.link).bandwidth);
        }
        if (nic > Bandwidth::bps(0)) tcp_jitter_ = scenario::iwarp_default_jitter(spec_.iwarp, nic);
    }
    // Only DCTCP's segments are ECN-capable; switches never mark Not-ECT packets (RFC 3168 §5).
    // (A port marks while its ecn_kmin is below the end of time: reset, or commit() would mark
    // from the cleared markers.)
    if (spec_.iwarp.congestion_control != scenario::TcpCongestion::dctcp) {
        markers_.clear();
        for (Port& p : ports_) p.ecn_kmin = Bytes{INT64_MAX};
    }
}

void PacketNetwork::tcp_open(Simulator& sim, std::uint32_t slot) {
    MessageState& m = messages_[slot];
    m.tcp = true;
    m.recovers = false;  // no go-back-N: the engine recovers
    m.qps = 1;           // one TCP connection per QP
    if (tcp_rng_ == nullptr) tcp_rng_ = &sim.rng("packet/iwarp-jitter");
    tcp_->open(slot, m.flow.src.value(), m.flow.dst.value(), m.flow.qp, m.packets);
    tcp_arm_rto(sim, slot);
}

// The segment the engine sends now from message `slot` (inject() asked may_send first). It
// may leave once the window let it go (the message's start, or the ACK that opened a full
// window: opened_at) plus the engine's send jitter, uniform in [0, J]; a segment that waits
// longer than that behind the port's earlier ones leaves when the port falls free, as before.
// A start later than now is the port's to keep (pump() commits it then): the engine's sources
// are ranks, storage nodes and clients, never a NIC's paced uplink.
std::uint64_t PacketNetwork::tcp_take(std::uint32_t slot, Time now, Time& ready) {
    MessageState& m = messages_[slot];
    TcpTransport::Timers& t = tcp_->timers(slot);
    Time let = std::max(m.start, t.opened_at);
    if (tcp_jitter_ > Time::zero())
        let = saturating_add(let, Time::ps(static_cast<std::int64_t>(
                                      tcp_rng_->below(static_cast<std::uint64_t>(tcp_jitter_.picoseconds()) + 1))));
    std::uint64_t seq;
    if (tcp_->take(slot, now, seq)) {
        ready = std::max(now, let);
        ++retransmitted_;
    } else {
        m.injected = tcp_->nxt(slot);
        ready = std::max(ready, let);
    }
    m.resend = tcp_->has_lost(slot) ? 0 : kNoSeq;  // keeps the source's injector while losses wait
    return seq;
}

// The window opened, or segments are lost: the source's ports pull again.
void PacketNetwork::tcp_wake(Simulator& sim, std::uint32_t slot) {
    MessageState& m = messages_[slot];
    TcpTransport::Timers& t = tcp_->timers(slot);
    if (t.held) {
        t.held = false;
        t.opened_at = sim.now();
    }
    if (tcp_->has_lost(slot)) m.resend = 0;
    offer(sim, slot);
}

bool PacketNetwork::tcp_held(std::uint32_t slot) {
    if (tcp_->may_send(slot)) return false;
    tcp_->timers(slot).held = true;
    return true;
}

bool PacketNetwork::tcp_receive(Simulator& sim, NodeId nic, std::uint32_t packet) {
    const std::uint32_t slot = packets_[packet].message;
    const TcpTransport::Received r = tcp_->on_data(slot, packets_[packet].seq, packets_[packet].marked);
    packets_[packet].marked = false;
    for (std::uint32_t i = 0; i < r.acks; ++i) tcp_send_ack(sim, nic, slot, r.ack[i]);
    TcpTransport::Timers& t = tcp_->timers(slot);
    if (r.arm_delayed_ack && t.delack_event == Time::max()) {
        t.receiver = nic.value();
        t.delack_event = checked_add(sim.now(), spec_.iwarp.delayed_ack, "iwarp: the delayed-ACK timer");
        sim.post(t.delack_event, *this, event((std::uint64_t{slot} << 32) | messages_[slot].generation, kTcpDelack));
    }
    return r.fresh;
}

// Like send_control(): a 64-byte ACK on the control priority, its CE bit the ECN echo.
void PacketNetwork::tcp_send_ack(Simulator& sim, NodeId from, std::uint32_t slot, TcpTransport::Ack ack) {
    MessageState& m = messages_[slot];
    ++m.control_out;
    FlowKey flow = flow_of(m, 0);
    std::swap(flow.src, flow.dst);
    const std::uint32_t port = egress_port(sim, from, flow, ack.value);
    const std::uint32_t k = new_packet();
    packets_[k] = make_packet(slot, ack.value, kControlBytes, port, sim.now(), control_prio_, kAckFrame);
    packets_[k].generation = generation_bits(m.generation);
    packets_[k].marked = ack.ece;
    enqueue(port, k);
    pump(sim, port);
}

// An ACK reached the sending NIC (on_control()).
void PacketNetwork::tcp_on_ack(Simulator& sim, const Packet& pk) {
    const std::uint32_t slot = pk.message;
    MessageState& m = messages_[slot];
    --m.control_out;
    if (m.parts_acked < m.qps) {
        const TcpTransport::AckResult r = tcp_->on_ack(slot, sim.now(), pk.seq, pk.marked);
        if (r.done) {
            ++m.parts_acked;
            tcp_->close(slot);
            tcp_->timers(slot).rto_at = Time::max();
        } else {
            if (r.newly > 0) tcp_arm_rto(sim, slot);  // progress restarts the timer (RFC 6298 §5.3)
            if (tcp_->may_send(slot)) tcp_wake(sim, slot);
        }
    }
    maybe_release(slot);
}

void PacketNetwork::tcp_arm_rto(Simulator& sim, std::uint32_t slot) {
    TcpTransport::Timers& t = tcp_->timers(slot);
    t.rto_at = saturating_add(sim.now(), tcp_->rto(slot));
    if (t.rto_at == Time::max() || (t.rto_event <= t.rto_at && t.rto_event >= sim.now()))
        return;  // an earlier one re-checks
    t.rto_event = t.rto_at;
    sim.post(t.rto_at, *this, event((std::uint64_t{slot} << 32) | messages_[slot].generation, kTcpRto));
}

void PacketNetwork::tcp_on_timer(Simulator& sim, std::uint64_t arg, bool rto) {
    const auto slot = static_cast<std::uint32_t>(arg >> 32);
    MessageState& m = messages_[slot];
    if (m.generation != static_cast<std::uint32_t>(arg & 0xFFFF'FFFF) || !m.tcp || m.released)
        return;  // a finished message's
    TcpTransport::Timers& t = tcp_->timers(slot);
    if (!rto) {
        if (t.delack_event != sim.now()) return;
        t.delack_event = Time::max();
        TcpTransport::Ack ack;
        if (tcp_->delayed_ack(slot, ack)) tcp_send_ack(sim, NodeId{t.receiver}, slot, ack);
        return;
    }
    if (t.rto_event != sim.now()) return;  // re-armed since
    t.rto_event = Time::max();
    if (m.parts_acked == m.qps || t.rto_at == Time::max()) return;
    if (t.rto_at > sim.now()) {  // ACKs came since: wait on
        t.rto_event = t.rto_at;
        sim.post(t.rto_at, *this, event((std::uint64_t{slot} << 32) | m.generation, kTcpRto));
        return;
    }
    if (!tcp_->outstanding(slot)) {  // nothing sent is unacknowledged: no loss
        tcp_arm_rto(sim, slot);
        return;
    }
    ++timeouts_;
    if (!tcp_->on_timeout(slot, sim.now())) {  // the connection gives up (tcp_retries2): the message is lost
        if (!m.delivered) ++abandoned_;
        m.resend = kNoSeq;
        return;
    }
    tcp_arm_rto(sim, slot);
    tcp_wake(sim, slot);
    if (sampler_) sampler_->arm(sim);  // the network may have fallen idle with everything lost
}

}  // namespace fabricsim::fabric
