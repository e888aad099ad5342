// The flow-level network (`simulation.model: flow`, docs/models/flow.md): every message is one
// fluid flow (one per queue pair across the fabric) over its routed path, at the max-min fair
// rate of the links it shares, re-solved when a flow starts or ends. No packets, no queues:
// an event per flow arrival, completion and delivery, so a collective costs events per
// message rather than per packet.
//
// Links: every directed link of the Topology — NVLink, PCIe, NVSwitch ports and the fabric —
// at its payload rate (Link::payload_bandwidth: line rate × the link class's payload
// efficiency, the same figure the packet model serialises at). Paths: the Routing's spread()
// of the flow key the packet model hashes (source and destination node, QP), so ECMP
// collisions load the same links in both models; where traffic stripes (a GPU's NVLink
// links) the flow puts 1/k of its rate on each of the k links.
//
// Time: a flow of S bytes at rate r(t) finishes transmitting when ∫r = S; its message is
// delivered `latency` later:
//
//   latency  = Σ_hops (propagation + next node's forwarding latency)     per-hop latency
//            + Σ_hops unit/R_h − max_h unit/R_h                          pipeline fill
//            + Σ_saturated hops ½ · unit / R_h                           queueing (estimate)
//
// with `unit` the packet (fabric MTU; a segment inside one server) clipped to the message,
// as the packet model cuts it. Alone on the network a message takes exactly
// latency + S / min_h (R_h / share_h): unloaded_time(). The queueing term, fixed when the
// message starts, is the residual service at a port that is already saturated: its first
// packet waits, on average, half a packet for the one being sent (ports serve flows round
// robin, so nothing else is ahead of it). It is not the standing queue PFC or credits hold,
// which a fluid model has no state for (docs/models/flow.md).
//
// Lossless back-pressure (PFC, InfiniBand credits) is taken at its long-run outcome: a flow
// sends no faster than its bottleneck allows anywhere on its path, which max-min fairness
// gives by construction. Pause spreading onto flows that share no bottleneck, drops,
// reordering and traffic classes are outside the model (docs/models/flow.md).
//
// Parallel links inside a server (a GPU's five NVLinks to one NVSwitch, an NVSwitch's to one
// GPU) are one bundle: traffic inside a server is striped packet by packet over every port of
// a hop (Routing::spread), so the members of a bundle always carry the same load, and one of
// them — its representative, the lowest index — stands for all in the solver. A flow's use of
// a bundle is the sum of its shares of the members, spread evenly over them. A GPU-to-GPU
// flow inside an HGX server then crosses 8 solver links instead of 36. Every per-link figure
// (bytes carried, busy time, rate) is the representative's, the same for every member.
//
// Inside a server a GPU's ports take segments from its messages oldest first: the packet
// model's ports each pull from the messages leaving by them in turn and drop a message once
// all its segments are out, so a message of fewer segments than ports is out in the first
// round that reaches it, before any younger one. Processor sharing instead would hold every
// message of a pipelined chain (a tree, a broadcast) until the last of its window is done
// (an 8 MiB broadcast down a 4-GPU NVLink chain: 60.1 µs against the packet model's 42.9).
// So a message that stripes over fewer ports than it may (stripe_cap) starts only while the
// capped messages running from its source hold fewer than all the ports; the others wait in
// order of sending. Messages of at least as many segments as ports share by max-min, as the
// packet model's ports serve them round robin.
//
// Round robin: ports serve the messages leaving by them packet by packet in turn (the packet
// model's NIC scheduler among its QPs, its GPU ports among their messages), so a message's last
// packet leaves in its turn of the last round, where processor sharing ends every message of
// the round at the round's end. A flow that ends sharing a saturated port (not held at its
// cap) is therefore delivered sooner by the part of the round after its turn: on average half
// a round, unit/r − unit/C, for a message on one port, and 1/(k+1) of it for one striped over
// k ports (the last of k uniform turns). Chains of short messages (an all-to-all of 8 KiB
// messages: 127 per chain) add that up every round (docs/models/flow.md, "Round robin").
//
// Identical flows are one solver flow. Flows of one route (flow key) with the same cap get the
// same max-min rate — the allocation is unique and treats them alike — so while such flows run
// at once (the channels of a ring between the same two GPUs, a collective's steps that
// overlap) they are one flow of the solver with weight and cap times their count, and each
// member runs at the group's rate over the count (Bertsekas & Gallager §6.5.2: a weighted
// flow is its weight's worth of unit flows). The solve sees groups; members keep their own
// bytes and completions. A member's arrival or departure re-weights its group.
//
// A ring collective's channel whose every step is one message is one flow over all its
// connections' links, capped at the ring's average load alone (Offload::ring_channel,
// flow_ring.cpp): a training job's TP and DP rings cost a flow per channel, not per step.
//
// Numbering: the solver's links (and this network's per-link arrays) are the directed links in
// an order of their own, so that a route's links lie close together in memory: a GPU's PCIe
// link, its NIC's PCIe and fabric links, both directions, side by side, rank by rank (the 6
// links a ring between servers crosses at each of its GPUs), then each GPU's NVLink bundles,
// then the fabric's other links in the topology's order, and last the bundles' other members,
// which no solve reads. A solve's walk over a route's links then reads several of them per
// cache line, where the topology's order put those 6 on three lines (the server's NVLinks
// between the GPU's PCIe link and its NIC's, the fabric's links after every server's) and the
// bundles' members between the links the solver reads. Only the order of memory moves: uses
// keep their order, and a ring channel's merged uses stay sorted by the topology's index, so
// every sum is summed in the same order.
//
// Rates change only at arrivals and completions; bytes left are brought up to date lazily,
// when a flow's rate changes, and one heap holds every flow's projected completion, moved in
// place when its rate changes (due_heap.hpp).
#pragma once

#include "core/event_queue.hpp"
#include "core/network.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology.hpp"
#include "flow/dcqcn_standing_queue.hpp"
#include "flow/due_heap.hpp"
#include "flow/flow_congestion.hpp"
#include "flow/incremental_max_min.hpp"
#include "flow/rate_backend.hpp"
#include "scenario/spec.hpp"

#include <memory>
#include <optional>
#include <vector>

namespace fabricsim::flow {

struct FlowModelSpec {
    Bytes mtu = Bytes{4096};           // the fabric's packet payload (pipeline fill, queueing)
    Bytes segment = Bytes{64 * 1024};  // the unit inside one server (as the packet model's)
    scenario::Technology technology = scenario::Technology::roce;
    int qps_per_connection = 1;                    // a message across the fabric: this many flows
    bool sharp = false;                            // InfiniBand switches aggregate (SHARP)
    std::optional<scenario::ClusterSpec> cluster;  // for tuning_model()
    // Rates are re-solved at most this often (zero: at every instant something changed).
    // In between, a new flow starts at what its path has free and a finished flow's share
    // stays unused until the next solve (docs/models/flow.md, "Solve interval").
    Time solve_interval = Time::zero();
    // simulation.flow_congestion: dcqcn: a saturated RoCE switch port holds DCQCN's standing
    // queue (dcqcn_standing_queue.hpp; needs `cluster`).
    bool dcqcn = false;
    // simulation.flow_congestion: fluid: the time-stepped fluid model of the fabric's congestion
    // control and back-pressure caps the fabric flows' rates (flow_congestion.hpp; needs `cluster`).
    bool fluid = false;
    // simulation.flow_rings: coupled: a ring channel of one loop is one flow (flow_ring.cpp);
    // false runs it as its messages.
    bool ring_channels = true;
};

class FlowNetwork final : public Network, private EventTarget {
public:
    // `topology` and `routing` must outlive the network.
    FlowNetwork(const fabric::Topology& topology, const fabric::Routing& routing, FlowModelSpec spec,
                std::unique_ptr<RateBackend> backend);

    std::string_view model_name() const override { return "flow"; }
    std::string_view backend_name() const { return backend_->name(); }
    void send(Simulator& sim, const Message& message, DeliveryListener& listener) override;
    Time unloaded_time(const Message& message) const override;
    // NVLS inside an NVLink4+ server, SHARP on aggregating InfiniBand switches (flow_offload.cpp).
    bool offers(Offload offload, std::span<const RankId> ranks) const override;
    void start_group(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) override;
    FabricCounters counters() const override { return {}; }
    std::vector<PortReport> port_reports() const override;
    void check_invariants(Time now) const override;
    std::unique_ptr<Network> tuning_model() const override;

    // Per directed link: payload bytes carried by finished flows, and the time it was busy
    // (∫ utilisation dt) up to the last rate change.
    double bytes_carried(fabric::DirectedLink link) const { return carried_[bundle_[link.index()]]; }
    double current_rate(fabric::DirectedLink link) const { return load_[bundle_[link.index()]].rate; }
    const IncrementalMaxMin& solver() const { return solver_; }
    std::uint64_t flows_started() const { return flows_started_; }
    const FlowCongestion* congestion() const { return congestion_.get(); }  // with spec.fluid

private:
    void on_event(Simulator& sim, std::uint64_t arg) override;

    static constexpr std::uint64_t kSolve = 0, kWake = 1, kStep = 2, kDeliverBase = 3;
    struct MessageState {
        MessageId id;
        DeliveryListener* listener = nullptr;
        Bytes size;
        std::uint32_t parts_left = 0;
        Time latency;       // added after its last flow finishes
        Time queued_until;  // with the congestion overlay: its parts' last bytes out of its queues
        bool in_use = false;
    };
    // One part of a message: a member of its group (a solver flow).
    struct FlowState {
        std::uint32_t message = 0;
        std::uint32_t group = 0;                       // its solver flow
        std::uint32_t prev = kNoGate, next = kNoGate;  // the group's members
        double left = 0;                               // bytes not yet sent, as of `updated`
        double bytes = 0;                              // its size
        double rate = 0;                               // bytes/s
        Time updated;
        std::uint32_t unit = 0;
        std::uint32_t gate = kNoGate;  // the source node whose ports it holds (admission)
        std::uint32_t ports = 0;       // how many: its segments, fewer than the ports
        // With the congestion overlay: its first byte is out of the queues it found at its
        // start at `wait_end`; what it was served before then, once known (< 0: not yet).
        Time started, wait_end;
        double wait_bytes = 0;
    };
    static constexpr std::uint32_t kNoGate = UINT32_MAX;
    // Per solver flow: identical flows running at once (the header).
    struct Group {
        std::uint32_t members = 0, head = kNoGate;
        std::uint32_t route = kNoGate;  // the route cache slot that names it (kNoGate: none)
        double cap = 0;                 // per member
        double rate = 0;                // Σ its members' rates, as the link loads count them
        double each = 0;                // every member's rate; 0 when they differ (a new one)
    };
    // A stripe-capped message inside a server waiting for its source's ports (admit()).
    struct Waiting {
        fabric::FlowKey key;
        std::uint32_t message, unit, ports, candidates, next;
        double bytes, cap;
    };
    struct Due {
        Time at;
        std::uint32_t flow;
    };

    std::uint32_t new_message(const Message& m, DeliveryListener& listener, std::uint32_t parts, Time latency);
    // Starts one flow of `message` over `uses` (directed link indices and shares).
    void start_flow(Simulator& sim, std::uint32_t message, double bytes, double cap, std::span<const LinkUse> uses,
                    std::uint32_t unit);
    // A message of fewer packets than the k ports it may stripe over uses only as many of
    // them (one packet each): its rate is capped at that fraction of the striped rate, the
    // packet model's "k parallel trains" (kUncapped when it fills every port).
    double stripe_cap(const fabric::FlowKey& key, double bytes, std::uint32_t unit,
                      std::span<const LinkUse> uses) const;
    void request_solve(Simulator& sim);
    void resolve(Simulator& sim);
    void finish_due(Simulator& sim);
    void schedule_wake(Simulator& sim);
    // A link's load changes by `delta` B/s at `now` (its busy time integrated up to now).
    void change_load(std::uint32_t link, double delta, Time now);
    // Per-hop latency and pipeline fill of `hops` for packets of `unit` bytes.
    Time path_latency(std::span<const std::uint32_t> hops, std::uint32_t unit) const;
    // What a message starting now waits at the saturated ports on `hops`: half a packet
    // each (the queueing estimate of the header).
    Time queueing_delay(std::span<const std::uint32_t> hops, std::uint32_t unit) const;
    // A message's route for one flow key, kept in a direct-mapped cache: a collective sends
    // between the same pairs again and again, and routing a key (spread, path) is most of
    // what a message costs otherwise.
    struct Route {
        fabric::FlowKey key;
        bool valid = false;
        std::vector<LinkUse> uses;        // on bundles (start_solver_flow's form)
        std::vector<std::uint32_t> hops;  // packet 0's path, directed link indices
        double bottleneck = 0;            // min capacity / share over its links
        std::size_t candidates = 0;       // ports it may stripe over at its source
        std::uint32_t group = kNoGate;    // its group that new flows of the same cap join
        std::uint32_t unit = 0;           // `latency` is path_latency(hops, unit)
        Time latency;
    };
    static constexpr std::size_t kRouteCache = 65536;
    Route& route(const fabric::FlowKey& key);
    Time route_latency(Route& r, std::uint32_t unit) const;
    static double stripe_cap(std::size_t candidates, double bottleneck, double bytes, std::uint32_t unit);
    // Starts one flow over `uses`; in the group of `route` (a routes_ slot) where one runs
    // with the same cap. Returns the flow's id (flows_).
    std::uint32_t start_solver_flow(Simulator& sim, std::uint32_t message, double bytes, double cap,
                                    std::span<const LinkUse> uses, std::uint32_t unit, std::uint32_t route);
    std::uint32_t slot_of(const Route& r) const { return static_cast<std::uint32_t>(&r - routes_.data()); }
    // The route slot a new flow may share a solver flow through (kNoGate: none). With the
    // congestion overlay every flow is its own solver flow: its queue pair's cap is its alone.
    std::uint32_t group_slot(const Route& r) const { return congestion_ ? kNoGate : slot_of(r); }
    // How much sooner than processor sharing round-robin ports send `f`'s last packet, on
    // average (the header's "Round robin"); zero for a flow at its cap or on no saturated link.
    Time last_turn(const FlowState& f) const;
    // Notes what `f` was served by its wait_end, once `now` has passed it (before its bytes
    // are brought up to `now`).
    static void note_wait(FlowState& f, Time now);
    // A flow out of its group (the group leaves the solver with its last member).
    void leave_group(std::uint32_t flow);
    // Starts the messages waiting at `node`, oldest first, while its capped messages leave
    // one of its ports free.
    void admit(Simulator& sim, std::uint32_t node);
    void start_waiting(Simulator& sim, const Waiting& w, std::uint32_t node);
    // `uses` on bundles' representatives (the header), merged per bundle, into `out`.
    void bundled(std::span<const LinkUse> uses, std::vector<LinkUse>& out) const;
    // The flow key of QP part j of a message from src to dst (the packet model's QP keys;
    // inside a server every part shares one key, send()).
    static fabric::FlowKey qp_key(fabric::NodeId src, fabric::NodeId dst, bool inside, std::uint32_t qps,
                                  std::uint32_t hint, std::uint32_t j);
    // A ring channel as one coupled flow (flow_ring.cpp).
    bool offers_ring(std::span<const RankId> ranks) const;
    void start_ring(Simulator& sim, const GroupOperation& op, DeliveryListener& listener);
    // The flows of a point-to-point message: uses per QP part.
    std::vector<LinkUse> uses_of(const fabric::FlowKey& key) const;
    fabric::NodeId endpoint(RankId r) const { return topology_.endpoint_node(r); }
    bool offers_nvls(std::span<const RankId> ranks) const;
    bool offers_sharp(std::span<const RankId> ranks) const;
    void start_nvls(Simulator& sim, const GroupOperation& op, DeliveryListener& listener);
    void start_sharp(Simulator& sim, const GroupOperation& op, DeliveryListener& listener);

    const fabric::Topology& topology_;
    const fabric::Routing& routing_;
    FlowModelSpec spec_;
    std::unique_ptr<RateBackend> backend_;
    // Per directed link (the topology's index): its bundle's representative (as a solver
    // link); per directed link: its index as a solver link, and back (the header's
    // "Numbering"); per representative: its members.
    std::vector<std::uint32_t> bundle_, solver_link_, topology_link_, bundle_size_;
    // Per solver link, a figure given per directed link.
    std::vector<double> in_solver_order(const std::vector<double>& by_link) const;
    // A directed link's payload rate (the topology's index).
    double capacity(std::uint32_t link) const { return solver_.capacity(solver_link_[link]); }
    std::vector<LinkUse> bundled_;                  // scratch of start_flow
    std::vector<LinkUse> ring_uses_, merged_uses_;  // scratch of start_ring
    std::vector<Route> routes_;
    // Admission inside a server (the header's "oldest first"): per node, the ports its
    // running stripe-capped messages hold and its queue of waiting ones (a list through
    // Waiting::next in waiting_, kNoGate-terminated).
    std::vector<std::uint32_t> ports_taken_, wait_head_, wait_tail_;
    std::vector<Waiting> waiting_;
    std::vector<std::uint32_t> free_waiting_;
    IncrementalMaxMin solver_;
    std::vector<MessageState> messages_;
    std::vector<std::uint32_t> free_messages_;
    std::vector<FlowState> flows_;  // message parts (members of groups)
    std::vector<std::uint32_t> free_flows_;
    std::vector<Group> groups_;  // indexed by solver flow id
    DueHeap due_;                // projected completions
    bool solve_pending_ = false;
    Time last_solve_ = Time::zero() - Time::s(1);  // long before the first solve
    EventHandle wake_;
    Time wake_at_ = Time::max();
    // Per directed link: bytes of finished flows; and side by side (resolve() reads all four
    // for every link a solve touched: one cache line, not four) its busy picoseconds, its load
    // (Σ share · rate of its flows, provisional ones included) since `since`, and the last
    // resolve() in which a group crossing it changed rate (resolves_).
    std::vector<double> carried_;
    struct LinkLoad {
        double busy_ps = 0, rate = 0;
        Time since = Time::zero();
        std::uint64_t moved = 0;
    };
    std::vector<LinkLoad> load_;
    std::vector<std::uint32_t> members_on_;  // per link: running flows (members, not groups)
    std::uint64_t resolves_ = 0;
    // Per link: the load of the flows that ended in this finish_due() (last_turn() counts them
    // as still in the round), and the links that have some.
    std::vector<double> freed_;
    std::vector<std::uint32_t> freed_links_;
    Bytes sent_, delivered_, in_flight_;
    std::uint64_t flows_started_ = 0;
    std::unique_ptr<StandingQueues> standing_;  // with spec_.dcqcn

    // The coupled congestion-control overlay (spec_.fluid): stepped every congestion_->step()
    // while it needs_step(), its caps handed to the solver.
    void step_congestion(Simulator& sim);
    void schedule_congestion(Simulator& sim);
    std::unique_ptr<FlowCongestion> congestion_;
    bool stepping_ = false;
};

// The capacity vector of a topology: payload bytes/s per directed link (index()).
std::vector<double> link_capacities(const fabric::Topology& topology);

}  // namespace fabricsim::flow
