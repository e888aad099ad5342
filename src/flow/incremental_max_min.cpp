#include "flow/incremental_max_min.hpp"

#include "core/errors.hpp"
#include "flow/flow_rules.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

namespace fabricsim::flow {

namespace {
// Slack of the bottleneck checks: looser than the filling's own tie tolerance
// (kLevelTolerance, 1e-9), so that a fill's rounding never reads as a broken bottleneck,
// and tight enough that an accepted allocation is the fresh solve's to 1e-7 relative.
constexpr double kCheckTolerance = 1e-7;
// Re-fills before giving up on growing the set and solving the whole component: the set
// grows by every flow that failed a check, so a change that reaches far gets there in a few
// rounds; past this many, the component is cheaper.
constexpr int kMaxRefills = 8;
// The hashes below mix with splitmix64's finaliser (Steele et al., "Fast splittable
// pseudorandom number generators", OOPSLA 2014).
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
// A use's hash: of the flow that makes it (summed per link into LinkFlows) or of its link
// (chained per flow into its route), and of its share. Two of them apart: the second, a
// xorshift-multiply of the first, is not linear in it, so links whose two sums and counts
// agree (or routes whose two chains do) are the same unless 128 bits collide.
std::uint64_t share_hash(double share) { return mix(std::bit_cast<std::uint64_t>(share)); }
std::uint64_t use_hash(std::uint32_t who, std::uint64_t share) {
    return mix((static_cast<std::uint64_t>(who) << 32) ^ share);
}
std::uint64_t second_hash(std::uint64_t h) { return (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ULL; }
}  // namespace

IncrementalMaxMin::IncrementalMaxMin(std::vector<double> capacity, RateBackend& backend)
    : capacity_(std::move(capacity)),
      link_rate_(capacity_.size(), 0.0),
      top_(capacity_.size(), 0.0),
      top_valid_(capacity_.size(), 1),
      backend_(backend),
      on_link_(capacity_.size()),
      link_flows_(capacity_.size()),
      held_(capacity_.size()),
      link_mark_(capacity_.size(), LinkMark{0, 0}),
      link_queued_(capacity_.size(), 0),
      use_mark_(capacity_.size(), 0) {}

void IncrementalMaxMin::mark_link(std::uint32_t link) {
    if (link_queued_[link] == epoch_ + 1) return;  // already queued for the next solve
    link_queued_[link] = epoch_ + 1;
    dirty_links_.push_back(link);
}

std::uint32_t IncrementalMaxMin::add(double weight, double cap, std::span<const LinkUse> uses) {
    if (!(weight > 0) || !(cap > 0))
        throw InternalError(fmt::format("flow solver: a flow with weight {} and cap {}", weight, cap));
    std::uint32_t id;
    if (!free_.empty()) {
        id = free_.back();
        free_.pop_back();
    } else {
        id = static_cast<std::uint32_t>(flows_.size());
        flows_.emplace_back();
        levels_.emplace_back();
        flow_seen_.push_back(0);
    }
    Flow& f = flows_[id];
    f.weight = weight;
    f.cap = cap;
    f.rate = 0;
    levels_[id] = {0.0, weight};
    f.bottleneck = kNone;
    f.active = true;
    f.uses.assign(uses.begin(), uses.end());
    f.slot.resize(uses.size());
    f.distinct = true;
    f.route = 0;
    f.route_b = 0;
    if (++adds_ == 0) {  // the marks wrapped: clear them
        std::fill(use_mark_.begin(), use_mark_.end(), 0);
        adds_ = 1;
    }
    for (std::size_t i = 0; i < uses.size(); ++i) {
        const std::uint32_t l = uses[i].link;
        if (l >= capacity_.size() || !(uses[i].share > 0))
            throw InternalError(
                fmt::format("flow solver: a use of link {} of {} with share {}", l, capacity_.size(), uses[i].share));
        if (use_mark_[l] == adds_) f.distinct = false;
        use_mark_[l] = adds_;
        f.slot[i] = static_cast<std::uint32_t>(on_link_[l].size());
        on_link_[l].push_back({id, static_cast<std::uint32_t>(i), uses[i].share});
        const std::uint64_t sh = share_hash(uses[i].share), hl = use_hash(l, sh), h = use_hash(id, sh);
        f.route = f.route * 0x9e3779b97f4a7c15ULL + hl;
        f.route_b = (f.route_b + second_hash(hl)) * 0x94d049bb133111ebULL;
        LinkFlows& lf = link_flows_[l];
        lf.a += h;
        lf.b += second_hash(h);
        ++lf.count;
        mark_link(l);
    }
    if (!f.distinct)
        for (const LinkUse& u : f.uses) ++link_flows_[u.link].repeated;
    dirty_flows_.push_back(id);
    ++active_;
    return id;
}

void IncrementalMaxMin::remove(std::uint32_t id) {
    Flow& f = flows_[id];
    if (!f.active) throw InternalError(fmt::format("flow solver: flow {} removed twice", id));
    set_bottleneck(id, kAtCap);  // out of its link's list
    for (std::size_t i = 0; i < f.uses.size(); ++i) {
        // The loads that miss (a link's list of flows, far apart, then its last entry, and the
        // link's flows' sums), asked for some links ahead: the list's header first, its last
        // entry when the header has come.
        if (i + kAhead < f.uses.size()) {
            const std::uint32_t ahead = f.uses[i + kAhead].link;
            __builtin_prefetch(&on_link_[ahead]);
            __builtin_prefetch(&link_flows_[ahead]);
        }
        if (i + kAhead / 2 < f.uses.size()) {
            const auto& ahead = on_link_[f.uses[i + kAhead / 2].link];
            if (!ahead.empty()) __builtin_prefetch(&ahead.back());
        }
        const std::uint32_t l = f.uses[i].link;
        auto& list = on_link_[l];
        const std::uint32_t at = f.slot[i];
        // The last entry moves into the hole; its flow learns its new slot.
        list[at] = list.back();
        list.pop_back();
        if (at < list.size()) flows_[list[at].flow].slot[list[at].use] = at;
        LinkFlows& lf = link_flows_[l];
        const std::uint64_t h = use_hash(id, share_hash(f.uses[i].share));
        lf.a -= h;
        lf.b -= second_hash(h);
        --lf.count;
        lf.repeated -= f.distinct ? 0 : 1;
        if (list.empty()) {
            link_rate_[l] = 0;  // exact again: no drift survives an empty link
            top_[l] = 0;
            top_valid_[l] = 1;
        } else {
            link_rate_[l] -= f.uses[i].share * f.rate;
            if (f.rate / f.weight >= top_[l]) top_valid_[l] = 0;
        }
        mark_link(l);
    }
    f.active = false;
    f.rate = 0;
    levels_[id].rate = 0;
    free_.push_back(id);
    --active_;
}

void IncrementalMaxMin::reweight(std::uint32_t id, double weight, double cap) {
    if (!active(id) || !(weight > 0) || !(cap > 0))
        throw InternalError(fmt::format("flow solver: flow {} re-weighted to {} with cap {}", id, weight, cap));
    Flow& f = flows_[id];
    // Its level (rate per unit weight) moves with the weight: a higher one is its links' new
    // highest; a lower one may have been the highest.
    const double before = f.rate / f.weight, after = f.rate / weight;
    for (const LinkUse& u : f.uses) {
        if (after > top_[u.link])
            top_[u.link] = after;
        else if (after < before && before >= top_[u.link])
            top_valid_[u.link] = 0;
        mark_link(u.link);
    }
    f.weight = weight;
    levels_[id].weight = weight;
    f.cap = cap;
    dirty_flows_.push_back(id);
}

void IncrementalMaxMin::set_cap(std::uint32_t id, double cap) {
    Flow& f = flows_[id];
    if (!f.active || !(cap > 0)) throw InternalError(fmt::format("flow solver: cap {} for flow {}", cap, id));
    if (cap == f.cap) return;
    f.cap = cap;
    // Re-filled like a new flow: its links' other flows may take what it gives up.
    for (const LinkUse& u : f.uses) mark_link(u.link);
    dirty_flows_.push_back(id);
}

void IncrementalMaxMin::take(std::uint32_t id) {
    flow_seen_[id] = epoch_;
    solved_.push_back(id);
    take_uses(id);
}

void IncrementalMaxMin::take_uses(std::uint32_t id) {
    // Its links into the set, and its uses as (class, share) after those of the flows taken
    // before it, once per class: every link of a class carries it at the same share (with no
    // flow there naming a link twice; a flow that does is alone in its classes and keeps every
    // use). The re-fill's passes read them in a row and touch only arrays of the set's
    // classes, where flows_[f].uses and the per-link arrays of the whole network would cost a
    // cache miss a use. Until the set's first re-fill moves rates, the same pass sums what
    // the set puts on each class, and how many of its uses name it (refill()).
    // A flow with the same uses as one taken before it (another of a ring's channels or
    // buckets on the same links: of the 600 flows a large solve of the 175B job's 2,048-GPU
    // cut takes, 151 routes) has that flow's classes: it names that flow's range of set_uses_,
    // neither found again nor copied.
    const Flow& fl = flows_[id];
    const auto k = static_cast<std::uint32_t>(set_range_.size()), stamp = k + 1;
    const std::uint32_t same = same_route(id);
    route_head_.push_back(same != kNone ? same : k);
    SetRange range{static_cast<std::uint32_t>(set_uses_.size()), 0};
    if (same != kNone) {
        range = set_range_[same];
    } else {
        // A link new to the set costs find_class() a miss on its flows' sums (link_flows_: one
        // of 24 bytes a link, far apart): asked for 8 links ahead, where the link's mark says it
        // is new; the mark itself (most of the walk's misses in the whole 175B job) 16 ahead.
        // Raw pointers and the flag in locals: the stores below would otherwise reload them at
        // every link.
        const LinkUse* uses = fl.uses.data();
        const std::size_t n = fl.uses.size();
        const bool distinct = fl.distinct;
        const LinkMark* marks = link_mark_.data();
        const LinkFlows* sums = link_flows_.data();
        const auto walk = [&](const LinkUse& u) {
            if (marks[u.link].cls == 0) add_set_link(u.link);
            const std::uint32_t cls = marks[u.link].cls - 1;
            if (distinct) {
                if (class_mark_[cls] == stamp) return;
                class_mark_[cls] = stamp;
            }
            set_uses_.push_back({cls, u.share});
        };
        std::size_t i = 0;
        for (; i + 2 * kAhead < n; ++i) {
            __builtin_prefetch(marks + uses[i + 2 * kAhead].link);
            const std::uint32_t ahead = uses[i + kAhead].link;
            if (marks[ahead].cls == 0) __builtin_prefetch(sums + ahead);
            walk(uses[i]);
        }
        for (; i < n; ++i) {
            if (i + kAhead < n && marks[uses[i + kAhead].link].cls == 0)
                __builtin_prefetch(sums + uses[i + kAhead].link);
            walk(uses[i]);
        }
        range.last = static_cast<std::uint32_t>(set_uses_.size());
    }
    if (sums_valid_) {
        const SetUse* out = set_uses_.data() + range.last;
        const double rate = fl.rate;
        double* inside = inside_.data();
        std::uint32_t* count = count_.data();
        for (const SetUse* u = set_uses_.data() + range.first; u != out; ++u) {
            inside[u->local] += u->share * rate;
            ++count[u->local];
        }
    }
    set_range_.push_back(range);
    start_rate_.push_back(fl.rate);
}

std::uint32_t IncrementalMaxMin::same_route(std::uint32_t id) {
    // The table holds the first flow of the set of each route; `id` is about to be the set's
    // flow set_range_.size(), and goes in where its route is new. Routes are told apart
    // by two 64-bit hashes, as links are by their flows (add()): comparing the uses one by one
    // cost as many instructions as the uses it saves finding (docs/BENCHMARKS.md).
    const auto k = static_cast<std::uint32_t>(set_range_.size());
    if (2 * (routes_ + 1) > route_table_.size()) {
        route_table_.assign(std::max<std::size_t>(1024, 2 * route_table_.size()), RouteSlot{});
        routes_ = 0;
        for (std::uint32_t j = 0; j < k; ++j) find_route(flows_[solved_[j]], j);
    }
    return find_route(flows_[id], k);
}

std::uint32_t IncrementalMaxMin::find_route(const Flow& flow, std::uint32_t k) {
    const std::size_t mask = route_table_.size() - 1;
    for (std::size_t h = flow.route & mask;; h = (h + 1) & mask) {
        RouteSlot& slot = route_table_[h];
        if (slot.epoch != epoch_) {
            slot = {epoch_, flow.route, flow.route_b, k};
            ++routes_;
            return kNone;
        }
        if (slot.route == flow.route && slot.route_b == flow.route_b) return slot.k;
    }
}

void IncrementalMaxMin::add_set_link(std::uint32_t link) {
    set_links_.push_back(link);
    const std::uint32_t cls = find_class(link);
    link_mark_[link].cls = cls + 1;
    class_of_.push_back(cls);
    ++class_size_[cls];
}

std::uint32_t IncrementalMaxMin::new_class(std::uint32_t link) {
    const auto c = static_cast<std::uint32_t>(class_rep_.size());
    class_rep_.push_back(link);
    class_size_.push_back(0);
    class_mark_.push_back(0);
    class_summed_.push_back(0);
    set_rate_.push_back(0.0);
    set_top_.push_back(0.0);
    inside_.push_back(0.0);
    count_.push_back(0);
    return c;
}

std::uint32_t IncrementalMaxMin::find_class(std::uint32_t link) {
    const LinkFlows& lf = link_flows_[link];
    if (lf.repeated > 0) return new_class(link);
    if (2 * (class_rep_.size() + 1) > class_table_.size()) grow_class_table();
    const std::size_t mask = class_table_.size() - 1;
    for (std::size_t h = (lf.a ^ lf.count) & mask;; h = (h + 1) & mask) {
        const std::uint32_t slot = class_table_[h];
        if (slot == 0) {
            const std::uint32_t c = new_class(link);
            class_table_[h] = c + 1;
            used_slots_.push_back(static_cast<std::uint32_t>(h));
            return c;
        }
        const LinkFlows& k = link_flows_[class_rep_[slot - 1]];
        if (k.a == lf.a && k.b == lf.b && k.count == lf.count) return slot - 1;
    }
}

void IncrementalMaxMin::grow_class_table() {
    // Twice the size, the solve's classes so far in again (a class of a link with a flow that
    // names a link twice was never in).
    class_table_.assign(std::max<std::size_t>(1024, 2 * class_table_.size()), 0);
    used_slots_.clear();
    const std::size_t mask = class_table_.size() - 1;
    for (std::uint32_t c = 0; c < class_rep_.size(); ++c) {
        const LinkFlows& lf = link_flows_[class_rep_[c]];
        if (lf.repeated > 0) continue;
        std::size_t h = (lf.a ^ lf.count) & mask;
        while (class_table_[h] != 0) h = (h + 1) & mask;
        class_table_[h] = c + 1;
        used_slots_.push_back(static_cast<std::uint32_t>(h));
    }
}

void IncrementalMaxMin::refill() {
    const std::size_t n = class_rep_.size();
    // Per class of the set: what the set puts on it (the flows outside leave its load less
    // that), and how many of the set's uses name it. take_uses() has
    // summed them unless an earlier re-fill of this solve has moved rates since. What the
    // others leave of a class is the least they leave of its links (the tightest of links in
    // series; their loads differ by rounding only).
    if (!sums_valid_) sum_set();
    residual_.assign(n, std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < set_links_.size(); ++i) {
        const std::uint32_t l = set_links_[i], c = class_of_[i];
        residual_[c] = std::min(residual_[c], std::max(0.0, capacity_[l] - std::max(0.0, link_rate_[l] - inside_[c])));
    }
    build_system();
    // The uses left out: every link of a class but one.
    for (std::size_t c = 0; c < n; ++c) uses_dropped_ += std::uint64_t{count_[c]} * (class_size_[c] - 1);
    if (!solved_.empty()) {
        backend_.solve(system_, system_rates_);
        // Each flow of a system flow at the system flow's level (rate over weight): its own
        // rate then, as the filling's freeze gives it (flow_rules.hpp).
        rates_.resize(solved_.size());
        for (std::size_t k = 0; k < solved_.size(); ++k) {
            const std::uint32_t sf = system_flow_[k];
            const Flow& fl = flows_[solved_[k]];
            rates_[k] = members_[sf] == 1 ? system_rates_[sf]
                                          : frozen_rate(fl.weight, system_rates_[sf] / system_.weight[sf], fl.cap);
        }
        flows_merged_ += solved_.size() - system_.flows();
    }
    set_rates();
    ++refills_;
}

void IncrementalMaxMin::sum_set() {
    const std::size_t n = class_rep_.size();
    inside_.assign(n, 0.0);
    count_.assign(n, 0);
    for (std::size_t k = 0; k < solved_.size(); ++k) {
        const double rate = flows_[solved_[k]].rate;
        for (std::uint32_t j = set_range_[k].first; j < set_range_[k].last; ++j) {
            const SetUse& u = set_uses_[j];
            inside_[u.local] += u.share * rate;
            ++count_[u.local];
        }
    }
}

void IncrementalMaxMin::set_rates() {
    // set_rate() for every flow of the set in solved_'s order, on copies of its classes' load
    // and highest level (those of each class's first link), given back to every link of the
    // class: links in series end with one load, where each link's own running sum would
    // differ from the others' by rounding.
    const std::size_t n = class_rep_.size();
    set_top_valid_.resize(n);
    std::fill(class_summed_.begin(), class_summed_.end(), 0);
    for (std::size_t c = 0; c < n; ++c) {
        const std::uint32_t l = class_rep_[c];
        set_rate_[c] = link_rate_[l];
        set_top_[c] = top_[l];
        set_top_valid_[c] = top_valid_[l];
    }
    // And touched_moved() as of now (finish()): the classes of the flows not changed since the
    // last solve whose rate is now another than the one they began it with.
    class_moved_.assign(n, 0);
    // Raw pointers: the flags are chars, through which the compiler would otherwise reload
    // every vector's data pointer at each use.
    double *load = set_rate_.data(), *top = set_top_.data();
    char *top_valid = set_top_valid_.data(), *moved_on = class_moved_.data();
    const SetUse* uses = set_uses_.data();
    for (std::size_t k = 0; k < solved_.size(); ++k) {
        Flow& f = flows_[solved_[k]];
        const double rate = rates_[k], old = f.rate, level = rate / f.weight;
        const SetUse *first = uses + set_range_[k].first, *last = uses + set_range_[k].last;
        const bool moved = k >= changed_flows_ && rate != start_rate_[k];
        if (rate == old) {
            if (moved)
                for (const SetUse* u = first; u != last; ++u) moved_on[u->local] = 1;
            continue;
        }
        const double delta = rate - old, old_level = old / f.weight;
        // One pass over the flow's classes for its increments and, for a flow that moved, the
        // marks (most of a large solve's flows both move and change).
        const auto increments = [&](auto mark) {
            for (const SetUse* u = first; u != last; ++u) {
                if constexpr (decltype(mark)::value) moved_on[u->local] = 1;
                load[u->local] += u->share * delta;
                if (level > top[u->local])
                    top[u->local] = level;
                else if (rate < old && old_level >= top[u->local])
                    top_valid[u->local] = 0;
            }
        };
        if (moved)
            increments(std::true_type{});
        else
            increments(std::false_type{});
        f.rate = rate;
        levels_[solved_[k]].rate = rate;
    }
    sums_valid_ = false;
    moved_valid_ = true;
    for (std::size_t i = 0; i < set_links_.size(); ++i) {
        const std::uint32_t l = set_links_[i], c = class_of_[i];
        link_rate_[l] = set_rate_[c];
        top_[l] = set_top_[c];
        top_valid_[l] = set_top_valid_[c];
    }
    spread_moved();
}

void IncrementalMaxMin::spread_moved() {
    touched_moved_.resize(set_links_.size());
    for (std::size_t i = 0; i < set_links_.size(); ++i) touched_moved_[i] = class_moved_[class_of_[i]];
}

void IncrementalMaxMin::build_system() {
    system_.clear();
    const std::size_t n = class_rep_.size();
    system_link_.resize(n);
    for (std::size_t i = 0; i < n; ++i) system_link_[i] = count_[i] > 0 ? system_.add_link(residual_[i]) : kDropped;
    system_flow_.resize(solved_.size());
    members_.clear();
    system_level_.clear();
    next_on_route_.clear();
    for (std::size_t k = 0; k < solved_.size(); ++k) {
        const Flow& fl = flows_[solved_[k]];
        const SetUse *first = set_uses_.data() + set_range_[k].first, *last = set_uses_.data() + set_range_[k].last;
        // A flow on the route of an earlier flow of the set with the same cap level (or both
        // without a cap) has the same constraints and the same level in the allocation: it
        // joins that flow's system flow as more weight and cap (a flow of weight k is k unit
        // flows, Bertsekas & Gallager §6.5.2), and its uses, copies of that flow's, are not
        // built again.
        const double level = cap_level(fl.cap, fl.weight);
        std::uint32_t last_on_route = kNone;
        if (const std::uint32_t head = route_head_[k]; head != k) {
            // The route's system flows, one per cap level, chained from the first flow's.
            std::uint32_t sf = system_flow_[head];
            while (sf != kNone && system_level_[sf] != level) {
                last_on_route = sf;
                sf = next_on_route_[sf];
            }
            if (sf != kNone) {
                system_.weight[sf] += fl.weight;
                system_.cap[sf] += fl.cap;
                ++members_[sf];
                system_flow_[k] = sf;
                continue;
            }
        }
        system_flow_[k] = static_cast<std::uint32_t>(system_.flows());
        if (last_on_route != kNone) next_on_route_[last_on_route] = system_flow_[k];
        members_.push_back(1);
        system_level_.push_back(level);
        next_on_route_.push_back(kNone);
        system_.begin_flow(fl.weight, fl.cap);
        for (const SetUse* u = first; u != last; ++u) system_.add_use(system_link_[u->local], u->share);
        system_.end_flow();
    }
}

void IncrementalMaxMin::set_rate(std::uint32_t id, double rate) {
    Flow& f = flows_[id];
    const double old = f.rate, level = rate / f.weight;
    if (rate == old) return;
    for (const LinkUse& u : f.uses) {
        link_rate_[u.link] += u.share * (rate - old);
        if (level > top_[u.link])
            top_[u.link] = level;
        else if (rate < old && old / f.weight >= top_[u.link])
            top_valid_[u.link] = 0;  // it may have been the highest: find the highest again
    }
    f.rate = rate;
    levels_[id].rate = rate;
}

IncrementalMaxMin::LinkState IncrementalMaxMin::state(std::uint32_t link) {
    if (!top_valid_[link]) {
        // One pass over the link's flows: its highest level, and its load summed afresh
        // (dropping what the increments have rounded); once per class of the set since its
        // last new rates, its other links taking the same figures.
        const std::uint32_t mark = link_mark_[link].cls;
        const bool in_set = mark != 0;
        if (in_set && class_summed_[mark - 1]) {
            link_rate_[link] = set_rate_[mark - 1];
            top_[link] = set_top_[mark - 1];
        } else {
            double load = 0, top = 0;
            for (const OnLink& e : on_link_[link]) {
                const FlowLevel& fg = levels_[e.flow];
                load += e.share * fg.rate;
                top = std::max(top, fg.rate / fg.weight);
            }
            link_rate_[link] = load;
            top_[link] = top;
            if (in_set) {
                set_rate_[mark - 1] = load;
                set_top_[mark - 1] = top;
                class_summed_[mark - 1] = 1;
            }
        }
        top_valid_[link] = 1;
    }
    return {link_rate_[link], top_[link]};
}

void IncrementalMaxMin::set_bottleneck(std::uint32_t id, std::uint32_t link) {
    Flow& f = flows_[id];
    if (f.bottleneck == link) return;
    if (f.bottleneck < kAtCap) {
        auto& list = held_[f.bottleneck];
        --link_mark_[f.bottleneck].held;
        list[f.held_slot] = list.back();
        list.pop_back();
        if (f.held_slot < list.size()) flows_[list[f.held_slot]].held_slot = f.held_slot;
    }
    f.bottleneck = link;
    if (link < kAtCap) {
        f.held_slot = static_cast<std::uint32_t>(held_[link].size());
        held_[link].push_back(id);
        ++link_mark_[link].held;
    } else if (link == kNone) {
        unknown_.push_back(id);
    }
}

bool IncrementalMaxMin::has_bottleneck(std::uint32_t id) {
    Flow& f = flows_[id];
    if (f.rate >= f.cap * (1 - kCheckTolerance)) {
        set_bottleneck(id, kAtCap);
        return true;
    }
    const double level = f.rate / f.weight;
    const auto holds = [&](std::uint32_t l) {
        const LinkState s = state(l);
        return s.load >= capacity_[l] * (1 - kCheckTolerance) && level >= s.top * (1 - kCheckTolerance);
    };
    if (f.bottleneck < kAtCap && holds(f.bottleneck)) return true;
    for (const LinkUse& u : f.uses)
        if (u.link != f.bottleneck && holds(u.link)) {
            set_bottleneck(id, u.link);
            return true;
        }
    set_bottleneck(id, kNone);
    return false;
}

IncrementalMaxMin::Growth IncrementalMaxMin::grow() {
    bool failed = false;
    const std::size_t solved = solved_.size(), links = set_links_.size();
    // A solved flow is bottlenecked within the set; it fails where a flow outside the set
    // has a higher level on its saturated links: those flows take more than their share.
    for (std::size_t i = 0; i < solved; ++i) {
        const std::uint32_t f = solved_[i];
        if (has_bottleneck(f)) continue;
        failed = true;
        const double level = flows_[f].rate / flows_[f].weight;
        for (const LinkUse& u : flows_[f].uses) {
            if (state(u.link).load < capacity_[u.link] * (1 - kCheckTolerance)) continue;
            for (std::size_t j = 0; j < on_link_[u.link].size(); ++j) {
                const std::uint32_t h = on_link_[u.link][j].flow;
                if (!in_set(h) && levels_[h].rate / levels_[h].weight > level * (1 + kCheckTolerance)) take(h);
            }
        }
    }
    // A flow outside the set whose bottleneck was a link the set changed (held_: only those
    // flows, not every flow on the link), or is not known.
    const auto check = [&](std::uint32_t g) {
        if (in_set(g) || has_bottleneck(g)) return;
        failed = true;
        take(g);
    };
    // The links that were in the set when begin() ended hold only the set's flows in the first
    // grow() of a solve (begin() took every flow they held, and only the set's flows have been
    // checked, and so moved, since): the loop starts after them (at 0 in later rounds, where a
    // flow outside the set may have moved onto one of them).
    const std::size_t from = held_checked_;
    held_checked_ = 0;
    for (std::size_t i = from; i < links; ++i) {
        // Mostly none or the set's own flows, which need no check here; else a copy: a check
        // moves the flow to the list of the link that now holds it.
        if (link_mark_[set_links_[i]].held == 0) continue;
        const std::vector<std::uint32_t>& held = held_[set_links_[i]];
        if (std::all_of(held.begin(), held.end(), [&](std::uint32_t g) { return in_set(g); })) continue;
        held_scratch_.assign(held.begin(), held.end());
        for (std::uint32_t g : held_scratch_) check(g);
    }
    held_scratch_.swap(unknown_);
    unknown_.clear();
    for (std::uint32_t g : held_scratch_) {
        if (!flows_[g].active || flows_[g].bottleneck != kNone) continue;
        if (in_set(g))
            unknown_.push_back(g);  // checked with the set
        else
            check(g);  // back into unknown_ through set_bottleneck if it fails
    }
    if (!failed) return Growth::settled;
    return solved_.size() > solved ? Growth::grown : Growth::stuck;
}

void IncrementalMaxMin::gather_components() {
    // Breadth-first over links -> flows -> links from the set and its links (the flows taken
    // so far have their links in already).
    std::size_t li = 0, fi = set_range_.size();
    while (li < set_links_.size() || fi < solved_.size()) {
        for (; li < set_links_.size(); ++li)
            for (const OnLink& e : on_link_[set_links_[li]])
                if (!in_set(e.flow)) {
                    flow_seen_[e.flow] = epoch_;
                    solved_.push_back(e.flow);
                }
        for (; fi < solved_.size(); ++fi) take_uses(solved_[fi]);
    }
}

void IncrementalMaxMin::begin() {
    solved_.clear();
    touched_links_.clear();
    ++epoch_;  // marks from mark_link() carry epoch_ (the old epoch_ + 1)
    for (std::uint32_t l : set_links_) link_mark_[l].cls = 0;  // the last solve's set out
    set_links_.clear();
    set_uses_.clear();
    set_range_.clear();
    start_rate_.clear();
    route_head_.clear();
    routes_ = 0;
    class_of_.clear();
    for (std::uint32_t h : used_slots_) class_table_[h] = 0;  // the last solve's classes out
    used_slots_.clear();
    class_rep_.clear();
    class_size_.clear();
    class_mark_.clear();
    class_summed_.clear();
    set_rate_.clear();
    set_top_.clear();
    inside_.clear();
    count_.clear();
    sums_valid_ = true;
    moved_valid_ = false;
    for (std::size_t i = 0; i < dirty_links_.size(); ++i) {
        if (i + kAhead < dirty_links_.size()) __builtin_prefetch(&link_flows_[dirty_links_[i + kAhead]]);
        add_set_link(dirty_links_[i]);
    }
    for (std::uint32_t f : dirty_flows_)
        if (flows_[f].active && !in_set(f)) take(f);
    changed_flows_ = solved_.size();
    // The flows whose bottleneck a change touched move with it (a departure frees their
    // link, an arrival takes from it), and so on along the chain: a flow taken in may move,
    // and with it every flow whose bottleneck is one of its links. All of them go into the
    // set now (set_links_ grows as take() adds their links), which saves the re-fills after
    // which grow() would find them failing their checks a link of the chain at a time: a
    // fabric's DP rings, each crossing hundreds of links, took 2-4 re-fills of a growing set
    // per change before (docs/BENCHMARKS.md). Flows at their cap are held at no link and stay
    // out unless a check finds a link of theirs saturated under them.
    for (std::size_t i = 0; i < set_links_.size(); ++i)
        if (link_mark_[set_links_[i]].held > 0)
            for (std::uint32_t g : held_[set_links_[i]])
                if (!in_set(g)) take(g);
    held_checked_ = set_links_.size();
    dirty_links_.clear();
    dirty_flows_.clear();
}

void IncrementalMaxMin::finish() {
    touched_links_.assign(set_links_.begin(), set_links_.end());
    if (!moved_valid_) {  // no re-fill (fill_isolated()): what set_rates() finds, here
        class_moved_.assign(class_rep_.size(), 0);
        for (std::size_t k = changed_flows_; k < solved_.size(); ++k)
            if (flows_[solved_[k]].rate != start_rate_[k])
                for (std::uint32_t j = set_range_[k].first; j < set_range_[k].last; ++j)
                    class_moved_[set_uses_[j].local] = 1;
        spread_moved();
    }
    largest_ = std::max(largest_, solved_.size());
    flows_solved_ += solved_.size();
    ++solves_;
}

bool IncrementalMaxMin::isolated() const {
    for (std::uint32_t f : solved_)
        for (const LinkUse& u : flows_[f].uses)
            if (on_link_[u.link].size() != 1) return false;
    return !solved_.empty();
}

void IncrementalMaxMin::fill_isolated() {
    // What progressive filling does with a flow that shares none of its links, in its
    // arithmetic (max_min_cpu.cpp): its links' levels on what the others leave (nothing
    // but rounding), the lowest of them and its cap's level, the rate at that level.
    for (std::uint32_t f : solved_) {
        const Flow& fl = flows_[f];
        double level = fl.cap < kUncapped ? cap_level(fl.cap, fl.weight) : kInfiniteLevel;
        for (const LinkUse& u : fl.uses) {
            const double outside = std::max(0.0, link_rate_[u.link] - u.share * fl.rate);
            level = min_level(level, link_level(std::max(0.0, capacity_[u.link] - outside), u.share * fl.weight));
        }
        set_rate(f, frozen_rate(fl.weight, level, fl.cap));
        has_bottleneck(f);  // remembers its bottleneck (a failure only by rounding: unknown_)
    }
    ++refills_;
}

const std::vector<std::uint32_t>& IncrementalMaxMin::solve() {
    if (!pending()) {
        solved_.clear();
        touched_links_.clear();
        touched_moved_.clear();
        changed_flows_ = 0;
        return solved_;
    }
    begin();
    if (isolated()) {
        // Every flow to solve is alone on each of its links (a ring step inside a server, a
        // connection on a quiet path): its rate is its own bottleneck's, and nothing else
        // crosses what it takes or frees. No filling, no checks.
        fill_isolated();
        finish();
        return solved_;
    }
    for (int refills = 0;; ++refills) {
        if (!solved_.empty()) refill();
        const Growth g = grow();
        if (g == Growth::settled) break;
        if (g == Growth::stuck || refills + 1 >= kMaxRefills) {
            // Rounding left a check failing with nobody to blame, or the change reaches far:
            // the whole component, which is max-min fair by construction.
            gather_components();
            refill();
            for (std::uint32_t f : solved_) has_bottleneck(f);
            break;
        }
    }
    finish();
    return solved_;
}

const std::vector<std::uint32_t>& IncrementalMaxMin::solve_components() {
    if (!pending()) {
        solved_.clear();
        touched_links_.clear();
        touched_moved_.clear();
        changed_flows_ = 0;
        return solved_;
    }
    begin();
    gather_components();
    if (!solved_.empty()) refill();
    for (std::uint32_t f : solved_) has_bottleneck(f);
    finish();
    return solved_;
}

}  // namespace fabricsim::flow
