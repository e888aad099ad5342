#include "flow/flow_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

namespace fabricsim::flow {

using fabric::DirectedLink;
using fabric::FlowKey;
using fabric::NodeId;

std::vector<double> link_capacities(const fabric::Topology& topology) {
    std::vector<double> c(topology.directed_link_count());
    for (std::size_t i = 0; i < c.size(); ++i)
        c[i] = static_cast<double>(topology.link(DirectedLink::from_index(static_cast<std::uint32_t>(i)).link)
                                       .payload_bandwidth()
                                       .bits_per_second()) /
               8.0;
    return c;
}

namespace {
// How many touched links ahead resolve() asks for a link's record.
constexpr std::size_t kTouchedAhead = 8;
// Per directed link, the lowest-indexed of the links parallel to it inside one server (same
// source, same target, same payload rate): its bundle's representative (the header).
std::vector<std::uint32_t> parallel_bundles(const fabric::Topology& topology) {
    std::vector<std::uint32_t> rep(topology.directed_link_count());
    for (std::uint32_t i = 0; i < rep.size(); ++i) rep[i] = i;
    for (std::uint32_t n = 0; n < topology.nodes().size(); ++n) {
        const NodeId at{n};
        const fabric::Node& node = topology.node(at);
        if (!node.server.valid()) continue;
        std::vector<std::pair<std::uint32_t, std::uint32_t>> seen;  // (peer, representative)
        for (std::uint32_t p = 0; p < node.ports.size(); ++p) {
            const fabric::Port& port = node.ports[p];
            if (topology.node(port.peer).server != node.server) continue;
            const std::uint32_t d = topology.egress(at, p).index();
            bool joined = false;
            for (const auto& [peer, r] : seen)
                if (peer == port.peer.value() && topology.link(DirectedLink::from_index(r).link).payload_bandwidth() ==
                                                     topology.link(port.link).payload_bandwidth()) {
                    rep[d] = std::min(rep[d], r);
                    joined = true;
                    break;
                }
            if (!joined) seen.emplace_back(port.peer.value(), d);
        }
    }
    // A representative is the lowest index of its bundle, and its own representative.
    for (std::uint32_t i = 0; i < rep.size(); ++i) rep[i] = rep[rep[i]];
    return rep;
}

// Per directed link: its index in the solver's per-link arrays and this network's (the
// header's "Numbering"). `rep` holds each link's bundle representative.
std::vector<std::uint32_t> solver_numbering(const fabric::Topology& topology, const std::vector<std::uint32_t>& rep) {
    std::vector<std::uint32_t> order;  // topology indices in solver order
    order.reserve(rep.size());
    std::vector<char> placed(rep.size(), 0);
    const auto place = [&](std::uint32_t d) {
        if (placed[d] || rep[d] != d) return;
        placed[d] = 1;
        order.push_back(d);
    };
    // Both directions of the node's links that `pick` picks, in port order.
    const auto links_of = [&](NodeId node, auto pick) {
        if (!node.valid()) return;
        for (std::uint32_t p = 0; p < topology.node(node).ports.size(); ++p) {
            const DirectedLink out = topology.egress(node, p);
            if (!pick(topology.link(out.link))) continue;
            place(out.index());
            place(DirectedLink{out.link, !out.reverse}.index());
        }
    };
    const auto off_nvlink = [](const fabric::Link& l) { return l.type != fabric::LinkType::nvlink; };
    // A GPU's way out of its server (its PCIe link, its NIC's PCIe link and fabric links), rank
    // by rank: what a flow between servers crosses at each end, 6 links a rank.
    for (const fabric::RankInfo& r : topology.ranks()) {
        links_of(r.gpu, off_nvlink);
        if (r.nic != r.gpu) links_of(r.nic, [](const fabric::Link&) { return true; });
    }
    // Each GPU's NVLink bundles, rank by rank: what a flow inside a server crosses.
    for (const fabric::RankInfo& r : topology.ranks())
        links_of(r.gpu, [](const fabric::Link& l) { return l.type == fabric::LinkType::nvlink; });
    // Every other representative in the topology's order, then the bundles' other members,
    // which the solver never sees.
    for (std::uint32_t d = 0; d < rep.size(); ++d) place(d);
    for (std::uint32_t d = 0; d < rep.size(); ++d)
        if (!placed[d]) order.push_back(d);
    std::vector<std::uint32_t> index(rep.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) index[order[i]] = i;
    return index;
}

// A slot of `items`: the last one freed, or a new one at the end.
template <class T>
std::uint32_t take_slot(std::vector<T>& items, std::vector<std::uint32_t>& free) {
    if (free.empty()) {
        items.emplace_back();
        return static_cast<std::uint32_t>(items.size() - 1);
    }
    const std::uint32_t i = free.back();
    free.pop_back();
    return i;
}

// Picoseconds to move `bytes` at `bytes_per_s`, rounded up (never early, as transmit_time).
Time fluid_time(double bytes, double bytes_per_s) {
    const double ps = std::ceil(bytes / bytes_per_s * 1e12);
    if (!(ps < 9.2e18))
        throw ModelError(fmt::format("flow model: {} B at {} B/s takes beyond the end of time", bytes, bytes_per_s));
    return Time::ps(static_cast<std::int64_t>(ps));
}
}  // namespace

FlowNetwork::FlowNetwork(const fabric::Topology& topology, const fabric::Routing& routing, FlowModelSpec spec,
                         std::unique_ptr<RateBackend> backend)
    : topology_(topology),
      routing_(routing),
      spec_(std::move(spec)),
      backend_(std::move(backend)),
      bundle_(parallel_bundles(topology)),
      solver_link_(solver_numbering(topology, bundle_)),
      topology_link_(solver_link_.size()),
      bundle_size_(bundle_.size(), 0),
      routes_(kRouteCache),
      ports_taken_(topology.nodes().size(), 0),
      wait_head_(topology.nodes().size(), kNoGate),
      wait_tail_(topology.nodes().size(), kNoGate),
      solver_(in_solver_order(link_capacities(topology)), *backend_),
      carried_(topology.directed_link_count(), 0.0),
      load_(topology.directed_link_count()),
      members_on_(topology.directed_link_count(), 0),
      freed_(topology.directed_link_count(), 0.0) {
    for (std::uint32_t l = 0; l < solver_.links(); ++l)
        if (!(capacity(l) > 0)) throw ModelError(fmt::format("flow model: link {} has no payload rate", l / 2));
    if (spec_.dcqcn && spec_.cluster) standing_ = std::make_unique<StandingQueues>(topology_, *spec_.cluster);
    if (spec_.fluid && spec_.cluster) congestion_ = std::make_unique<FlowCongestion>(topology_, *spec_.cluster);
    for (std::uint32_t l = 0; l < bundle_.size(); ++l) {
        topology_link_[solver_link_[l]] = l;
        bundle_[l] = solver_link_[bundle_[l]];
    }
    for (std::uint32_t r : bundle_) ++bundle_size_[r];
}

std::vector<double> FlowNetwork::in_solver_order(const std::vector<double>& by_link) const {
    std::vector<double> out(by_link.size());
    for (std::size_t l = 0; l < by_link.size(); ++l) out[solver_link_[l]] = by_link[l];
    return out;
}

void FlowNetwork::bundled(std::span<const LinkUse> uses, std::vector<LinkUse>& out) const {
    out.clear();
    for (const LinkUse& u : uses) {
        const std::uint32_t r = bundle_[u.link];
        const double share = u.share / static_cast<double>(bundle_size_[r]);
        auto it = std::find_if(out.begin(), out.end(), [&](const LinkUse& o) { return o.link == r; });
        if (it == out.end())
            out.push_back({r, share});
        else
            it->share += share;
    }
}

std::vector<LinkUse> FlowNetwork::uses_of(const FlowKey& key) const {
    std::vector<LinkUse> uses;
    for (const fabric::LinkShare& s : routing_.spread(key)) {
        const std::uint32_t l = s.link.index();
        auto it = std::find_if(uses.begin(), uses.end(), [&](const LinkUse& u) { return u.link == l; });
        if (it == uses.end())
            uses.push_back({l, s.share});
        else
            it->share += s.share;
    }
    return uses;
}

Time FlowNetwork::path_latency(std::span<const std::uint32_t> hops, std::uint32_t unit) const {
    Time t = Time::zero(), slowest = Time::zero();
    for (std::uint32_t h : hops) {
        const DirectedLink d = DirectedLink::from_index(h);
        const fabric::Link& link = topology_.link(d.link);
        const Time tx = transmit_time(Bytes{unit}, link.payload_bandwidth());
        t += link.propagation + topology_.node(topology_.target(d)).forwarding_latency + tx;
        slowest = std::max(slowest, tx);
    }
    return t - slowest;
}

Time FlowNetwork::queueing_delay(std::span<const std::uint32_t> hops, std::uint32_t unit) const {
    Time t = Time::zero();
    for (std::uint32_t hop : hops) {
        const std::uint32_t h = bundle_[hop];
        if (members_on_[h] == 0 || load_[h].rate < solver_.capacity(h) * (1 - 1e-6)) continue;
        t += standing_ ? standing_->delay(topology_link_[h], members_on_[h], unit)
                       : fluid_time(0.5 * static_cast<double>(unit), solver_.capacity(h));
    }
    return t;
}

double FlowNetwork::stripe_cap(const FlowKey& key, double bytes, std::uint32_t unit,
                               std::span<const LinkUse> uses) const {
    double bottleneck = kUncapped;
    for (const LinkUse& u : uses) bottleneck = std::min(bottleneck, capacity(u.link) / u.share);
    return stripe_cap(routing_.candidates(key.src, key).size(), bottleneck, bytes, unit);
}

double FlowNetwork::stripe_cap(std::size_t candidates, double bottleneck, double bytes, std::uint32_t unit) {
    const double packets = std::max(1.0, std::ceil(bytes / static_cast<double>(unit)));
    if (candidates <= 1 || packets >= static_cast<double>(candidates)) return kUncapped;
    return bottleneck * packets / static_cast<double>(candidates);
}

FlowNetwork::Route& FlowNetwork::route(const FlowKey& key) {
    // splitmix64's finaliser over (src, dst, qp): a slot per key, overwritten on collision.
    std::uint64_t h = (static_cast<std::uint64_t>(key.src.value()) << 40) ^
                      (static_cast<std::uint64_t>(key.dst.value()) << 16) ^ key.qp;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    h ^= h >> 31;
    Route& r = routes_[h % kRouteCache];
    if (r.valid && r.key.src == key.src && r.key.dst == key.dst && r.key.qp == key.qp) return r;
    const std::vector<LinkUse> raw = uses_of(key);
    if (raw.empty())
        throw ModelError(fmt::format("flow model: no route from {} to {}", topology_.node(key.src).name,
                                     topology_.node(key.dst).name));
    r.key = key;
    r.valid = true;
    r.group = kNoGate;  // the old key's group runs on without its slot
    bundled(raw, r.uses);
    r.hops.clear();
    for (DirectedLink d : routing_.path(key)) r.hops.push_back(d.index());
    r.bottleneck = kUncapped;
    for (const LinkUse& u : raw) r.bottleneck = std::min(r.bottleneck, capacity(u.link) / u.share);
    r.candidates = routing_.candidates(key.src, key).size();
    r.unit = 0;
    return r;
}

Time FlowNetwork::route_latency(Route& r, std::uint32_t unit) const {
    if (r.unit != unit) {
        r.latency = path_latency(r.hops, unit);
        r.unit = unit;
    }
    return r.latency;
}

Time FlowNetwork::unloaded_time(const Message& message) const {
    const NodeId src = endpoint(message.src), dst = endpoint(message.dst);
    const FlowKey key{src, dst, message.flow_hint};
    const ServerId a = topology_.node(src).server, b = topology_.node(dst).server;
    const std::int64_t unit = std::min((a.valid() && a == b ? spec_.segment : spec_.mtu).count(),
                                       std::max<std::int64_t>(message.size.count(), 1));
    std::vector<std::uint32_t> hops;
    for (DirectedLink d : routing_.path(key)) hops.push_back(d.index());
    const std::vector<LinkUse> uses = uses_of(key);
    double bottleneck = 1e300;
    for (const LinkUse& u : uses) bottleneck = std::min(bottleneck, capacity(u.link) / u.share);
    bottleneck = std::min(
        bottleneck, stripe_cap(key, static_cast<double>(message.size.count()), static_cast<std::uint32_t>(unit), uses));
    const bool fabric = !(a.valid() && a == b);
    const int qps = fabric ? std::max(1, spec_.qps_per_connection) : 1;
    // Several QPs: the slowest part (ECMP may pile them on one link; alone, they share
    // nothing but their NIC, which they split evenly).
    const double part = static_cast<double>(message.size.count()) / qps;
    const double per_part_rate = qps > 1 ? bottleneck / qps : bottleneck;
    return path_latency(hops, static_cast<std::uint32_t>(unit)) + fluid_time(part, per_part_rate);
}

std::uint32_t FlowNetwork::new_message(const Message& m, DeliveryListener& listener, std::uint32_t parts,
                                       Time latency) {
    const std::uint32_t slot = take_slot(messages_, free_messages_);
    messages_[slot] = MessageState{m.id, &listener, m.size, parts, latency, Time::zero(), true};
    sent_ += m.size;
    in_flight_ += m.size;
    return slot;
}

void FlowNetwork::start_flow(Simulator& sim, std::uint32_t message, double bytes, double cap,
                             std::span<const LinkUse> uses, std::uint32_t unit) {
    bundled(uses, bundled_);
    start_solver_flow(sim, message, bytes, cap, bundled_, unit, kNoGate);
}

std::uint32_t FlowNetwork::start_solver_flow(Simulator& sim, std::uint32_t message, double bytes, double cap,
                                             std::span<const LinkUse> uses, std::uint32_t unit, std::uint32_t route) {
    std::uint32_t g = route == kNoGate ? kNoGate : routes_[route].group;
    if (g != kNoGate && groups_[g].cap == cap) {
        const double n = groups_[g].members + 1.0;
        solver_.reweight(g, n, cap * n);
    } else {
        g = solver_.add(1.0, cap, uses);
        if (groups_.size() <= g) groups_.resize(g + 1);
        groups_[g] = Group{0, kNoGate, route, cap, 0.0, 0.0};
        if (route != kNoGate) routes_[route].group = g;
    }
    const std::uint32_t id = take_slot(flows_, free_flows_);
    Group& group = groups_[g];
    FlowState& f = flows_[id];
    f.group = g;
    f.prev = kNoGate;
    f.next = group.head;
    if (group.head != kNoGate) flows_[group.head].prev = id;
    group.head = id;
    ++group.members;
    group.each = 0;  // the new member is not at the others' rate
    for (const LinkUse& u : uses) ++members_on_[u.link];
    f.message = message;
    f.left = bytes;
    f.bytes = bytes;
    f.rate = 0;
    f.updated = sim.now();
    f.started = f.wait_end = sim.now();
    f.wait_bytes = 0;
    f.unit = unit;
    f.gate = kNoGate;
    f.ports = 0;
    ++flows_started_;
    if (spec_.solve_interval > Time::zero()) {
        // Until the next solve: what its path has left (a flow that follows one that just
        // ended on the same path inherits its rate), never more than any link has free.
        // A sliver (under 0.1 % of a link) waits for the solve instead.
        double r = cap, slowest = kUncapped;
        for (const LinkUse& u : uses) {
            r = std::min(r, (solver_.capacity(u.link) - load_[u.link].rate) / u.share);
            slowest = std::min(slowest, solver_.capacity(u.link));
        }
        if (r > 1e-3 * slowest) {
            f.rate = r;
            group.rate += r;
            for (const LinkUse& u : uses) change_load(u.link, u.share * r, sim.now());
            due_.set(id, sim.now() + fluid_time(f.left, f.rate));
            schedule_wake(sim);
        }
    }
    request_solve(sim);
    return id;
}

void FlowNetwork::start_waiting(Simulator& sim, const Waiting& w, std::uint32_t node) {
    const Route& r = route(w.key);
    const std::uint32_t id = start_solver_flow(sim, w.message, w.bytes, w.cap, r.uses, w.unit, group_slot(r));
    flows_[id].gate = node;
    flows_[id].ports = w.ports;
    ports_taken_[node] += w.ports;
}

void FlowNetwork::admit(Simulator& sim, std::uint32_t node) {
    while (wait_head_[node] != kNoGate) {
        const std::uint32_t i = wait_head_[node];
        if (ports_taken_[node] >= waiting_[i].candidates) return;
        const Waiting w = waiting_[i];
        wait_head_[node] = w.next;
        if (w.next == kNoGate) wait_tail_[node] = kNoGate;
        free_waiting_.push_back(i);
        start_waiting(sim, w, node);
    }
}

void FlowNetwork::change_load(std::uint32_t link, double delta, Time now) {
    LinkLoad& x = load_[link];
    x.busy_ps += x.rate / solver_.capacity(link) * static_cast<double>((now - x.since).picoseconds());
    x.since = now;
    x.rate = std::max(0.0, x.rate + delta);
}

FlowKey FlowNetwork::qp_key(NodeId src, NodeId dst, bool inside, std::uint32_t qps, std::uint32_t hint,
                            std::uint32_t j) {
    return FlowKey{src, dst, inside ? 0u : qps > 1 ? hint * qps + j : hint};
}

void FlowNetwork::send(Simulator& sim, const Message& message, DeliveryListener& listener) {
    const auto endpoints = static_cast<std::uint32_t>(topology_.ranks().size() + topology_.storage_nodes().size() +
                                                      topology_.clients().size());
    if (message.src.value() >= endpoints || message.dst.value() >= endpoints)
        throw InternalError(fmt::format("flow model: message {} between endpoints {} and {} of {}", message.id.value(),
                                        message.src.value(), message.dst.value(), endpoints));
    const NodeId src = endpoint(message.src), dst = endpoint(message.dst);
    if (src == dst)
        throw InternalError(fmt::format("flow model: message {} from a node to itself", message.id.value()));
    const ServerId a = topology_.node(src).server, b = topology_.node(dst).server;
    const bool inside = a.valid() && a == b;
    const std::uint32_t qps = inside ? 1u : static_cast<std::uint32_t>(std::max(1, spec_.qps_per_connection));
    const auto unit = static_cast<std::uint32_t>(
        std::min((inside ? spec_.segment : spec_.mtu).count(), std::max<std::int64_t>(message.size.count(), 1)));
    // One flow per QP, each hashed as its own flow (the packet model's QP keys), the message's
    // bytes split in contiguous parts; delivered after the slowest part and its path's latency.
    // Inside a server the QP changes nothing the flow model reads (traffic is striped over
    // every port of a hop; packet 0's path differs only among links of equal rate, latency
    // and load), so all of a pair's QPs share one cached route.
    const auto key_of = [&](std::uint32_t j) { return qp_key(src, dst, inside, qps, message.flow_hint, j); };
    Time latency = Time::zero();
    for (std::uint32_t j = 0; j < qps; ++j) {
        Route& r = route(key_of(j));
        // Before this message's flows join: the ports it finds already saturated.
        latency = std::max(latency, route_latency(r, unit) + queueing_delay(r.hops, unit));
    }
    const std::uint32_t slot = new_message(message, listener, qps, latency);
    const auto size = static_cast<double>(message.size.count());
    for (std::uint32_t j = 0; j < qps; ++j) {
        const double begin = std::floor(size * j / qps), end = j + 1 == qps ? size : std::floor(size * (j + 1) / qps);
        if (end - begin <= 0) {
            --messages_[slot].parts_left;
            continue;
        }
        const Route& r = route(key_of(j));
        const double bytes = end - begin, cap = stripe_cap(r.candidates, r.bottleneck, bytes, unit);
        if (!inside || cap == kUncapped) {
            const std::uint32_t id = start_solver_flow(sim, slot, bytes, cap, r.uses, unit, group_slot(r));
            if (congestion_ && !inside) {
                // Its first byte waits behind what the overlay's queues on its path hold now.
                const Time wait = congestion_->queueing_delay(r.hops);
                flows_[id].wait_end = sim.now() + wait;
                flows_[id].wait_bytes = wait > Time::zero() ? -1.0 : 0.0;
                const std::uint32_t g = flows_[id].group;
                const double qp_cap = congestion_->add(g, key_of(j), r.hops, bytes, sim.now());
                if (qp_cap < cap) solver_.set_cap(g, qp_cap);  // a QP DCQCN has cut
            }
            continue;
        }
        // Fewer segments than ports inside a server: oldest first (the header).
        const std::uint32_t node = src.value();
        const Waiting w{key_of(j),
                        slot,
                        unit,
                        static_cast<std::uint32_t>(std::max(1.0, std::ceil(bytes / static_cast<double>(unit)))),
                        static_cast<std::uint32_t>(r.candidates),
                        kNoGate,
                        bytes,
                        cap};
        if (wait_head_[node] == kNoGate && ports_taken_[node] < r.candidates) {
            start_waiting(sim, w, node);
            continue;
        }
        const std::uint32_t i = take_slot(waiting_, free_waiting_);
        waiting_[i] = w;
        if (wait_tail_[node] == kNoGate)
            wait_head_[node] = i;
        else
            waiting_[wait_tail_[node]].next = i;
        wait_tail_[node] = i;
    }
    if (messages_[slot].parts_left == 0) sim.after(latency, *this, kDeliverBase + slot);  // an empty message
}

void FlowNetwork::request_solve(Simulator& sim) {
    if (solve_pending_) return;
    solve_pending_ = true;
    sim.at(std::max(sim.now(), last_solve_ + spec_.solve_interval), *this, kSolve);
}

void FlowNetwork::resolve(Simulator& sim) {
    solve_pending_ = false;
    if (!solver_.pending()) return;
    const Time now = sim.now();
    last_solve_ = now;
    ++resolves_;
    const std::vector<std::uint32_t>& solved = solver_.solve();
    for (std::size_t k = 0; k < solved.size(); ++k) {
        const std::uint32_t g = solved[k];
        Group& group = groups_[g];
        const double total = solver_.rate(g), each = total / group.members;
        if (!(each > 0))
            throw InternalError(fmt::format("flow model: a group of {} flows got rate {}", group.members, total));
        // A group the solve's checks took in that kept its rate: every member is at it
        // already, their bytes and completions hold, and its members are not walked.
        for (std::uint32_t id = each == group.each ? kNoGate : group.head; id != kNoGate; id = flows_[id].next) {
            FlowState& f = flows_[id];
            // Same rate as before: its bytes and projected completion still hold.
            if (f.rate > 0 && each == f.rate) continue;
            // Bytes sent at the old rate since the last change, then the new rate from now.
            note_wait(f, now);
            f.left = std::max(0.0, f.left - f.rate * static_cast<double>((now - f.updated).picoseconds()) * 1e-12);
            f.updated = now;
            f.rate = each;
            due_.set(id, now + fluid_time(f.left, f.rate));
        }
        // Where its load moves, a link's busy time is integrated up to now at the load before
        // this solve (change_load()'s first step; any later one at this instant adds 0). A
        // group the solver did not see change since the last solve has group.rate equal to
        // the rate it began this solve with (set below; members join and leave only through
        // reweight and add), so the solver's touched_moved() marks its links; a changed one's
        // are marked here.
        if (k < solver_.changed_flows() && total != group.rate)
            for (const LinkUse& u : solver_.uses(g)) load_[u.link].moved = resolves_;
        group.rate = total;
        group.each = each;
        if (congestion_) congestion_->set_rate(g, total);
    }
    // The solver's sums are the exact loads (every link of a re-rated group is a touched
    // one): they replace the increments, and their rounding.
    const std::vector<std::uint32_t>& touched = solver_.touched_links();
    for (std::size_t i = 0; i < touched.size(); ++i) {
        // A link's record is far from the last one's (a large solve touches thousands): asked
        // for a few links ahead, where its load waited on each in turn.
        if (i + kTouchedAhead < touched.size()) __builtin_prefetch(&load_[touched[i + kTouchedAhead]]);
        const std::uint32_t l = touched[i];
        if (solver_.touched_moved()[i] || load_[l].moved == resolves_) change_load(l, 0.0, now);
        load_[l].rate = solver_.link_rate(l);
    }
    schedule_wake(sim);
    schedule_congestion(sim);
}

void FlowNetwork::schedule_wake(Simulator& sim) {
    if (due_.empty()) return;
    const Time at = due_.top_time();
    if (at >= wake_at_ && wake_.valid()) return;  // an earlier or equal wake is already queued
    if (wake_.valid()) sim.cancel(wake_);
    wake_ = sim.at(at, *this, kWake);
    wake_at_ = at;
}

void FlowNetwork::finish_due(Simulator& sim) {
    wake_ = EventHandle{};
    wake_at_ = Time::max();
    const Time now = sim.now();
    while (!due_.empty() && due_.top_time() <= now) {
        const Due d{due_.top_time(), due_.top_flow()};
        due_.pop();
        FlowState& f = flows_[d.flow];
        const Time turn = last_turn(f);
        for (const LinkUse& u : solver_.uses(f.group)) {
            carried_[u.link] += u.share * f.bytes;
            change_load(u.link, -u.share * f.rate, now);
            if (freed_[u.link] == 0) freed_links_.push_back(u.link);
            freed_[u.link] += u.share * f.rate;
        }
        if (congestion_ && congestion_->tracked(f.group)) {
            // The overlay's queues. The solve served the flow from its start, where its
            // packets only began to leave the queues at wait_end: what it got before then
            // leaves after its last byte, at its rate now. In a steady state that is the wait
            // itself; where its share grew once it got through (the other inputs of its port
            // were done), less. Never more than the wait: a rate that fell since is not
            // taken for the rate of the bytes still ahead.
            note_wait(f, now);
            const double early = f.wait_bytes < 0 ? f.bytes : f.wait_bytes;
            const Time wait = f.wait_end - f.started;
            const Time out = std::max(now, f.wait_end) +
                             (early > 0 && f.rate > 0 ? std::min(wait, fluid_time(early, f.rate)) : Time::zero());
            Time& until = messages_[f.message].queued_until;
            until = std::max(until, out);
            if (groups_[f.group].members == 1) congestion_->remove(f.group);
        }
        leave_group(d.flow);
        f.left = 0;
        f.rate = 0;
        const std::uint32_t message = f.message, gate = f.gate;
        if (gate != kNoGate) {
            ports_taken_[gate] -= f.ports;
            f.gate = kNoGate;
            admit(sim, gate);  // may start flows (and grow flows_)
        }
        MessageState& m = messages_[message];
        if (--m.parts_left == 0)
            sim.at(std::max(now, m.queued_until) + m.latency - std::min(turn, m.latency), *this,
                   kDeliverBase + message);
    }
    for (std::uint32_t l : freed_links_) freed_[l] = 0;
    freed_links_.clear();
    if (solver_.pending()) request_solve(sim);
    schedule_wake(sim);
}

void FlowNetwork::note_wait(FlowState& f, Time now) {
    if (f.wait_bytes >= 0 || f.wait_end > now) return;
    const double left = f.left - f.rate * static_cast<double>((f.wait_end - f.updated).picoseconds()) * 1e-12;
    f.wait_bytes = std::clamp(f.bytes - left, 0.0, f.bytes);
}

Time FlowNetwork::last_turn(const FlowState& f) const {
    const Group& group = groups_[f.group];
    if (!(f.rate > 0) || f.rate >= group.cap * (1 - 1e-9)) return Time::zero();  // paced at its cap
    if (congestion_ && congestion_->tracked(f.group) &&
        f.rate * group.members >= congestion_->cap(f.group) * (1 - 1e-9))
        return Time::zero();  // paced at its queue pair's rate
    const double unit = static_cast<double>(f.unit);
    double ps = kUncapped;
    for (const LinkUse& u : solver_.uses(f.group)) {
        const double c = solver_.capacity(u.link);
        // Flows that ended at this instant before it were in the round too.
        if (load_[u.link].rate + freed_[u.link] < c * (1 - 1e-6)) continue;  // not shared to the full: no round
        // A round at this port: its other flows' packets and its own. Striped over k = 1/share
        // ports, its last packets leave in k independent turns, the last of them on average
        // k/(k+1) of the way through the round.
        const double round = unit / (f.rate * u.share) - unit / c;
        ps = std::min(ps, round * u.share / (1 + u.share) * 1e12);
    }
    return ps < kUncapped && ps > 0 ? Time::ps(static_cast<std::int64_t>(ps)) : Time::zero();
}

void FlowNetwork::leave_group(std::uint32_t id) {
    FlowState& f = flows_[id];
    Group& group = groups_[f.group];
    for (const LinkUse& u : solver_.uses(f.group)) --members_on_[u.link];
    if (f.prev != kNoGate)
        flows_[f.prev].next = f.next;
    else
        group.head = f.next;
    if (f.next != kNoGate) flows_[f.next].prev = f.prev;
    free_flows_.push_back(id);
    if (--group.members == 0) {
        solver_.remove(f.group);
        if (group.route != kNoGate && routes_[group.route].group == f.group) routes_[group.route].group = kNoGate;
        return;
    }
    // The others run on at the group's old rate until the solve: its share stays unused.
    group.rate -= f.rate;
    const double n = group.members;
    solver_.reweight(f.group, n, group.cap * n);
}

void FlowNetwork::on_event(Simulator& sim, std::uint64_t arg) {
    if (arg == kSolve) return resolve(sim);
    if (arg == kWake) return finish_due(sim);
    if (arg == kStep) return step_congestion(sim);
    const auto slot = static_cast<std::uint32_t>(arg - kDeliverBase);
    MessageState& m = messages_[slot];
    const MessageState done = m;
    m.in_use = false;
    free_messages_.push_back(slot);
    delivered_ += done.size;
    in_flight_ -= done.size;
    done.listener->on_delivered(sim, done.id);
}

// --- Coupled congestion control (flow_congestion.hpp) ---
void FlowNetwork::schedule_congestion(Simulator& sim) {
    if (!congestion_ || stepping_ || !congestion_->needs_step()) return;
    stepping_ = true;
    sim.after(congestion_->step(), *this, kStep);
}

void FlowNetwork::step_congestion(Simulator& sim) {
    stepping_ = false;
    for (const auto& [id, cap] : congestion_->advance(sim.now(), sim.rng("flow.dcqcn"))) solver_.set_cap(id, cap);
    // Per-input-port (InfiniBand) and per-QP (RoCE with DCQCN) shares as solver weights
    // (flow_congestion.hpp).
    for (const auto& [id, weight] : congestion_->reweighted()) solver_.reweight(id, weight, congestion_->cap(id));
    if (solver_.pending())
        resolve(sim);  // schedules the next step
    else
        schedule_congestion(sim);
}

std::vector<PortReport> FlowNetwork::port_reports() const {
    std::vector<PortReport> out;
    for (std::uint32_t i = 0; i < carried_.size(); ++i) {
        const std::uint32_t b = bundle_[i];
        if (carried_[b] <= 0 && load_[b].busy_ps <= 0) continue;
        const DirectedLink d = DirectedLink::from_index(i);
        PortReport r;
        r.from = topology_.node(topology_.source(d)).name;
        r.to = topology_.node(topology_.target(d)).name;
        r.bytes = Bytes{static_cast<std::int64_t>(std::llround(carried_[b]))};
        r.busy = Time::ps(static_cast<std::int64_t>(std::llround(load_[b].busy_ps)));
        out.push_back(std::move(r));
    }
    return out;
}

void FlowNetwork::check_invariants(Time now) const {
    for (std::uint32_t i = 0; i < solver_.links(); ++i) {
        const std::uint32_t l = solver_link_[i];
        const double c = solver_.capacity(l);
        if (load_[l].rate > c * (1 + 1e-6) ||
            load_[l].busy_ps > static_cast<double>(now.picoseconds()) * (1 + 1e-9) + 1) {
            const DirectedLink d = DirectedLink::from_index(i);
            throw ModelError(
                fmt::format("invariant broken: link {} -> {} carries {:.6g} B/s of its {:.6g} B/s (busy {} ps "
                            "in {} ps)",
                            topology_.node(topology_.source(d)).name, topology_.node(topology_.target(d)).name,
                            load_[l].rate, c, load_[l].busy_ps, now.picoseconds()));
        }
    }
    if (sent_ != delivered_ + in_flight_ || in_flight_ < Bytes::zero())
        throw ModelError(fmt::format("invariant broken: {} B sent but {} B delivered and {} B in flight", sent_.count(),
                                     delivered_.count(), in_flight_.count()));
}

std::unique_ptr<Network> FlowNetwork::tuning_model() const {
    if (!spec_.cluster || spec_.cluster->ranks() < 1) return nullptr;
    Message m;
    m.src = RankId{0};
    m.dst = RankId{static_cast<std::uint32_t>(spec_.cluster->ranks() - 1)};
    m.size = Bytes::zero();
    if (m.src == m.dst) return nullptr;
    return std::make_unique<fabric::IdealNetwork>(*spec_.cluster, scenario::IdealNetworkSpec{unloaded_time(m)});
}

}  // namespace fabricsim::flow
