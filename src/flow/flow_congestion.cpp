#include "flow/flow_congestion.hpp"

#include "fabric/ib_cc_params.hpp"
#include "flow/dcqcn_fluid_fabric.hpp"
#include "flow/flow_system.hpp"

#include <algorithm>
#include <cmath>

namespace fabricsim::flow {

using fabric::DirectedLink;
using scenario::Technology;

namespace {
double seconds(Time t) { return static_cast<double>(t.picoseconds()) * 1e-12; }
double bytes_per_s(Bandwidth b) { return static_cast<double>(b.bits_per_second()) / 8.0; }
// A queue under a byte is empty (the Euler sums of rates that balance exactly leave dust).
constexpr double kEmpty = 1.0;
// A link is saturated by the max-min rates, or offered more than it carries, past this.
constexpr double kSaturated = 1e-6;
}  // namespace

IbCcFluid ib_cc_fluid(const scenario::ClusterSpec& c, Bandwidth line) {
    // The parameters the packet model's sources run.
    const auto& cc = c.infiniband.congestion_control;
    IbCcFluid f;
    f.enabled = cc.enabled;
    if (!f.enabled) return f;
    const congestion::IbCcParams p = fabric::ib_cc_params(cc, line, c.fabric.mtu);
    f.threshold = static_cast<double>(cc.threshold.count());
    f.mark_fraction = 1.0 / (cc.marking_rate + 1.0);
    f.increase = p.ccti_increase;
    f.timer = seconds(p.ccti_timer);
    f.min = p.ccti_min;
    f.limit = std::min<double>(p.ccti_limit, static_cast<double>(p.table.size()) - 1);
    for (const congestion::CctEntry& e : p.table)
        f.factor.push_back(static_cast<double>(e.rate(line).bits_per_second()) /
                           static_cast<double>(line.bits_per_second()));
    return f;
}

FlowCongestion::FlowCongestion(const fabric::Topology& topology, const scenario::ClusterSpec& cluster)
    : topology_(topology), cluster_(cluster), local_(topology.directed_link_count(), -1) {
    const Bandwidth line = cluster.server.nic.line_rate;
    const bool roce = cluster.fabric.technology == Technology::roce;
    if (roce && cluster.roce.dcqcn.enabled && cluster.roce.ecn.enabled) {
        control_ = Control::dcqcn;
        dcqcn_ = fluid_params_of(cluster);
        events_ = dcqcn_.periodic;
    } else if (!roce) {
        per_input_ = true;
        ib_ = ib_cc_fluid(cluster, line);
        if (ib_.enabled) control_ = Control::ib_cc;
    }
    // The Euler step: a tenth of the shortest period the reaction runs on (DCQCN: τ' and τ,
    // the NIC preset's 1 and 4 µs give 100 ns; IB CC: the CCTI timer), and at most 1 µs, the
    // order of a fabric's feedback delay (docs/models/flow.md).
    double period = 1e-5;
    if (control_ == Control::dcqcn) period = std::min({dcqcn_.tau, dcqcn_.tau_alpha, dcqcn_.timer});
    if (control_ == Control::ib_cc) period = ib_.timer;
    step_ = Time::ps(std::clamp<std::int64_t>(static_cast<std::int64_t>(period / 10 * 1e12), 1, 1'000'000));
    h_ = seconds(step_);
}

std::uint32_t FlowCongestion::link_of(std::uint32_t directed, const fabric::Topology& topology) {
    if (local_[directed] >= 0) return static_cast<std::uint32_t>(local_[directed]);
    const DirectedLink d = DirectedLink::from_index(directed);
    Link l;
    l.capacity = bytes_per_s(topology.link(d.link).payload_bandwidth());
    l.queue_port = fabric::is_fabric_switch(topology.node(topology.source(d)).kind);
    if (l.queue_port && control_ == Control::dcqcn) {
        const scenario::EcnThresholds t = scenario::ecn_thresholds(cluster_.roce.ecn, topology.link(d.link).bandwidth);
        l.kmin = static_cast<double>(t.kmin.count());
        l.kmax = static_cast<double>(t.kmax.count());
        l.pmax = cluster_.roce.ecn.pmax;
    }
    l.qmax = static_cast<double>(fluid_queue_limit(topology, cluster_, d, {}).count());
    local_[directed] = static_cast<std::int32_t>(links_.size());
    links_.push_back(std::move(l));
    return static_cast<std::uint32_t>(links_.size() - 1);
}

double FlowCongestion::add(std::uint32_t id, const fabric::FlowKey& key, std::span<const std::uint32_t> hops,
                           double bytes, Time now) {
    if (flow_qp_.size() <= id) {
        flow_qp_.resize(id + 1, kNoQp);
        flow_bytes_.resize(id + 1, 0.0);
        flow_cap_.resize(id + 1, kUncapped);
        flow_rate_.resize(id + 1, 0.0);
        flow_weight_.resize(id + 1, 1.0);
    }
    const auto [it, fresh] = qp_of_.emplace(std::make_tuple(key.src.value(), key.dst.value(), key.qp),
                                            static_cast<std::uint32_t>(qps_.size()));
    const std::uint32_t qi = it->second;
    if (fresh) {
        qps_.emplace_back();
        Qp& q = qps_.back();
        q.path = static_cast<std::uint32_t>(path_links_.size());
        std::uint32_t prev = UINT32_MAX;
        for (std::uint32_t hop : hops) {
            const DirectedLink d = DirectedLink::from_index(hop);
            const fabric::NodeKind from = topology_.node(topology_.source(d)).kind;
            const bool uplink =
                from == fabric::NodeKind::nic && fabric::is_fabric_switch(topology_.node(topology_.target(d)).kind);
            if (!uplink && !fabric::is_fabric_switch(from)) {
                prev = UINT32_MAX;
                continue;
            }
            const std::uint32_t l = link_of(hop, topology_);
            if (uplink && q.line == 0) q.line = links_[l].capacity;
            std::uint32_t slot = kNoFeeder;
            if (prev != UINT32_MAX && links_[l].queue_port) {
                std::vector<std::uint32_t>& in = links_[l].feeders;
                slot = static_cast<std::uint32_t>(std::find(in.begin(), in.end(), prev) - in.begin());
                if (slot == in.size()) {
                    in.push_back(prev);
                    // The PFC/credit limit grows with the ingress queues that feed the port.
                    std::vector<DirectedLink> feeders;
                    for (std::uint32_t x : in) feeders.push_back(DirectedLink::from_index(x));
                    links_[l].qmax = static_cast<double>(fluid_queue_limit(topology_, cluster_, d, feeders).count());
                }
            }
            path_links_.push_back(l);
            path_feeder_.push_back(slot);
            ++q.hops;
            prev = hop;
        }
        if (q.line == 0 && q.hops > 0) q.line = links_[path_links_[q.path]].capacity;
        q.rc = q.rt = q.line;  // DCQCN starts at line rate; IB CC at CCTI_Min
        q.alpha = 1;           // as the first CNP sets it
        q.ccti = ib_.min;
        q.cap = kUncapped;
        // Feedback delay: the path's propagation and forwarding there and back (the CNP or
        // BECN returns the same way), in steps.
        Time one_way = Time::zero();
        for (std::uint32_t hop : hops) {
            const DirectedLink d = DirectedLink::from_index(hop);
            one_way += topology_.link(d.link).propagation + topology_.node(topology_.target(d)).forwarding_latency;
        }
        q.delay =
            static_cast<std::uint32_t>((2 * one_way.picoseconds() + step_.picoseconds() / 2) / step_.picoseconds());
        q.hist = static_cast<std::uint32_t>(hist_.size());
        hist_.resize(hist_.size() + q.delay + 1, Sent{0.0, q.rc});
        q.idle_since = now;
    }
    Qp& q = qps_[qi];
    if (!q.live) catch_up(q, now);
    q.flows.push_back(id);
    q.bytes += bytes;
    q.pending += bytes;
    flow_qp_[id] = qi;
    flow_bytes_[id] = bytes;
    flow_rate_[id] = 0;
    flow_weight_[id] = 1;  // the solver's weight of a new flow; per_input_ports() sets it
    make_live(qi);
    // A QP's cap is shared by its live flows (it sends one message after another; here they
    // run side by side).
    flow_cap_[id] = q.cap / static_cast<double>(q.flows.size());
    return flow_cap_[id];
}

void FlowCongestion::catch_up(Qp& q, Time now) {
    if (now <= q.idle_since) return;
    // Nothing marked it meanwhile (it sent nothing, or the overlay had no queue): DCQCN's
    // timer keeps raising the rate and α decays (equations (3)-(5) with p = 0), IB CC's index
    // falls one per CCTI timer. Integrated in steps of a tenth of the timer period.
    double gap = seconds(now - q.idle_since);
    q.idle_since = now;
    if (control_ == Control::ib_cc) {
        q.ccti = std::max(ib_.min, q.ccti - gap / ib_.timer);
        return;
    }
    if (control_ != Control::dcqcn) return;
    if (events_) {
        dcqcn_event_idle(dcqcn_, q.events, q.rc, q.rt, q.alpha, seconds(now), q.line);
        ++q.generation;  // its packets in flight are forgotten
        q.last_due = kNoDue;
        q.back = 0;
        q.partial = 0;
        for (Sent& x : history(q)) x.p = 0;
        return;
    }
    const double dt = dcqcn_.timer / 10;
    while (gap > 0 && !(at_line(q) && q.alpha < 1e-9)) {
        const double t = std::min(gap, dt);
        const FluidRates d = dcqcn_derivatives(dcqcn_, q.rc, q.rt, q.alpha, 0.0, q.rc);
        q.rc = std::min(q.rc + t * d.drc, q.line);
        q.rt = std::min(q.rt + t * d.drt, q.line);
        q.alpha = std::max(0.0, q.alpha * std::exp(-dcqcn_.g / dcqcn_.tau_alpha * t));
        gap -= t;
    }
    for (Sent& x : history(q)) x.p = 0;
}

void FlowCongestion::make_live(std::uint32_t qi) {
    if (qps_[qi].live) return;
    qps_[qi].live = true;
    live_.push_back(qi);
}

void FlowCongestion::remove(std::uint32_t id) {
    if (!tracked(id)) return;
    Qp& q = qps_[flow_qp_[id]];
    q.flows.erase(std::find(q.flows.begin(), q.flows.end(), id));
    q.bytes = q.flows.empty() ? 0.0 : std::max(0.0, q.bytes - flow_bytes_[id]);
    // Bytes the flow network delivered but the overlay had not yet pushed in were served from
    // the queue in the QP's name: they leave it now.
    const double ahead = std::max(0.0, q.pending - q.bytes);
    q.pending -= ahead;
    for (std::uint32_t l : links_of(q))
        if (links_[l].queue_port) links_[l].queue = std::max(0.0, links_[l].queue - ahead);
    flow_qp_[id] = kNoQp;
    flow_rate_[id] = 0;
    q.rate = 0;
    for (std::uint32_t f : q.flows) q.rate += flow_rate_[f];
}

void FlowCongestion::set_rate(std::uint32_t id, double rate) {
    if (!tracked(id)) return;
    Qp& q = qps_[flow_qp_[id]];
    // The QP's rate: the sum over its flows, re-summed from their last rates.
    flow_rate_[id] = rate;
    q.rate = 0;
    for (std::uint32_t f : q.flows) q.rate += flow_rate_[f];
}

double FlowCongestion::allowed(const Qp& q) const {
    if (control_ == Control::ib_cc) {
        const auto i = static_cast<std::size_t>(std::clamp(q.ccti, 0.0, ib_.limit));
        return q.line * ib_.factor[i];
    }
    return q.rc;
}

bool FlowCongestion::at_line(const Qp& q) const {
    return allowed(q) >= q.line * (1 - kSaturated) && q.rt >= q.line * (1 - kSaturated);
}

bool FlowCongestion::needs_step() {
    if (live_.empty()) return false;
    // The cheap answers first: a rate below line, or a queue.
    for (std::uint32_t qi : live_)
        if (!at_line(qps_[qi])) return true;
    for (const Link& l : links_)
        if (l.queue > kEmpty) return true;
    for (Link& l : links_) {
        l.offered = 0;
        l.load = 0;
    }
    for (std::uint32_t qi : live_) {
        const Qp& q = qps_[qi];
        for (std::uint32_t l : links_of(q)) {
            links_[l].offered += q.pending > 0 ? allowed(q) : 0;
            links_[l].load += q.rate;
        }
    }
    for (const Link& l : links_)
        // A saturated switch port offered more than it carries: a queue is about to build.
        if (l.queue_port && l.load >= l.capacity * (1 - kSaturated) && l.offered > l.capacity * (1 + kSaturated))
            return true;
    return false;
}

const std::vector<std::pair<std::uint32_t, double>>& FlowCongestion::advance(Time now, Rng& rng) {
    changed_.clear();
    const double h = h_;
    // A QP not stepped since its last step (the overlay was idle) catches up first.
    for (std::uint32_t qi : live_) catch_up(qps_[qi], now - step_);
    // Links: arrivals of the last step, queues, marking, back-pressure.
    for (Link& l : links_) {
        l.offered = 0;
        l.arrival = 0;
        l.load = 0;
        l.pause = 1;
    }
    for (std::uint32_t qi : live_) {
        const Qp& q = qps_[qi];
        for (std::uint32_t l : links_of(q)) {
            links_[l].offered += q.pending > 0 ? allowed(q) : 0;
            links_[l].arrival += q.send;
            links_[l].load += q.rate;
        }
    }
    live_feeders();
    for (Link& l : links_) {
        if (l.queue_port) {
            l.queue = std::max(0.0, l.queue + h * (l.arrival - l.capacity));
            l.queue = std::min(l.queue, std::max(l.limit, 0.0));
        }
        if (control_ == Control::dcqcn)
            l.mark = l.queue_port ? red_probability(l.queue, l.kmin, l.kmax, l.pmax) : 0.0;
        else if (control_ == Control::ib_cc)
            l.mark = l.queue_port && l.queue > ib_.threshold ? ib_.mark_fraction : 0.0;
        l.theta = (l.queue >= l.limit && l.offered > l.capacity) ? l.capacity / l.offered : 1.0;
    }
    // PFC and credits hold the whole link that feeds a full port.
    for (std::uint32_t qi : live_) {
        const Qp& q = qps_[qi];
        const std::span<const std::uint32_t> path = links_of(q);
        for (std::size_t k = 1; k < path.size(); ++k) {
            const Link& l = links_[path[k]];
            if (l.queue_port && l.theta < 1) {
                Link& up = links_[path[k - 1]];
                up.pause = std::min(up.pause, l.theta);
            }
        }
    }
    if (events_) come_back();
    // QPs: the reaction to the delayed marking, then what each sends and its cap.
    std::size_t kept = 0;
    for (std::uint32_t qi : live_) {
        Qp& q = qps_[qi];
        double keep = 1, theta = 1, pfc = 1;
        bool queued = false, saturated = false;
        for (std::uint32_t li : links_of(q)) {
            const Link& l = links_[li];
            keep *= 1 - l.mark;
            theta = std::min({theta, l.theta, l.pause});
            // The cap takes the pauses and a full port's share, not a NIC's own sharing among
            // its flows, which the max-min solve already does.
            pfc = std::min(pfc, l.queue_port ? std::min(l.theta, l.pause) : l.pause);
            queued = queued || (l.queue_port && l.queue > kEmpty);
            saturated = saturated || (l.queue_port && l.load >= l.capacity * (1 - kSaturated));
        }
        const bool sending = q.pending > 0;
        const std::span<Sent> hist = history(q);
        const std::size_t slot = steps_ % hist.size();
        const std::size_t back = (steps_ + hist.size() - q.delay) % hist.size();
        // Marks come back only on what the QP sent: none while it is idle. (The NIC preset's
        // packets carry the marks of the queue they leave, which may be after the QP stopped.)
        hist[slot].p = sending || events_ ? 1 - keep : 0.0;
        // IB CC: a switch sets FECN on the packets it forwards (IBA Vol. 1 Annex A10), so a
        // QP's marks come with the packets the port serves it, its solve rate, not with what
        // it pushes into the queue.
        hist[slot].x = sending ? (control_ == Control::ib_cc ? q.rate : q.send) : 0.0;
        const double p_d = hist[back].p, x_d = hist[back].x;
        if (control_ == Control::dcqcn) {
            // The timer runs whether or not the QP sends; the byte counter and marks need
            // packets: a QP that sent nothing one delay ago sees its timer only.
            if (events_) {
                // The NIC preset's reaction point (dcqcn_events.hpp) on the CNPs its packets bring
                // back: what it sends now leaves the switch queues on its path Σ q/C later, marked
                // as the queue it leaves is then (RED at dequeue), and the CNP returns one
                // feedback delay after that.
                const double packets = q.send * h / dcqcn_.mtu;
                if (packets > 0) {
                    double wait = 0;
                    for (std::uint32_t li : links_of(q))
                        if (links_[li].queue_port) wait += links_[li].queue / links_[li].capacity;
                    leave(q, qi, steps_ + q.delay + static_cast<std::uint64_t>(std::llround(wait / h)), packets);
                }
                come_back(q);
                // Its packets leaving their last queue now, whole (unmarked_log_whole).
                const double unmarked_log = unmarked_log_whole(q.partial, q.back, p_d);
                q.back = 0;
                dcqcn_event_step(dcqcn_, q.events, q.rc, q.rt, q.alpha, unmarked_log, q.send * h, seconds(now), q.line,
                                 rng);
            } else {
                const FluidRates d = dcqcn_derivatives(dcqcn_, q.rc, q.rt, q.alpha, p_d, x_d > 0 ? x_d : q.rc);
                const double floor = std::min(dcqcn_.min_rate, q.line);
                q.rc = std::clamp(q.rc + h * d.drc, floor, q.line);
                q.rt = std::clamp(q.rt + h * d.drt, floor, q.line);
                q.alpha = std::clamp(q.alpha + h * d.dalpha, 0.0, 1.0);
            }
        } else if (control_ == Control::ib_cc) {
            // BECNs per second: its packets one feedback delay ago times the marked fraction.
            const double becn = x_d / static_cast<double>(cluster_.fabric.mtu.count()) * p_d;
            const double down = q.ccti > ib_.min ? 1 / ib_.timer : 0.0;
            q.ccti = std::clamp(q.ccti + h * (ib_.increase * becn - down), ib_.min, ib_.limit);
        }
        const double r = allowed(q);
        // RoCE: a switch's egress queue is first in, first out (one per priority), so a port
        // serves a QP only the bytes it pushed in: once they are all served, the QP gets what
        // it pushes, R·θ, however long the queue of the others. Without this a QP that DCQCN
        // cut to R_min took its max-min share out of the others' queue (docs/models/flow.md,
        // "What a FIFO port serves").
        q.own = std::max(0.0, q.own + (q.send - q.rate) * h);
        const bool empty_own = control_ == Control::dcqcn && q.own <= kEmpty;
        if (sending) {
            q.send = r * theta;
            if (!saturated && !queued) q.send = std::min(q.send, q.rate);
            q.pending = std::max(0.0, q.pending - q.send * h);
        } else {
            q.send = 0;
        }
        q.cap = kUncapped;
        if (sending && (!queued || empty_own)) {
            q.cap = r * pfc;
            if (q.cap >= q.line * (1 - kSaturated)) q.cap = kUncapped;
        }
        for (std::uint32_t id : q.flows) {
            const double cap = q.cap / static_cast<double>(q.flows.size());
            const double old = flow_cap_[id];
            const bool moved =
                std::isinf(cap) != std::isinf(old) || (!std::isinf(cap) && std::abs(cap - old) > kCapResolution * old);
            if (moved) {
                flow_cap_[id] = cap;
                changed_.emplace_back(id, cap);
            }
        }
        q.idle_since = now;
        // A QP with no flows is not stepped: catch_up() brings it to the time of its next one.
        if (q.flows.empty())
            q.live = false;
        else
            live_[kept++] = qi;
    }
    live_.resize(kept);
    ++steps_;
    per_input_ports();
    return changed_;
}

void FlowCongestion::leave(Qp& q, std::uint32_t qi, std::uint64_t due, double packets) {
    // A batch due when its QP's newest one is, and that one not back yet, joins it.
    if (q.last_due == due && q.last_back > steps_) {
        q.last_packets += packets;
        return;
    }
    if (q.last_due != kNoDue) {
        // The newest batch becomes an older one: back now, or into the wheel.
        if (q.last_back <= steps_) {
            q.back += q.last_packets;
        } else {
            if (q.last_back - steps_ >= leaving_.size()) {
                // A longer wait than the wheel holds: a wheel at least twice as long, every
                // batch in the bucket of its step, in the same order.
                std::vector<std::vector<Leaving>> wider(
                    std::max<std::size_t>(2 * leaving_.size(), q.last_back - steps_ + 1));
                for (std::vector<Leaving>& bucket : leaving_)
                    for (const Leaving& b : bucket) wider[b.at % wider.size()].push_back(b);
                leaving_ = std::move(wider);
            }
            leaving_[q.last_back % leaving_.size()].push_back({q.last_back, qi, q.generation, q.last_packets});
        }
    }
    // First in, first out: it comes back no earlier than the batch before it.
    q.last_back = q.last_due == kNoDue ? due : std::max(due, q.last_back);
    q.last_due = due;
    q.last_packets = packets;
}

void FlowCongestion::come_back() {
    if (leaving_.empty()) return;
    std::vector<Leaving>& bucket = leaving_[steps_ % leaving_.size()];
    for (const Leaving& b : bucket) {
        Qp& q = qps_[b.qp];
        if (b.generation == q.generation) q.back += b.packets;
    }
    bucket.clear();
}

void FlowCongestion::come_back(Qp& q) {
    if (q.last_due == kNoDue || q.last_back > steps_) return;
    q.back += q.last_packets;
    q.last_due = kNoDue;
}

void FlowCongestion::live_feeders() {
    for (Link& l : links_) {
        l.limit = l.qmax;
        if (!per_input_ || !l.queue_port || l.feeders.empty()) continue;
        l.per_feeder.assign(l.feeders.size(), 0);
    }
    if (!per_input_) return;
    // InfiniBand: a switch holds for each input link only the VL buffer it gave credits for
    // (IBA Vol. 1 §7.9), so a port's queue is at most the buffers of the input links that
    // still carry a live QP; an input whose senders are done holds nothing there.
    for (std::uint32_t qi : live_) {
        const Qp& q = qps_[qi];
        if (q.flows.empty()) continue;
        const std::span<const std::uint32_t> path = links_of(q), feeder = feeders_of(q);
        for (std::size_t k = 0; k < path.size(); ++k)
            if (feeder[k] != kNoFeeder) ++links_[path[k]].per_feeder[feeder[k]];
    }
    for (Link& l : links_) {
        if (!l.queue_port || l.feeders.empty()) continue;
        const auto live = static_cast<double>(
            std::count_if(l.per_feeder.begin(), l.per_feeder.end(), [](std::uint32_t n) { return n > 0; }));
        l.limit = l.qmax * std::max(live, 1.0) / static_cast<double>(l.feeders.size());
    }
}

void FlowCongestion::per_input_ports() {
    reweighted_.clear();
    if (control_ == Control::dcqcn) {
        per_qp();
        return;
    }
    if (!per_input_) return;
    for (Link& l : links_) l.per_feeder.assign(l.feeders.size(), 0);
    for (std::uint32_t qi : live_) {
        const Qp& q = qps_[qi];
        const std::span<const std::uint32_t> path = links_of(q), feeder = feeders_of(q);
        for (std::size_t k = 0; k < path.size(); ++k)
            if (feeder[k] != kNoFeeder) ++links_[path[k]].per_feeder[feeder[k]];
    }
    // A port arbitrates only where it holds a queue: without a backlog it sends what comes. A
    // flow that crosses no such port keeps weight 1 (max-min per message, as before).
    for (std::uint32_t qi : live_) {
        const Qp& q = qps_[qi];
        std::uint32_t n = 0;
        const std::span<const std::uint32_t> path = links_of(q), feeder = feeders_of(q);
        for (std::size_t k = 0; k < path.size(); ++k) {
            const Link& l = links_[path[k]];
            if (feeder[k] != kNoFeeder && l.queue > kEmpty) n = std::max(n, l.per_feeder[feeder[k]]);
        }
        // The sending NIC serves its QPs in turn and a QP its messages one after another:
        // the QP's share is split among its messages in flight.
        const double w = n == 0 ? 1.0 : 1.0 / (static_cast<double>(n) * static_cast<double>(q.flows.size()));
        reweight(q, w);
    }
}

void FlowCongestion::reweight(const Qp& q, double w) {
    for (std::uint32_t id : q.flows)
        if (flow_weight_[id] != w) {
            flow_weight_[id] = w;
            reweighted_.emplace_back(id, w);
        }
}

void FlowCongestion::per_qp() {
    // RoCE with DCQCN: the rate limiter is per QP (Zhu et al., SIGCOMM 2015, §3: the reaction
    // point runs per flow, a flow being a QP), the NIC serves its QPs in turn (NicScheduler) and
    // a QP sends its messages one after another, so at a queued port a QP gets one share
    // whatever number of messages it has in flight: each of its m messages weight 1/m. A flow
    // that crosses no queued port keeps weight 1 (max-min per message, as without the overlay).
    for (std::uint32_t qi : live_) {
        const Qp& q = qps_[qi];
        bool queued = false;
        for (std::uint32_t li : links_of(q)) queued = queued || (links_[li].queue_port && links_[li].queue > kEmpty);
        const double w = queued ? 1.0 / static_cast<double>(q.flows.size()) : 1.0;
        reweight(q, w);
    }
}

Time FlowCongestion::queueing_delay(std::span<const std::uint32_t> hops) const {
    double s = 0;
    for (std::uint32_t hop : hops) {
        const std::int32_t l = local_[hop];
        if (l >= 0 && links_[static_cast<std::size_t>(l)].queue_port)
            s += links_[static_cast<std::size_t>(l)].queue / links_[static_cast<std::size_t>(l)].capacity;
    }
    return Time::ps(static_cast<std::int64_t>(std::ceil(s * 1e12)));
}

}  // namespace fabricsim::flow
