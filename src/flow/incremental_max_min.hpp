// Max-min fair rates of a changing set of flows, re-solved locally: after flows arrive or
// leave, only the flows whose rate can move are solved again, not the whole connected part
// of the network the change touches.
//
// What makes that exact is max-min's bottleneck property (Bertsekas & Gallager, "Data
// Networks", 2nd ed., 1992, §6.5.2, stated there for paths; it holds as well for the linear
// constraints Σ a_fl·x_f <= c_l of SimGrid's lmm systems): a feasible allocation is the
// max-min fair one if and only if every flow sits at its cap or crosses a saturated link on
// which no flow has a higher level x/w (its bottleneck). Each flow remembers the link that
// was its bottleneck. A solve starts from the flows that changed and every flow reachable
// from them along remembered bottlenecks (the flows whose bottleneck is a link of a flow in
// the set, and so on: the flows that may move with them; the checks below catch the rest),
// re-fills them with
// progressive filling (flow_rules.hpp) on what the other flows leave of their links, then
// checks the property where it may have broken — the solved flows, and the other flows whose
// remembered bottleneck is a link the solve changed — and adds every flow that fails (or
// that outranks a solved flow on its bottleneck) to the solved set, until nothing fails. The
// set only grows, and once it is the whole component the property holds by construction, so
// the loop ends, and it ends at the unique max-min allocation. The set grows only as far as
// bottlenecks move ("selective update" in the manner of SimGrid's lmm solver, Casanova et
// al., JPDC 74(10), 2014, §4.1, which stops at the connected component; this stops where
// rates stop changing).
//
// Changes accumulate until solve(), so every arrival and departure at one instant costs one
// solve. A solve works on classes of links, not links: the links that carry the same flows of
// the whole network at the same shares (a DP ring's hops between a GPU and the fabric) have
// one load and highest level, and each flow of the set names each of its classes once, so the
// passes over the set run over classes. Each re-fill is handed to a RateBackend (CPU or CUDA)
// as a FlowSystem of the set's classes.
#pragma once

#include "flow/flow_system.hpp"
#include "flow/rate_backend.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace fabricsim::flow {

struct LinkUse {
    std::uint32_t link;
    double share;  // part of the flow's bytes on this link, in (0, 1]
};

class IncrementalMaxMin {
public:
    static constexpr std::uint32_t kNone = UINT32_MAX;

    IncrementalMaxMin(std::vector<double> capacity, RateBackend& backend);

    // A new flow; its rate is 0 until the next solve(). Returns its id (ids of departed
    // flows are reused).
    std::uint32_t add(double weight, double cap, std::span<const LinkUse> uses);
    void remove(std::uint32_t flow);
    // A flow's weight and cap change (a group of identical flows gains or loses a member,
    // flow_network.hpp); its rate is re-solved with the next solve().
    void reweight(std::uint32_t flow, double weight, double cap);
    // A new cap for a live flow (kUncapped: none); its rate moves at the next solve().
    void set_cap(std::uint32_t flow, double cap);
    bool pending() const { return !dirty_links_.empty() || !dirty_flows_.empty(); }
    // Re-solves what the changes since the last solve moved; returns the flows whose rate
    // was recomputed (valid until the next call). Every other flow keeps its rate, which is
    // still its max-min fair one.
    const std::vector<std::uint32_t>& solve();
    // The whole connected component of every change, as a fresh solve would (for tests and
    // benchmarks against solve()).
    const std::vector<std::uint32_t>& solve_components();

    double rate(std::uint32_t flow) const { return flows_[flow].rate; }
    double weight(std::uint32_t flow) const { return flows_[flow].weight; }
    std::span<const LinkUse> uses(std::uint32_t flow) const { return flows_[flow].uses; }
    bool active(std::uint32_t flow) const { return flow < flows_.size() && flows_[flow].active; }
    std::size_t links() const { return capacity_.size(); }
    double capacity(std::uint32_t link) const { return capacity_[link]; }
    // Σ share·rate of the flows on a link, as of the last solve.
    double link_rate(std::uint32_t link) const { return link_rate_[link]; }
    std::size_t flows_on(std::uint32_t link) const { return on_link_[link].size(); }
    // Links whose link_rate may have changed in the last solve (valid until the next call).
    const std::vector<std::uint32_t>& touched_links() const { return touched_links_; }
    // The first changed_flows() flows solve() returned are the ones changed since the solve
    // before (added, re-weighted, re-capped); every other one it returned kept its weight,
    // cap and links. Per touched link (same index): whether one of those others crossing it
    // ended the solve at another rate than it began with.
    std::size_t changed_flows() const { return changed_flows_; }
    const std::vector<char>& touched_moved() const { return touched_moved_; }
    std::size_t active_flows() const { return active_; }
    // Most flows one solve recomputed so far, for reports and tests.
    std::size_t largest_component() const { return largest_; }
    std::uint64_t solves() const { return solves_; }
    // Flows recomputed over all solves, and the re-fills the checks asked for.
    std::uint64_t flows_solved() const { return flows_solved_; }
    std::uint64_t refills() const { return refills_; }
    // Uses the re-fills left out as more links of a class (a flow names each class once), over
    // all re-fills.
    std::uint64_t uses_dropped() const { return uses_dropped_; }
    // Flows the re-fills' systems left out as more weight of an earlier flow of the set on the
    // same route at the same cap level (build_system), over all re-fills.
    std::uint64_t flows_merged() const { return flows_merged_; }

private:
    static constexpr std::uint32_t kAtCap = UINT32_MAX - 1;
    struct Flow {
        double weight = 1, cap = kUncapped, rate = 0;
        std::vector<LinkUse> uses;
        std::vector<std::uint32_t> slot;   // its position in on_link_[uses[i].link]
        std::uint32_t bottleneck = kNone;  // a link, kAtCap, or kNone (not known)
        std::uint32_t held_slot = 0;       // its position in held_[bottleneck]
        bool active = false;
        bool distinct = true;                  // no link twice among its uses
        std::uint64_t route = 0, route_b = 0;  // two hashes of its uses, in order
    };
    struct LinkState {
        double load, top;  // Σ share·rate and the highest level (rate/weight) of its flows
    };
    void mark_link(std::uint32_t link);
    bool in_set(std::uint32_t flow) const { return flow_seen_[flow] == epoch_; }
    void take(std::uint32_t flow);  // into the solved set
    // Per link, 8 bytes, so that a walk over a route's links (take_uses(): 118 links a route, 85 %
    // of them already in the set, at the 175B job's 2,048-GPU cut) reads 8 links a line.
    struct LinkMark {
        std::uint32_t cls;  // its class in the solve + 1; 0: not in the set (begin() empties it)
        // How many flows it holds (held_[link].size()): the passes over the set's links look
        // here, on a line the solve has just read, before the list, most often empty.
        std::uint32_t held;
    };
    // Its links into the set, and its uses into set_uses_, one per class of its links.
    void take_uses(std::uint32_t flow);
    void add_set_link(std::uint32_t link);
    // How many links ahead the walks over links far apart in the network's arrays (take_uses(),
    // begin()'s changed links, remove()) ask for what the link will miss on.
    static constexpr std::size_t kAhead = 8;
    // The class of a link joining the set: the one of an earlier link of the set with the same
    // flows at the same shares (link_flows_), or a new one.
    std::uint32_t find_class(std::uint32_t link);
    std::uint32_t new_class(std::uint32_t link);
    // An earlier flow of the set (its index in solved_) with the same uses as `flow`, about to
    // be taken; or kNone, and `flow` is remembered for those after it.
    std::uint32_t same_route(std::uint32_t flow);
    std::uint32_t find_route(const Flow& flow, std::uint32_t k);
    void grow_class_table();
    // Per link of the set, whether a flow not changed since the last solve that crosses it
    // ended at another rate than it began with (touched_moved_), from class_moved_.
    void spread_moved();
    // inside_ and count_ summed afresh over the set.
    void sum_set();
    // The filling's rates (rates_) to the set's flows and their links' loads and levels.
    void set_rates();
    // Re-fills the solved set on what the flows outside it leave of its links.
    void refill();
    // The re-fill's system: a link per class the set crosses, a flow per route and cap level.
    void build_system();
    // A link's load and highest level; the level is found again only where a flow that may
    // have held it slowed down or left.
    LinkState state(std::uint32_t link);
    // A flow's new rate, into its links' loads and highest levels.
    void set_rate(std::uint32_t flow, double rate);
    // Whether `flow` has a bottleneck (or sits at its cap) now; remembers it.
    bool has_bottleneck(std::uint32_t flow);
    void set_bottleneck(std::uint32_t flow, std::uint32_t link);
    // Checks the bottleneck property where the last re-fill may have broken it and takes
    // the flows that break it into the set: settled (nothing broke), grown, or stuck (a
    // check failed but no flow to blame was found: rounding).
    enum class Growth { settled, grown, stuck };
    Growth grow();
    void begin();
    // Whether every flow of the set is the only flow on each of its links; then the filling
    // of the set alone is exact and moves no other flow, and fill_isolated() does it.
    bool isolated() const;
    void fill_isolated();
    void gather_components();
    void finish();

    // Per link: Σ share·rate of its flows, kept up to date by every rate change (summed afresh
    // whenever its highest level is), and that highest level (valid unless top_valid_ is 0).
    std::vector<double> capacity_, link_rate_, top_;
    std::vector<char> top_valid_;
    RateBackend& backend_;
    std::vector<Flow> flows_;
    // Every flow's rate and weight again, side by side: the passes over a link's flows
    // (state(), grow()) read these and not the whole Flow.
    struct FlowLevel {
        double rate = 0, weight = 1;
    };
    std::vector<FlowLevel> levels_;
    std::vector<std::uint32_t> free_;
    struct OnLink {
        std::uint32_t flow, use;  // the flow and the index of this link in its uses
        double share;
    };
    std::vector<std::vector<OnLink>> on_link_;  // active flows per link, with their share of it
    // Per link, what its flows are, kept by add() and remove(): two sums of a hash of each
    // (flow, share) on it, their count, and how many of them name some link twice. Links with
    // the same three are one class of a solve (find_class()).
    struct LinkFlows {
        std::uint64_t a = 0, b = 0;
        std::uint32_t count = 0, repeated = 0;
    };
    std::vector<LinkFlows> link_flows_;
    // Per link, the flows whose remembered bottleneck it is; and the flows whose bottleneck
    // is not known (a failed check), which every grow() looks at again.
    std::vector<std::vector<std::uint32_t>> held_;
    std::vector<std::uint32_t> unknown_, held_scratch_;
    std::vector<std::uint32_t> dirty_links_, dirty_flows_;
    std::vector<LinkMark> link_mark_;
    std::vector<std::uint64_t> link_queued_;  // per link: the epoch of the solve it is queued for
    std::vector<std::uint64_t> flow_seen_;    // epoch of the last visit
    std::uint64_t epoch_ = 0;
    std::vector<std::uint32_t> use_mark_;  // add(): the last flow that named each link
    std::uint32_t adds_ = 0;
    FlowSystem system_;
    // The classes of a solve: the set's links that carry the same flows of the whole network
    // at the same shares. Their loads, highest levels and the constraints they put on the set
    // are one, so a flow's uses in the set name each of its classes once, and the passes over
    // the set's uses run over classes. Per link of the set (index as in set_links_): its class;
    // per class: its first link, its links in the set and take_uses()' mark; and the table that
    // finds a class by its links' flows (class + 1, 0: empty: 4 bytes a slot, where a slot
    // with an epoch took 16, 512 KiB for the 32 k slots of a large solve of the 175B job's
    // 2,048-GPU cut), with the slots it filled, emptied by the next solve.
    std::vector<std::uint32_t> class_of_, class_rep_, class_size_, class_mark_;
    std::vector<std::uint32_t> class_table_, used_slots_;
    struct RouteSlot {  // same_route()'s table: the first flow of the set with a route
        std::uint64_t epoch = 0, route = 0, route_b = 0;
        std::uint32_t k = 0;
    };
    std::vector<RouteSlot> route_table_;
    std::size_t routes_ = 0;
    std::vector<char> class_moved_;
    // Per class: whether state() has summed one of its links since set_rates() (set_rate_ and
    // set_top_ then hold what it found, for its other links).
    std::vector<char> class_summed_;
    // Per class during a re-fill: the set's load on it, a count of the set's uses of it, what
    // the others leave of it (the least over its links) and its index in system_ (kDropped:
    // none, no flow of the set crosses it).
    static constexpr std::uint32_t kDropped = UINT32_MAX;
    std::vector<double> rates_, inside_, residual_;
    // Per flow of the set: the first flow of the set on its route (its index in solved_), and
    // its flow in system_; per flow of system_: its rate, how many flows of the set it is,
    // their cap level and the next system flow on their route (kNone: none).
    std::vector<std::uint32_t> route_head_, system_flow_, members_, next_on_route_;
    std::vector<double> system_rates_, system_level_;
    std::vector<std::uint32_t> count_, system_link_;
    // The set's uses, one per class of a flow's links, written for each route's first flow of
    // the set in solved_'s order; flow k's are [set_range_[k].first, set_range_[k].last) (its
    // route's first flow's).
    struct SetUse {
        std::uint32_t local;  // the class
        double share;
    };
    std::vector<SetUse> set_uses_;
    struct SetRange {
        std::uint32_t first, last;
    };
    std::vector<SetRange> set_range_;
    std::vector<double> start_rate_;  // per flow of the set: its rate when the solve began
    std::size_t changed_flows_ = 0;
    // Whether inside_ and count_ hold the set at its rates (none moved yet in this solve), and
    // whether touched_moved_ is current (set_rates() ran).
    bool sums_valid_ = true, moved_valid_ = false;
    std::vector<char> touched_moved_;
    // set_rates()' copies of the classes' figures.
    std::vector<double> set_rate_, set_top_;
    std::vector<char> set_top_valid_;
    std::vector<std::uint32_t> solved_, set_links_, touched_links_, grown_;
    // The first links of set_links_ whose held_ lists the next grow() need not look at.
    std::size_t held_checked_ = 0;
    std::size_t active_ = 0, largest_ = 0;
    std::uint64_t solves_ = 0, flows_solved_ = 0, refills_ = 0, uses_dropped_ = 0, flows_merged_ = 0;
};

}  // namespace fabricsim::flow
