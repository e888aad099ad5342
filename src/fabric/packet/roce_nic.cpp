// RoCEv2 congestion control in the packet model (docs/models/packet.md, docs/models/dcqcn.md).
//
// Reaction point: each NIC uplink (NIC -> fabric switch) keeps one queue per QP and serves
// them round robin, each QP no faster than its congestion-control rate (NicScheduler,
// nic_scheduler.hpp); this file makes the QPs and their congestion control and drives the port.
//
// Congestion point: a RoCE switch marks a packet ECN-CE at egress dequeue with RED on the
// bytes still queued at that port (Kmin/Kmax/Pmax of cluster.roce.ecn, or of the port's speed
// class in ecn.port_classes; `auto` scales with the port's speed).
//
// Notification point: the receiving NIC (the first NIC the packet reaches from the fabric)
// turns a marked packet into a CNP, at most one per QP per cnp_interval. The CNP is a 64-byte
// frame on the control priority (cluster.roce.control_priority, a strict queue by default)
// that the fabric routes back to the sending NIC like any packet.
#include "fabric/packet/packet_network.hpp"

#include "fabric/packet/dcqcn_config.hpp"

#include "congestion/dcqcn.hpp"
#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/time_limits.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

void PacketNetwork::setup_roce() {
    if (spec_.technology != scenario::Technology::roce) return;
    const auto& roce = spec_.roce;
    if (roce.ecn.enabled) {
        markers_.reserve(ports_.size());
        for (std::uint32_t i = 0; i < ports_.size(); ++i) {
            const Link& link = topology_.link(DirectedLink::from_index(i).link);
            const scenario::EcnThresholds k = scenario::ecn_thresholds(roce.ecn, link.bandwidth);  // by port speed
            congestion::RedParams red;
            red.kmin = k.kmin;
            red.kmax = k.kmax;
            red.pmax = roce.ecn.pmax;
            markers_.emplace_back(red);  // onto the switch ports by init(), after setup_iwarp()
        }
    }
    dcqcn_ = roce.dcqcn.enabled;
}

// Every NIC -> fabric switch port serves per-QP queues, by class, each QP at its congestion-
// control rate (DCQCN on RoCE, IB CC on InfiniBand) or, without one, as fast as the port goes.
void PacketNetwork::pace_nic_uplinks() {
    for (std::uint32_t i = 0; i < ports_.size(); ++i) {
        const DirectedLink d = DirectedLink::from_index(i);
        if (topology_.node(topology_.source(d)).kind != NodeKind::nic ||
            !is_fabric_switch(topology_.node(topology_.target(d)).kind))
            continue;
        ports_[i].paced = true;
        ports_[i].wire = topology_.link(d.link).bandwidth;
    }
}

std::unique_ptr<congestion::CongestionControl> PacketNetwork::make_cc(Bandwidth line, Time& cnp_interval) const {
    cnp_interval = Time::zero();
    if (!congestion_controlled()) return nullptr;  // the QP goes at the port's pace
    if (ib_) {
        cnp_interval = Time::zero();  // InfiniBand: a BECN for every FECN
        return make_ib_cc(line);
    }
    const congestion::DcqcnParams params = dcqcn_params(spec_.roce.dcqcn, line);
    cnp_interval = params.cnp_interval;
    return std::make_unique<congestion::Dcqcn>(params, line);
}

Bandwidth PacketNetwork::cc_floor(Bandwidth line) const {
    const Bandwidth floor = ib_ ? ib_cc_floor(line) : std::min(line, dcqcn_params(spec_.roce.dcqcn, line).min_rate);
    return std::max(floor, Bandwidth::bps(1));
}

// A connection's QPs are made together, in order, the first time one of them is needed;
// part j of a message uses the connection's QP j.
std::uint32_t PacketNetwork::qp_of(std::uint32_t message, std::uint32_t port, std::uint64_t seq) {
    MessageHop& h = message_hops_[message];
    if (h.qp == kNone) {
        MessageState& m = messages_[message];
        const auto [first, inserted] = nic_.connection(port, m.flow.src, m.flow.dst, m.flow.qp);
        if (inserted) {
            const Bandwidth line = ports_[port].wire;
            const auto cls = static_cast<std::uint8_t>(queue_of(port, m.prio) - ports_[port].first);
            for (std::uint32_t j = 0; j < m.qps; ++j) {
                Time cnp_interval;
                auto cc = make_cc(line, cnp_interval);
                nic_.add_qp(std::move(cc), cnp_interval, port, m.prio, cls, m.flow.src, m.flow.dst,
                            m.flow.qp * m.qps + j);
            }
        }
        m.qp = first;
        h.qp = first;
    }
    return h.qp + qp_part_of(seq, h.packets, h.qps);
}

void PacketNetwork::enqueue_qp(Simulator& sim, std::uint32_t qp, std::uint32_t packet) {
    nic_.enqueue(sim, qp, packet);
    pump_paced(sim, nic_.port(qp));
}

// Like pump(), for a NIC uplink: frames in the port's own queues (CNPs, ACKs) go first when
// they are there; else the port arbitrates among the traffic classes (802.1Q priorities or
// InfiniBand VLs) as a switch port does (serve(), queue_scheduler.cpp), each class offering
// its QP whose next packet may start first (NicScheduler::offer); a QP held back by its rate
// wakes the port when it may go.
void PacketNetwork::pump_paced(Simulator& sim, std::uint32_t port) {
    if (ports_[port].fault != kPortUp) return;  // down (packet_faults.cpp)
    const Time now = sim.now();
    while (ports_[port].free_at <= now) {
        Port& p = ports_[port];
        NicScheduler::Offer offer;
        // PFC answers alike for every packet of a class: the scheduler asks it once per class.
        // Other flow control (InfiniBand credits) is asked QP by QP in turn.
        nic_.offer(port, p.free_at, fc_of(p), p.first, p.classes, offer, p.fc_kind != kFcNone && p.fc_kind != kFcPfc);
        // A message that starts at the NIC itself (a SHARP part up to the leaf) queues in the
        // port's own queues, as at any unpaced port.
        if (p.backlog == 0 && p.source && !p.injectors.empty()) inject(port, now);
        Time own_start;
        const std::uint32_t own = p.backlog != 0 ? pick(port, own_start) : kNone;
        if (own != kNone && own_start <= std::min(offer.best, now)) {
            commit(sim, port, dequeue(port, own), own_start);
            continue;
        }
        if (offer.ready == 0) return;
        if (offer.best > now) {
            if (p.wake_at != offer.best) {
                p.wake_at = offer.best;
                sim.post(offer.best, *this, event(port, kWake));
            }
            return;
        }
        std::uint32_t c = static_cast<std::uint32_t>(__builtin_ctz(offer.ready));
        if ((offer.ready & (offer.ready - 1)) != 0) {  // several classes may go: the port's scheduler chooses
            for (std::uint32_t bits = offer.ready; bits != 0; bits &= bits - 1) {
                const auto r = static_cast<std::uint32_t>(__builtin_ctz(bits));
                head_bytes_[r] = nic_.head_bytes(port, offer.pos[r]);
            }
            c = serve(p, port, offer.ready, offer.last, offer.held | p.backlog);
        }
        std::uint32_t qp;
        const std::uint32_t k = nic_.take(port, offer.pos[c], qp);
        const Bytes size{packets_[k].bytes};
        commit(sim, port, k, offer.best);
        if (nic_.sent(sim, qp, offer.best, size, p.rate, p.wire)) resume_source(sim, qp);
    }
}

// Whether packet `seq` of message m must wait at its source: its QP at the NIC (once the
// message has reached it) holds a full pull window. The QP then wakes the source.
bool PacketNetwork::nic_pull_full(MessageState& m, std::uint64_t seq) {
    if (m.qp == kNone || !nic_.pull_full(m.qp + part_of(m, seq))) return false;
    m.pull_held = true;
    return true;
}

// The QP's source node pulls again: every port of it with messages to start is pumped.
void PacketNetwork::resume_source(Simulator& sim, std::uint32_t qp) {
    const NodeId src = nic_.src(qp);
    const std::size_t ports = topology_.node(src).ports.size();
    for (std::uint32_t port = 0; port < ports; ++port) {
        const std::uint32_t idx = egress_of(src, port);
        if (!ports_[idx].injectors.empty()) pump(sim, idx);
    }
}

// Called above the port's Kmin (commit); RED's thresholds are the port's own (init()).
void PacketNetwork::mark_ecn(Simulator& sim, const Port& p, std::uint32_t q, Packet& packet) {
    const Bytes queued = queues_[q].queued;
    if (ecn_rng_ == nullptr) ecn_rng_ = &sim.rng("packet/ecn");
    if (queued > p.ecn_kmax ||
        ecn_rng_->uniform01() < congestion::red_probability(queued, p.ecn_kmin, p.ecn_kmax, p.ecn_pmax)) {
        packet.marked = true;
        ++ecn_marks_;
        ++queues_[q].marks;
    }
}

void PacketNetwork::on_marked_arrival(Simulator& sim, NodeId nic, const MessageState& m, std::uint64_t seq) {
    if (m.qp == kNone) return;  // not through a NIC uplink
    const std::uint32_t qp = m.qp + part_of(m, seq);
    if (!nic_.controlled(qp)) return;  // its NIC runs no congestion control
    if (!nic_.pacer(qp).on_marked_packet(sim.now())) return;
    ++(ib_ ? becns_ : cnps_);
    send_control(sim, nic, kCnpFrame, qp, 0);
}

}  // namespace fabricsim::fabric
