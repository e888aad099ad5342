#include "fabric/packet/queue_sampler.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/units_format.hpp"
#include "fabric/packet/packet_network.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

namespace {

constexpr std::uint8_t kPaused = 1, kStalled = 2;

std::uint8_t flags_of(const PortQueueState& s) {
    return static_cast<std::uint8_t>((s.paused ? kPaused : 0) | (s.credit_stalled ? kStalled : 0));
}

}  // namespace

std::vector<std::uint32_t> resolve_queue_ports(const Topology& topology, const scenario::QueueOutputSpec& spec) {
    std::vector<std::uint32_t> out;
    const auto& nodes = topology.nodes();
    for (std::size_t i = 0; i < spec.ports.size(); ++i) {
        const std::string& name = spec.ports[i];
        const SourceLocation where = i < spec.port_locations.size() ? spec.port_locations[i] : spec.location;
        const std::string path = fmt::format("outputs.queues.ports[{}]", i);
        const auto arrow = name.find("->");
        const std::string ends[2] = {name.substr(0, arrow), name.substr(arrow + 2)};
        NodeId found[2];
        for (int e = 0; e < 2; ++e) {
            bool known = false;
            for (std::uint32_t n = 0; n < nodes.size() && !known; ++n)
                if (nodes[n].name == ends[e]) {
                    found[e] = NodeId{n};
                    known = true;
                }
            if (!known)
                throw ConfigError(ConfigIssue{where, path,
                                              fmt::format("\"{}\": no node is named \"{}\"; expected \"from->to\" with "
                                                          "node names as `fabricsim topo` lists them (e.g. "
                                                          "\"leaf0->s0.nic0\")",
                                                          name, ends[e])});
        }
        const Node& from = topology.node(found[0]);
        const std::size_t before = out.size();
        for (std::uint32_t p = 0; p < from.ports.size(); ++p)
            if (from.ports[p].peer == found[1]) out.push_back(topology.egress(found[0], p).index());
        if (out.size() == before)
            throw ConfigError(ConfigIssue{where, path,
                                          fmt::format("\"{}\": no link joins {} and {}; expected two nodes joined by "
                                                      "a link (`fabricsim topo` lists them)",
                                                      name, ends[0], ends[1])});
    }
    return out;
}

QueueSampler::QueueSampler(const PacketNetwork& network, const Topology& topology,
                           const scenario::QueueOutputSpec& spec, std::size_t max_rows)
    : network_(network),
      topology_(topology),
      interval_(spec.interval),
      top_(static_cast<std::size_t>(spec.top)),
      max_rows_(max_rows) {
    if (interval_ <= Time::zero()) throw InternalError("queue sampler: the interval must be positive");
    if (top_ == 0) {
        chosen_ = resolve_queue_ports(topology, spec);
    } else {
        deepest_.assign(topology.directed_link_count(), Bytes::zero());
        seen_.assign(topology.directed_link_count(), 0);
    }
}

void QueueSampler::arm(Simulator& sim) {
    if (pending_ || stopped_) return;
    // The next point of the grid k x interval at or after now.
    const std::int64_t k = (sim.now().picoseconds() + interval_.picoseconds() - 1) / interval_.picoseconds();
    pending_at_ = Time::ps(k * interval_.picoseconds());
    handle_ = sim.at(pending_at_, *this);
    pending_ = true;
}

void QueueSampler::idle(Simulator& sim) {
    if (pending_) {
        sim.cancel(handle_);
        pending_ = false;
    }
    if (!stopped_) sample(sim.now());
}

void QueueSampler::on_event(Simulator& sim, std::uint64_t /*arg*/) {
    pending_ = false;
    if (stopped_) return;
    sample(sim.now());
    if (!stopped_ && network_.packets_in_flight() > 0) {
        pending_at_ = sim.now() + interval_;
        handle_ = sim.at(pending_at_, *this);
        pending_ = true;
    }
}

void QueueSampler::sample(Time now) {
    if (!times_.empty() && times_.back() >= now) return;  // one sample per instant
    if (top_ == 0 || frozen_) {
        sample_dense(now);
        return;
    }
    times_.push_back(now);
    begin_.push_back(rows_.size());
    const auto ports = static_cast<std::uint32_t>(deepest_.size());
    for (std::uint32_t p = 0; p < ports; ++p) {
        const PortQueueState s = network_.port_queue_state(p);
        const std::uint8_t flags = flags_of(s);
        if (s.queued == Bytes::zero() && flags == 0) continue;
        rows_.push_back(Row{p, flags, s.queued});
        deepest_[p] = std::max(deepest_[p], s.queued);
        seen_[p] = 1;
    }
    if (rows_.size() >= max_rows_) freeze(now);
}

// Every chosen port, every sample; stops at the memory bound.
void QueueSampler::sample_dense(Time now) {
    if (rows_.size() + chosen_.size() > max_rows_) {
        stopped_ = true;
        warnings_.push_back(
            fmt::format("outputs.queues: the queue series hold {} rows, their bound; sampling stopped at "
                        "{} (a longer interval or fewer ports samples the whole run)",
                        rows_.size(), to_string(now)));
        return;
    }
    times_.push_back(now);
    begin_.push_back(rows_.size());
    for (const std::uint32_t p : chosen_) {
        const PortQueueState s = network_.port_queue_state(p);
        rows_.push_back(Row{p, flags_of(s), s.queued});
    }
}

// The top-N sampler is full: it keeps the rows of the N ports deepest so far and samples only
// those from here on.
void QueueSampler::freeze(Time now) {
    chosen_ = deepest();
    std::vector<std::uint8_t> keep(deepest_.size(), 0);
    for (const std::uint32_t p : chosen_) keep[p] = 1;
    std::size_t out = 0;
    for (std::size_t s = 0; s < begin_.size(); ++s) {
        const std::size_t end = s + 1 < begin_.size() ? begin_[s + 1] : rows_.size();
        const std::size_t first = out;
        for (std::size_t r = begin_[s]; r < end; ++r)
            if (keep[rows_[r].port] != 0) rows_[out++] = rows_[r];
        begin_[s] = first;
    }
    rows_.resize(out);
    rows_.shrink_to_fit();
    frozen_ = true;
    warnings_.push_back(fmt::format("outputs.queues.top: the sampled rows reached their bound ({}) at {}; the series "
                                    "are of the {} ports deepest until then",
                                    max_rows_, to_string(now), chosen_.size()));
}

std::vector<std::uint32_t> QueueSampler::deepest() const {
    std::vector<std::uint32_t> ports;
    for (std::uint32_t p = 0; p < seen_.size(); ++p)
        if (seen_[p] != 0) ports.push_back(p);
    const std::size_t n = std::min(top_, ports.size());
    std::partial_sort(ports.begin(), ports.begin() + static_cast<std::ptrdiff_t>(n), ports.end(),
                      [&](std::uint32_t a, std::uint32_t b) {
                          return deepest_[a] != deepest_[b] ? deepest_[a] > deepest_[b] : a < b;
                      });
    ports.resize(n);
    return ports;
}

std::string QueueSampler::port_name(std::uint32_t port) const {
    const DirectedLink d = DirectedLink::from_index(port);
    const NodeId from = topology_.source(d), to = topology_.target(d);
    // Parallel links between the same two nodes: the second is "#1", the third "#2", ...
    int parallel = 0;
    const Node& node = topology_.node(from);
    for (std::uint32_t p = 0; p < node.ports.size(); ++p) {
        const std::uint32_t idx = topology_.egress(from, p).index();
        if (idx == port) break;
        if (node.ports[p].peer == to) ++parallel;
    }
    std::string name = fmt::format("{}->{}", topology_.node(from).name, topology_.node(to).name);
    if (parallel > 0) name += fmt::format("#{}", parallel);
    return name;
}

std::vector<QueueSeries> QueueSampler::series() const {
    const std::vector<std::uint32_t> ports = top_ > 0 && !frozen_ ? deepest() : chosen_;
    std::vector<QueueSeries> out;
    std::vector<std::uint32_t> slot(topology_.directed_link_count(), UINT32_MAX);
    for (const std::uint32_t p : ports) {
        if (slot[p] != UINT32_MAX) continue;  // named twice: one series
        slot[p] = static_cast<std::uint32_t>(out.size());
        QueueSeries s;
        s.port = port_name(p);
        for (const Time t : times_) s.samples.push_back(QueueSample{t, Bytes::zero(), false, false});
        out.push_back(std::move(s));
    }
    for (std::size_t i = 0; i < begin_.size(); ++i) {
        const std::size_t end = i + 1 < begin_.size() ? begin_[i + 1] : rows_.size();
        for (std::size_t r = begin_[i]; r < end; ++r) {
            const Row& row = rows_[r];
            if (slot[row.port] == UINT32_MAX) continue;
            QueueSample& s = out[slot[row.port]].samples[i];
            s.queued = row.queued;
            s.paused = (row.flags & kPaused) != 0;
            s.credit_stalled = (row.flags & kStalled) != 0;
        }
    }
    return out;
}

}  // namespace fabricsim::fabric
