// The congestion-control overlay of the flow network (`simulation.flow_congestion: fluid`,
// docs/models/flow.md, "Coupled congestion control"): the time-stepped fluid model of the
// fabric's congestion control and lossless back-pressure, run on the flow network's own fabric
// flows and fed back into its max-min solve as per-flow rate caps.
//
// Per fabric link (a NIC's uplink, a switch's egress port) it keeps a queue q, its marking
// probability and a back-pressure factor; per queue pair (the flow key the packet model hashes:
// source, destination, QP) its congestion-control state and how many of its messages' bytes
// its sender has pushed in. The state outlives a message, as a QP's does in the packet model:
// the next message on a QP that DCQCN cut starts at the cut rate, and a QP's rate keeps
// recovering between messages. One Euler step of h:
//
//   injection   o_f = R_f·θ_f, the rate its sender pushes into the fabric: R_f the rate control
//               allows (DCQCN's R_C, IB CC's CCT rate, or line rate), θ_f the back-pressure on
//               its path (below). A flow none of whose switch ports the max-min solve saturates
//               pushes only what it gets: o_f = min(R_f·θ_f, r_f), so an uncongested fabric
//               builds no queue and the overlay changes nothing.
//   queue       dq_l/dt = Σ o_f − C_l at a switch egress (q ≥ 0; capped at q_max, below)
//   marking     RoCE: RED(q) with cluster.roce.ecn (Kmin, Kmax, Pmax); InfiniBand with IB CC:
//               1/(marking_rate + 1) of the packets while q > threshold (IBA A10, FECN)
//   reaction    RoCE, the NIC's periodic reaction (the `nic` preset): the NIC's reaction point
//               per QP (dcqcn_events.hpp), a CNP drawn from the marks its packets pick up as they
//               leave the queues on its path, Σ q/C after it sent them, and bring back one
//               feedback delay τ* later; RoCE, the paper's per-CNP reaction: DCQCN's equations
//               (3)-(5) of dcqcn_fluid_rules.hpp, fed the path's marking one feedback delay τ*
//               ago; InfiniBand: the CCT index y rises by ccti_increase per
//               BECN and falls by one per ccti_timer, the rate is the CCT entry's
//               (ib_cc_fluid_rate); back-pressure alone without a rate control
//   back-       a queue at its limit q_max (PFC's XOFF or the credit buffer over its feeders:
//   pressure    fluid_queue_limit) takes θ_l = C_l/offered_l of its senders' rates, offered_l =
//               Σ R_f; a NIC uplink (q_max = 0) does the same. PFC and credits act on a whole
//               upstream link, so θ_l also holds every other flow on the links that feed l (its
//               pause factor π_L): a flow beside an incast waits with it on their shared
//               uplink. One hop only: a paused link does not pause its own feeders.
//
// An InfiniBand switch serves a congested output port per input port: within a VL, what an
// input link can hold in the switch is its VL buffer's credits (IBA Vol. 1 §7.9), and a packet
// the port sends returns credits to its own input link only, so every backlogged input link
// keeps the same bytes queued at the port and gets the same share of it (the packet model's
// `IbCredits`: beside the 16-to-1 incast, the 15 senders alone on their input links end
// together at 5.3-5.4 ms and the one that shares its link with a ring ends last, at 7.9 ms).
// The max-min solve shares a port per flow. So on InfiniBand each flow's solver weight is
// 1/(n·m): n the live QPs that enter its most shared queued switch port through the same
// input link, m its QP's messages in flight (1 where it crosses no queued port; the
// NIC serves QPs in turn, a QP its messages one after another). Every input port then gets
// an equal share of the port, split among its QPs (per_input_ports(); docs/models/flow.md,
// "Per-input-port arbitration"). A flow held below its share elsewhere leaves the rest of its
// input port's share to every flow of the port, not to its own input port's: an
// approximation of the hierarchy by weights.
//
// Coupling to the max-min rates: a flow whose path has a queue (q > 1 B) is served from it at
// its max-min share (the port drains at C whatever the senders do now); otherwise its rate is
// capped at R_f·π_f (what the rate control and pauses let through). On RoCE with DCQCN the
// queue is a FIFO that holds only what was pushed into it: a QP whose pushed bytes the solve
// has all served is capped at R_f·π_f too, and at a queued port each QP weighs one share,
// split among its messages in flight (per_qp()). Caps move the solve only
// when they change by more than kCapResolution, and the overlay steps only while something
// can change: a queue, a rate below line, or a link offered more than it carries.
#pragma once

#include "core/units.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology.hpp"
#include "flow/dcqcn_events.hpp"
#include "flow/dcqcn_fluid_rules.hpp"
#include "scenario/spec.hpp"

#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

namespace fabricsim::flow {

// IB CC's fluid reaction (docs/models/flow.md): the source's parameters as the packet model
// assembles them (cluster.infiniband.congestion_control, `auto` table for `line`), as doubles.
struct IbCcFluid {
    bool enabled = false;
    double threshold = 0;      // bytes: a port/VL queue above it marks
    double mark_fraction = 0;  // of the eligible packets: 1 / (marking_rate + 1)
    double increase = 1;       // CCTI per BECN
    double timer = 10.24e-6;   // s per CCTI decrement
    double min = 0, limit = 0;
    std::vector<double> factor;  // rate / line per CCT index
};
IbCcFluid ib_cc_fluid(const scenario::ClusterSpec& cluster, Bandwidth line);

class FlowCongestion {
public:
    // Caps that move by less than this (relative) are not handed to the solver.
    static constexpr double kCapResolution = 1e-3;

    FlowCongestion(const fabric::Topology& topology, const scenario::ClusterSpec& cluster);

    Time step() const { return step_; }
    // A fabric flow (the solver's id) of `bytes` on queue pair `key` over packet 0's path
    // `hops` (directed links), starting at `now`.
    // Returns the flow's cap (kUncapped: none), for the solver before its first solve.
    double add(std::uint32_t flow, const fabric::FlowKey& key, std::span<const std::uint32_t> hops, double bytes,
               Time now);
    void remove(std::uint32_t flow);
    bool tracked(std::uint32_t flow) const { return flow < flow_qp_.size() && flow_qp_[flow] != kNoQp; }
    // The flow network's max-min rate of a flow after a solve.
    void set_rate(std::uint32_t flow, double rate);
    // Whether a step can change anything (a queue, a rate below line, a link offered more than
    // it carries); checked after every change.
    bool needs_step();
    // One step ending at `now`; the flows whose cap changed, with the new cap (kUncapped: none).
    // `rng` draws the CNPs of the NIC preset's reaction point (dcqcn_events.hpp).
    const std::vector<std::pair<std::uint32_t, double>>& advance(Time now, Rng& rng);
    // Σ q/C over the switch ports of `hops`: what a message starting now waits in queues.
    Time queueing_delay(std::span<const std::uint32_t> hops) const;

    // For tests and reports: a fabric link's queue (bytes; 0 if no tracked flow crossed it), a
    // flow's allowed rate R_f and cap (bytes/s).
    double queue(std::uint32_t directed) const {
        return local_[directed] < 0 ? 0.0 : links_[static_cast<std::size_t>(local_[directed])].queue;
    }
    double allowed_rate(std::uint32_t flow) const { return allowed(qps_[flow_qp_[flow]]); }
    // RoCE: the bytes a flow's QP pushed into the fabric that the solve has not yet served.
    double unserved(std::uint32_t flow) const { return qps_[flow_qp_[flow]].own; }
    // The solver weights of the flows whose weight the last advance() changed (InfiniBand per
    // input port, RoCE with DCQCN per QP; below), and a flow's cap (kUncapped: none).
    const std::vector<std::pair<std::uint32_t, double>>& reweighted() const { return reweighted_; }
    double cap(std::uint32_t flow) const { return flow_cap_[flow]; }
    double weight(std::uint32_t flow) const { return flow_weight_[flow]; }
    std::uint64_t steps() const { return steps_; }

private:
    enum class Control { none, dcqcn, ib_cc };
    struct Link {
        double capacity = 0, kmin = 0, kmax = 0, pmax = 0, qmax = 0;
        double limit = 0;         // per step: qmax, on InfiniBand only for the inputs still in use
        bool queue_port = false;  // a switch egress (else a NIC uplink)
        double queue = 0, mark = 0, theta = 1, pause = 1;
        double offered = 0, arrival = 0, load = 0;  // per step
        std::vector<std::uint32_t> feeders;         // directed links seen upstream of it
        std::vector<std::uint32_t> per_feeder;      // live QPs entering from each (per step)
    };
    static constexpr std::uint32_t kNoQp = UINT32_MAX, kNoFeeder = UINT32_MAX;
    static constexpr std::uint64_t kNoDue = UINT64_MAX;
    struct Qp {
        // Its path: hops entries from path_ in path_links_ (local link ids, in path order)
        // and path_feeder_ (per link: its index in the link's feeders, kNoFeeder: none).
        std::uint32_t path = 0, hops = 0;
        double line = 0, rc = 0, rt = 0, alpha = 1, ccti = 0;
        double bytes = 0;    // of its live flows
        double pending = 0;  // of those, not yet pushed into the fabric
        double send = 0, rate = 0, cap = 0;
        std::vector<std::uint32_t> flows;  // live solver flows
        std::uint32_t delay = 0;           // feedback delay in steps
        std::uint32_t hist = 0;            // its delay + 1 slots of the marking and sending history in hist_
        Time idle_since;                   // α's decay while the overlay did not step
        DcqcnEventState events;            // the NIC preset's reaction point (dcqcn_events.hpp)
        // The NIC preset: its packets in the fabric come back in first-in first-out order, so
        // a batch's marks reach it at the latest step any batch before it is due. Its newest
        // batch is kept here (the step it is due, the step it comes back, its packets), the
        // older ones in leaving_.
        std::uint64_t last_due = kNoDue, last_back = 0;
        double last_packets = 0;
        std::uint32_t generation = 0;  // a batch of an older generation was dropped by catch_up()
        double back = 0;               // packets whose marks came back since its last step
        double own = 0;                // RoCE: bytes it pushed into the fabric that the solve has not served
        double partial = 0;            // of those, the part of a packet not yet counted whole
        bool live = false;             // in live_
    };
    // A batch of a QP's packets, in the bucket of leaving_ of the step their marks reach it.
    struct Leaving {
        std::uint64_t at;
        std::uint32_t qp, generation;
        double packets;
    };
    // The NIC preset's packets in flight by the step they come back, modulo its size: one flat
    // wheel for every QP rather than a queue per QP (a step walks every live QP).
    std::vector<std::vector<Leaving>> leaving_;
    void leave(Qp& q, std::uint32_t qi, std::uint64_t due, double packets);
    void come_back();       // the older batches due this step, into their QPs' `back`
    void come_back(Qp& q);  // its newest batch, if due this step
    // What a QP marked and sent in one step, kept for its feedback delay.
    struct Sent {
        double p = 0, x = 0;
    };
    std::span<const std::uint32_t> links_of(const Qp& q) const { return {path_links_.data() + q.path, q.hops}; }
    std::span<const std::uint32_t> feeders_of(const Qp& q) const { return {path_feeder_.data() + q.path, q.hops}; }
    std::span<Sent> history(const Qp& q) { return {hist_.data() + q.hist, q.delay + 1}; }
    double allowed(const Qp& q) const;  // R_f: what the rate control lets it send
    bool at_line(const Qp& q) const;
    void make_live(std::uint32_t qp);
    void catch_up(Qp& q, Time now);  // its idle time since idle_since, unmarked
    std::uint32_t link_of(std::uint32_t directed, const fabric::Topology& topology);

    const fabric::Topology& topology_;
    const scenario::ClusterSpec& cluster_;
    Control control_ = Control::none;
    FluidParams dcqcn_;
    bool events_ = false;  // DCQCN's periodic (NIC) reaction: dcqcn_events.hpp, not equations (3)-(5)
    IbCcFluid ib_;
    Time step_;
    double h_ = 0;
    std::uint64_t steps_ = 0;
    std::vector<std::int32_t> local_;  // directed link -> local link, −1 if not tracked
    std::vector<Link> links_;
    std::vector<Qp> qps_;
    // The QPs' paths and histories, flat (a step walks every live QP: no pointer per QP).
    std::vector<std::uint32_t> path_links_, path_feeder_;
    std::vector<Sent> hist_;
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> qp_of_;
    std::vector<std::uint32_t> flow_qp_;                     // by solver id
    std::vector<double> flow_bytes_, flow_cap_, flow_rate_;  // by solver id
    // InfiniBand switches arbitrate among input ports (per_input_ports()), RoCE ports with DCQCN
    // share per QP (per_qp()); 1 elsewhere.
    bool per_input_ = false;
    std::vector<double> flow_weight_;  // by solver id
    std::vector<std::pair<std::uint32_t, double>> reweighted_;
    void per_input_ports();
    void per_qp();                         // RoCE with DCQCN: one share per QP at a queued port
    void reweight(const Qp& q, double w);  // each of its flows' solver weight, if it moved
    void live_feeders();                   // each queue port's limit for this step
    std::vector<std::uint32_t> live_;      // QPs with flows, or a rate still below line
    std::vector<std::pair<std::uint32_t, double>> changed_;
};

}  // namespace fabricsim::flow
