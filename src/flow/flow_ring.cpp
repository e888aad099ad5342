// A ring collective's channel as one flow (Offload::ring_channel; docs/models/flow.md, "Rings
// as one flow").
//
// A channel whose every ring step is one message (a training job's TP and DP rings: one loop)
// is steps messages of about b = egress / steps bytes per connection, connection i (rank i to
// rank i+1) sending its step k when the block of step k − 1 from rank i − 1 has arrived. Sent
// as messages that is steps · n flows; here it is one solver flow over the links of all n
// connections (each QP part's links at share 1/qps, summed where connections meet): at rate r
// every connection moves r bytes/s: the chain of steps keeps a ring's connections together,
// each carrying the same bytes in the same time.
//
// Time. Alone, step k of connection i takes t_i = L_i + b / R_i: L_i its message's latency
// (per-hop latency, pipeline fill and the queueing estimate, as send() prices a message), R_i
// its rate (the least capacity / ring load over its links, its stripe cap). A chain of steps
// moves on by one connection per step, so the last block arrives after the longest run of
// `steps` consecutive connections:
//
//   T = max_s Σ_{k<steps} t_{(s+k) mod n} = ⌊steps/n⌋ · Σ_i t_i + max_s Σ_{k < steps mod n} t_{(s+k) mod n}
//
// Every connection carries about egress bytes in that time, so the ring's average load on each
// of its links is egress / T: the flow is capped there, and alone it ends at T. A ring whose
// steps wait on latency (small blocks) loads its links only part of the time; as one flow at
// that average, rings that meet on a link slow each other only when their averages add up to
// more than the link, as messages mostly interleave. A ring that other traffic slows below its
// cap takes egress / r: its steps' latencies are then taken as hidden behind others' bytes,
// which is exact when the link stays busy and short by up to steps · L when rings run in
// lockstep (measured in docs/models/flow.md).
//
// Approximations (measured in docs/models/flow.md): the channel starts when its last member
// opens (messages would let early members' first steps start before); its alone-time is fixed
// at the start; connections of one ring keep one average rate.
#include "flow/flow_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace fabricsim::flow {

using fabric::FlowKey;
using fabric::NodeId;

bool FlowNetwork::offers_ring(std::span<const RankId> ranks) const {
    // The coupled overlay keeps a congestion state per queue pair, which one flow of a whole
    // ring does not have: there rings run as messages.
    if (congestion_ || !spec_.ring_channels) return false;
    const auto total = static_cast<std::uint32_t>(topology_.ranks().size());
    return std::all_of(ranks.begin(), ranks.end(), [&](RankId r) { return r.value() < total; });
}

void FlowNetwork::start_ring(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) {
    const std::size_t n = op.ranks.size();
    const double bytes = static_cast<double>(op.egress.count());
    Message m;
    m.id = op.id;
    m.size = Bytes::zero();
    if (op.steps == 0 || bytes <= 0) {
        sim.after(Time::zero(), *this, kDeliverBase + new_message(m, listener, 0, Time::zero()));
        return;
    }
    const double block = bytes / op.steps;
    const auto block_bytes = std::max<std::int64_t>(1, (op.egress.count() + op.steps - 1) / op.steps);
    // The connections' uses, merged per link, and each connection's step latency and cap.
    struct Connection {
        std::size_t first, last;  // its parts' uses in ring_uses_
        Time latency;
        double cap;
    };
    std::vector<Connection> connections(n);
    ring_uses_.clear();
    double cap = kUncapped;
    std::uint32_t unit_max = 1;
    for (std::size_t i = 0; i < n; ++i) {
        const NodeId src = endpoint(op.ranks[i]), dst = endpoint(op.ranks[(i + 1) % n]);
        if (src == dst) throw InternalError("flow model: a ring step from a node to itself");
        const ServerId a = topology_.node(src).server, b = topology_.node(dst).server;
        const bool inside = a.valid() && a == b;
        const std::uint32_t qps = inside ? 1u : static_cast<std::uint32_t>(std::max(1, spec_.qps_per_connection));
        const auto unit =
            static_cast<std::uint32_t>(std::min((inside ? spec_.segment : spec_.mtu).count(), block_bytes));
        unit_max = std::max(unit_max, unit);
        Connection& c = connections[i];
        c.first = ring_uses_.size();
        c.latency = Time::zero();
        c.cap = kUncapped;
        for (std::uint32_t j = 0; j < qps; ++j) {
            Route& r = route(qp_key(src, dst, inside, qps, op.flow_hint, j));
            c.latency = std::max(c.latency, route_latency(r, unit) + queueing_delay(r.hops, unit));
            c.cap = std::min(c.cap, qps * stripe_cap(r.candidates, r.bottleneck, block / qps, unit));
            for (const LinkUse& u : r.uses) ring_uses_.push_back({u.link, u.share / qps});
        }
        c.last = ring_uses_.size();
        cap = std::min(cap, c.cap);
    }
    // Per link: the ring's load per unit of its rate (Σ shares).
    merged_uses_.assign(ring_uses_.begin(), ring_uses_.end());
    // In the topology's order of the links (the order of the flow's uses sets the order of
    // the solver's sums: the numbering must not move them).
    std::sort(merged_uses_.begin(), merged_uses_.end(),
              [&](const LinkUse& x, const LinkUse& y) { return topology_link_[x.link] < topology_link_[y.link]; });
    std::size_t kept = 0;
    for (const LinkUse& u : merged_uses_) {
        if (kept > 0 && merged_uses_[kept - 1].link == u.link)
            merged_uses_[kept - 1].share += u.share;
        else
            merged_uses_[kept++] = u;
    }
    merged_uses_.resize(kept);
    const auto load = [&](std::uint32_t link) {
        const auto it = std::lower_bound(merged_uses_.begin(), merged_uses_.end(), topology_link_[link],
                                         [&](const LinkUse& u, std::uint32_t l) { return topology_link_[u.link] < l; });
        return it->share;
    };
    // Alone: each connection's rate, its step time, and the longest run of `steps` of them.
    std::vector<double> step_ps(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Connection& c = connections[i];
        double rate = c.cap;
        for (std::size_t k = c.first; k < c.last; ++k) {
            const std::uint32_t l = ring_uses_[k].link;
            rate = std::min(rate, solver_.capacity(l) / load(l));
        }
        step_ps[i] = static_cast<double>(c.latency.picoseconds()) + block / rate * 1e12;
    }
    const std::size_t turns = op.steps / n, rest = op.steps % n;
    double all = 0, window = 0;
    for (std::size_t i = 0; i < n; ++i) all += step_ps[i];
    for (std::size_t k = 0; k < rest; ++k) window += step_ps[k];
    double longest = window;
    for (std::size_t s = 1; s < n && rest > 0; ++s) {
        window += step_ps[(s + rest - 1) % n] - step_ps[s - 1];
        longest = std::max(longest, window);
    }
    const double path_ps = static_cast<double>(turns) * all + longest;
    cap = std::min(cap, bytes / (path_ps * 1e-12));
    const std::uint32_t slot = new_message(m, listener, 1, Time::zero());
    start_solver_flow(sim, slot, bytes, cap, merged_uses_, unit_max, kNoGate);
}

}  // namespace fabricsim::flow
