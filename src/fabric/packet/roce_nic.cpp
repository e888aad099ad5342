// RoCEv2 congestion control in the packet model (docs/models/packet.md, docs/models/dcqcn.md).
//
// Reaction point: each NIC uplink (NIC -> fabric switch) keeps one queue per QP — a QP is the
// (source, destination, NCCL channel) of a message — and serves them round robin, each QP no
// faster than its congestion-control rate: after a packet of wire size w starts at t, the QP's
// next may start at t + w / R_C. The rate comes from one object per QP (src/congestion/).
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

#include "congestion/dcqcn.hpp"
#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/time_limits.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace fabricsim::fabric {

namespace {

congestion::DcqcnParams dcqcn_params(const scenario::DcqcnSpec& s, Bandwidth line_rate) {
    congestion::DcqcnParams p =
        s.preset == scenario::DcqcnPreset::paper ? congestion::DcqcnParams::paper() : congestion::DcqcnParams::nic(line_rate);
    if (s.g) p.g = *s.g;
    if (s.rate_ai) p.rate_ai = *s.rate_ai;
    if (s.rate_hai) p.rate_hai = *s.rate_hai;
    if (s.alpha_update_interval) p.alpha_update_interval = *s.alpha_update_interval;
    if (s.rate_decrease_interval) p.rate_decrease_interval = *s.rate_decrease_interval;
    if (s.rate_increase_timer) p.rate_increase_timer = *s.rate_increase_timer;
    if (s.byte_counter) p.byte_counter = *s.byte_counter;
    if (s.fast_recovery_steps) p.fast_recovery_steps = *s.fast_recovery_steps;
    if (s.clamp_target_rate) p.clamp_target_rate = *s.clamp_target_rate;
    if (s.min_rate) p.min_rate = *s.min_rate;
    if (s.cnp_interval) p.cnp_interval = *s.cnp_interval;
    return p;
}

}  // namespace

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
            markers_.emplace_back(red);
        }
    }
    dcqcn_ = roce.dcqcn.enabled;
}

// Every NIC -> fabric switch port serves per-QP queues, by class, each QP at its congestion-
// control rate (DCQCN on RoCE, IB CC on InfiniBand) or, without one, as fast as the port goes.
void PacketNetwork::pace_nic_uplinks() {
    for (std::uint32_t i = 0; i < ports_.size(); ++i) {
        const DirectedLink d = DirectedLink::from_index(i);
        if (topology_.node(topology_.source(d)).kind != NodeKind::nic || !is_fabric_switch(topology_.node(topology_.target(d)).kind))
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
    MessageState& m = messages_[message];
    if (m.qp == kNone) {
        const auto key = std::make_tuple(port, m.flow.src.value(), m.flow.dst.value(), m.flow.qp);
        const auto [it, inserted] = qp_index_.emplace(key, static_cast<std::uint32_t>(qps_.size()));
        if (inserted) {
            const Bandwidth line = ports_[port].wire;
            for (std::uint32_t j = 0; j < m.qps; ++j) {
                Time cnp_interval;
                auto cc = make_cc(line, cnp_interval);
                qps_.push_back(Qp{std::move(cc), congestion::CnpPacer(cnp_interval), port, Fifo{}, Time::zero(),
                                  Time::max(), Time::zero(), false, m.prio, {}, m.flow.src, m.flow.dst,
                                  m.flow.qp * m.qps + j});
            }
        }
        m.qp = it->second;
    }
    return m.qp + part_of(m, seq);
}

void PacketNetwork::enqueue_qp(Simulator& sim, std::uint32_t qp, std::uint32_t packet) {
    Qp& q = qps_[qp];
    // A QP with nothing to send keeps no timers (arm_timer); when data comes back its
    // congestion control first catches up on the timer events it missed, in order, as the
    // CongestionControl contract allows.
    if (q.cc != nullptr && q.queue.empty() && q.cc->next_timer() <= sim.now()) cc_call(sim, qp, CcInput::timer);
    push(q.queue, packet);
    ++q.queued;
    if (!q.listed) {
        q.listed = true;
        ports_[q.port].active.push_back(qp);
    }
    pump_paced(sim, q.port);
}

// Like pump(), for a NIC uplink: frames in the port's own queues (CNPs, ACKs) go first when
// they are there; else the port arbitrates among the traffic classes (802.1Q priorities or
// InfiniBand VLs) as a switch port does (serve(), queue_scheduler.cpp), each class offering
// its QP whose next packet may start first (round robin among equals), skipping QPs whose
// priority is paused; a QP held back by its rate wakes the port when it may go.
void PacketNetwork::pump_paced(Simulator& sim, std::uint32_t port) {
    if (ports_[port].fault != kPortUp) return;  // down (packet_faults.cpp)
    const Time now = sim.now();
    while (ports_[port].free_at <= now) {
        Port& p = ports_[port];
        // Per class: its candidate QP (its position in `active`) and when that may start.
        std::array<std::uint32_t, kMaxClasses> cand{};
        std::array<Time, kMaxClasses> cand_start;
        cand_start.fill(Time::max());
        std::array<std::uint32_t, kMaxClasses> last_packets{};  // packets the class holds, up to 2
        std::uint32_t held = 0;
        const std::size_t n = p.active.size();
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t pos = (p.round_robin + i) % n;
            const Qp& q = qps_[p.active[pos]];
            const std::uint32_t c = queue_of(port, q.prio) - p.first;
            held |= 1u << c;
            last_packets[c] = std::min<std::uint32_t>(2, last_packets[c] + std::min<std::uint32_t>(2, q.queued));
            const Packet& head = packets_[q.queue.head];
            Time start = std::max({p.free_at, head.ready, q.next_send});
            if (start >= cand_start[c]) continue;
            if (p.fc != nullptr && !p.fc->may_send(p.first + c, Bytes{head.bytes}, start))
                continue;  // PFC holds its priority
            if (start >= cand_start[c]) continue;
            cand_start[c] = start;
            cand[c] = static_cast<std::uint32_t>(pos);
        }
        Time best_start = Time::max();
        std::uint32_t ready = 0, last = 0;
        for (std::uint32_t c = 0; c < p.classes; ++c) {
            if (cand_start[c] > best_start || cand_start[c] == Time::max()) continue;
            if (cand_start[c] < best_start) {
                best_start = cand_start[c];
                ready = 0;
                last = 0;
            }
            ready |= 1u << c;
            if (last_packets[c] == 1) last |= 1u << c;
        }
        // A message that starts at the NIC itself (a SHARP part up to the leaf) queues in the
        // port's own queues, as at any unpaced port.
        if (p.backlog == 0 && !p.injectors.empty()) inject(port, now);
        Time own_start;
        const std::uint32_t own = p.backlog != 0 ? pick(port, own_start) : kNone;
        if (own != kNone && own_start <= std::min(best_start, now)) {
            commit(sim, port, dequeue(port, own), own_start);
            continue;
        }
        if (ready == 0) return;
        if (best_start > now) {
            if (p.wake_at != best_start) {
                p.wake_at = best_start;
                sim.at(best_start, *this, event(port, kWake));
            }
            return;
        }
        std::uint32_t c = static_cast<std::uint32_t>(__builtin_ctz(ready));
        if ((ready & (ready - 1)) != 0) {  // several classes may go: the port's scheduler chooses
            for (std::uint32_t bits = ready; bits != 0; bits &= bits - 1) {
                const auto r = static_cast<std::uint32_t>(__builtin_ctz(bits));
                head_bytes_[r] = packets_[qps_[p.active[cand[r]]].queue.head].bytes;
            }
            c = serve(p, port, ready, last, held | p.backlog);
        }
        const std::size_t best_pos = cand[c];
        const std::uint32_t best = p.active[best_pos];
        Qp& q = qps_[best];
        const std::uint32_t k = pop(q.queue);
        --q.queued;
        if (q.queue.empty()) {
            q.listed = false;
            p.active.erase(p.active.begin() + static_cast<std::ptrdiff_t>(best_pos));
            p.round_robin = p.active.empty() ? 0 : static_cast<std::uint32_t>(best_pos % p.active.size());
        } else {
            p.round_robin = static_cast<std::uint32_t>((best_pos + 1) % p.active.size());
            // The QP's next packet waited behind this one long enough to go cold; the next
            // choice at this port reads its ready time.
            __builtin_prefetch(&packets_[q.queue.head]);
        }
        const Bytes size{packets_[k].bytes};
        commit(sim, port, k, best_start);
        if (q.cc == nullptr) {  // no congestion control: the port's pace alone
            q.next_send = best_start;
            if (q.source_waits && q.queued <= kNicPullWindow / 2) resume_source(sim, best);
            continue;
        }
        // Pace in wire bytes: the payload at the link's efficiency.
        const Link& link = topology_.link(DirectedLink::from_index(port).link);
        const Bandwidth payload_rate = Bandwidth::bps(static_cast<std::int64_t>(
            static_cast<__int128>(q.cc->rate().bits_per_second()) * p.rate.bits_per_second() / link.bandwidth.bits_per_second()));
        q.next_send = checked_add(best_start, transmit_time(size, std::max(payload_rate, Bandwidth::bps(1))),
                                  "packet model: a paced QP's next packet");
        cc_call(sim, best, CcInput::sent, size);
        if (q.source_waits && q.queued <= kNicPullWindow / 2) resume_source(sim, best);
    }
}

// Whether packet `seq` of message m must wait at its source: its QP at the NIC (once the
// message has reached it) holds a full pull window. The QP then wakes the source.
bool PacketNetwork::nic_pull_full(MessageState& m, std::uint64_t seq) {
    if (m.qp == kNone) return false;
    Qp& q = qps_[m.qp + part_of(m, seq)];
    if (q.queued < kNicPullWindow) return false;
    q.source_waits = true;
    m.pull_held = true;
    return true;
}

// The QP's source node pulls again: every port of it with messages to start is pumped.
void PacketNetwork::resume_source(Simulator& sim, std::uint32_t qp) {
    qps_[qp].source_waits = false;
    const NodeId src = qps_[qp].src;
    const std::size_t ports = topology_.node(src).ports.size();
    for (std::uint32_t port = 0; port < ports; ++port) {
        const std::uint32_t idx = egress_of(src, port);
        if (!ports_[idx].injectors.empty()) pump(sim, idx);
    }
}

// Feeds the QP's congestion control (bytes sent, a CNP, an ACK, its timer) and re-arms its
// timer. The object's clock never goes back, though a send may be back-dated.
void PacketNetwork::cc_call(Simulator& sim, std::uint32_t qp, CcInput why, Bytes size) {
    Qp& q = qps_[qp];
    if (q.cc == nullptr) return;  // a QP without congestion control
    const Time t = std::max(q.last_call, sim.now());
    q.last_call = t;
    switch (why) {
        case CcInput::sent: q.cc->on_sent(t, size); break;
        case CcInput::cnp: q.cc->on_cnp(t); break;
        case CcInput::ack: q.cc->on_ack(t, size); break;
        case CcInput::timer: q.cc->on_timer(t); break;
    }
    if (spec_.qp_rate_interval > Time::zero()) {
        const QpSample now{t, q.cc->rate(), q.cc->table_index()};
        if (q.rates.empty() || ((now.rate != q.rates.back().rate || now.ccti != q.rates.back().ccti) &&
                                t >= q.rates.back().at + spec_.qp_rate_interval))
            q.rates.push_back(now);
    }
    arm_timer(sim, qp);
}

void PacketNetwork::arm_timer(Simulator& sim, std::uint32_t qp) {
    Qp& q = qps_[qp];
    if (q.cc == nullptr) return;
    const Time next = q.cc->next_timer();
    if (next == Time::max() || q.queue.empty()) return;  // idle QPs catch up when data returns
    const Time at = std::max(next, sim.now());
    if (q.timer_at <= at && q.timer_at >= sim.now()) return;  // an earlier or equal one is pending
    q.timer_at = at;
    sim.at(at, *this, event(qp, kCcTimer));
}

void PacketNetwork::mark_ecn(Simulator& sim, std::uint32_t q, Packet& packet) {
    const Bytes queued = queues_[q].queued;
    const congestion::RedMarker& red = markers_[layout_.port[q]];
    if (queued <= red.params().kmin) return;  // the common case draws no random number
    if (ecn_rng_ == nullptr) ecn_rng_ = &sim.rng("packet/ecn");
    if (queued > red.params().kmax || red.should_mark(queued, ecn_rng_->uniform01())) {
        packet.marked = true;
        ++ecn_marks_;
        ++queues_[q].marks;
    }
}

void PacketNetwork::on_marked_arrival(Simulator& sim, NodeId nic, const MessageState& m, std::uint64_t seq) {
    if (m.qp == kNone) return;  // not through a NIC uplink
    const std::uint32_t qp = m.qp + part_of(m, seq);
    if (qps_[qp].cc == nullptr) return;  // its NIC runs no congestion control
    if (!qps_[qp].pacer.on_marked_packet(sim.now())) return;
    ++(ib_ ? becns_ : cnps_);
    send_control(sim, nic, kCnpFrame, qp, 0);
}

}  // namespace fabricsim::fabric
