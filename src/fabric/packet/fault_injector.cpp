#include "fabric/packet/fault_injector.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/units_format.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fabricsim::fabric {

namespace {

// faults[i].<kind>.<key>: the name is "<kind><i>".
std::string entry_path(const scenario::FaultSpec& f, const char* key) {
    const std::string_view kind = scenario::to_string(f.kind);
    return fmt::format("faults[{}].{}.{}", f.name.substr(kind.size()), kind, key);
}

NodeId find_node(const Topology& topology, const scenario::FaultSpec& f, const std::string& name, const char* key) {
    const auto& nodes = topology.nodes();
    for (std::uint32_t n = 0; n < nodes.size(); ++n)
        if (nodes[n].name == name) return NodeId{n};
    throw ConfigError(ConfigIssue{f.location, entry_path(f, key),
                                  fmt::format("no node is named \"{}\" (names as `fabricsim topo` lists them, e.g. "
                                              "\"leaf0\", \"spine1\", \"s0.nic0\")",
                                              name)});
}

FaultTargets resolve(const Topology& topology, const scenario::FaultSpec& spec) {
    using scenario::FaultKind;
    FaultTargets a;
    switch (spec.kind) {
        case FaultKind::link_down:
        case FaultKind::link_flap:
        case FaultKind::link_degraded: {
            const NodeId from = find_node(topology, spec, spec.from, "link");
            const NodeId to = find_node(topology, spec, spec.to, "link");
            std::vector<LinkId> between;
            for (const Port& p : topology.node(from).ports)
                if (p.peer == to) between.push_back(p.link);
            if (between.empty())
                throw ConfigError(ConfigIssue{spec.location, entry_path(spec, "link"),
                                              fmt::format("no link joins {} and {}", spec.from, spec.to)});
            if (static_cast<std::size_t>(spec.parallel) >= between.size())
                throw ConfigError(ConfigIssue{
                    spec.location, entry_path(spec, "parallel"),
                    fmt::format("{} and {} are joined by {} link{} (parallel 0..{}), found {}", spec.from, spec.to,
                                between.size(), between.size() == 1 ? "" : "s", between.size() - 1, spec.parallel)});
            a.links.push_back(between[static_cast<std::size_t>(spec.parallel)]);
            const Bandwidth line = topology.link(a.links.back()).bandwidth;
            if (spec.speed && *spec.speed >= line)
                throw ConfigError(
                    ConfigIssue{spec.location, entry_path(spec, "speed"),
                                fmt::format("{} is not below the link's line rate, {}", *spec.speed, line)});
            a.target = fmt::format("{} - {}", spec.from, spec.to);
            return a;
        }
        case FaultKind::switch_down:
        case FaultKind::nic_down:
        case FaultKind::stuck_receiver: {
            const NodeId n = find_node(topology, spec, spec.node, "node");
            const Node& node = topology.node(n);
            const bool sw = is_fabric_switch(node.kind);
            if (spec.kind == FaultKind::switch_down && !sw)
                throw ConfigError(
                    ConfigIssue{spec.location, entry_path(spec, "node"),
                                fmt::format("{} is a {}, not a fabric switch", spec.node, to_string(node.kind))});
            if (spec.kind != FaultKind::switch_down && sw)
                throw ConfigError(ConfigIssue{spec.location, entry_path(spec, "node"),
                                              fmt::format("{} is a switch; a {} names a NIC (or storage node, client) "
                                                          "on the fabric",
                                                          spec.node, scenario::to_string(spec.kind))});
            for (std::uint32_t port = 0; port < node.ports.size(); ++port) {
                const Link& l = topology.link(node.ports[port].link);
                if (l.type != LinkType::fabric && l.type != LinkType::storage_fabric) continue;
                a.links.push_back(node.ports[port].link);
                a.into.push_back(DirectedLink{node.ports[port].link, l.a == n});  // from its peer's side
            }
            if (a.links.empty())
                throw ConfigError(ConfigIssue{spec.location, entry_path(spec, "node"),
                                              fmt::format("{} has no fabric link", spec.node)});
            a.target = spec.node;
            return a;
        }
        case FaultKind::straggler: break;
    }
    return a;
}

}  // namespace

std::vector<FaultTargets> resolve_fault_targets(const Topology& topology,
                                                const std::vector<scenario::FaultSpec>& faults) {
    std::vector<FaultTargets> out;
    for (const auto& f : faults)
        if (f.kind != scenario::FaultKind::straggler) out.push_back(resolve(topology, f));
    return out;
}

FaultInjector::FaultInjector(const Topology& topology, FaultRouter& router, PacketNetwork& network,
                             std::vector<scenario::FaultSpec> faults)
    : topology_(topology), router_(router), network_(network) {
    std::vector<FaultTargets> targets = resolve_fault_targets(topology, faults);
    std::size_t next = 0;
    for (auto& spec : faults) {
        if (spec.kind == scenario::FaultKind::straggler) continue;
        FaultTargets& t = targets[next++];
        Active a;
        a.damage.name = spec.name;
        a.damage.kind = spec.kind;
        a.damage.at = spec.at;
        a.damage.target = std::move(t.target);
        a.links = std::move(t.links);
        a.stuck = std::move(t.into);
        a.spec = std::move(spec);
        faults_.push_back(std::move(a));
    }
}

void FaultInjector::schedule(Simulator& sim, Time at, std::uint32_t f, Action action) {
    sim.at(std::max(at, sim.now()), *this, (std::uint64_t{f} << 2) | action);
}

// A fault due now strikes at once, before the workload sends anything: a fabric that starts
// with a link down (and, with reconverge: 0, routes that already avoid it).
void FaultInjector::start(Simulator& sim) {
    for (std::uint32_t f = 0; f < faults_.size(); ++f) {
        if (faults_[f].spec.at <= sim.now())
            strike(sim, f);
        else
            schedule(sim, faults_[f].spec.at, f, kStrike);
    }
}

void FaultInjector::on_event(Simulator& sim, std::uint64_t arg) {
    const auto f = static_cast<std::uint32_t>(arg >> 2);
    switch (static_cast<Action>(arg & 3)) {
        case kStrike: strike(sim, f); return;
        case kRecover: recover(sim, f); return;
        case kReconverge:
            router_.reconverge();
            if (faults_[f].damage.reconverged == Time::max()) faults_[f].damage.reconverged = sim.now();
            return;
    }
    throw InternalError("faults: unknown event");
}

void FaultInjector::strike(Simulator& sim, std::uint32_t f) {
    using scenario::FaultKind;
    Active& a = faults_[f];
    const scenario::FaultSpec& s = a.spec;
    if (++a.damage.times_down == 1) a.damage.at = sim.now();
    Time recover_at = s.end();
    switch (s.kind) {
        case FaultKind::link_degraded:
            for (LinkId l : a.links) network_.degrade_link(l, s.speed.value_or(topology_.link(l).bandwidth), s.ber);
            break;
        case FaultKind::stuck_receiver:
            for (DirectedLink d : a.stuck) network_.set_stuck(sim, d, true);
            break;
        case FaultKind::link_flap: recover_at = sim.now() + s.down; [[fallthrough]];
        case FaultKind::link_down:
        case FaultKind::switch_down:
        case FaultKind::nic_down:
            for (LinkId l : a.links) {
                router_.set_physical(l, false);
                network_.set_link_up(sim, l, false);
            }
            if (s.reconverge == Time::zero())
                on_event(sim, (std::uint64_t{f} << 2) | kReconverge);
            else
                schedule(sim, sim.now() + s.reconverge, f, kReconverge);
            break;
        case FaultKind::straggler: break;
    }
    if (recover_at != Time::max()) schedule(sim, recover_at, f, kRecover);
}

void FaultInjector::recover(Simulator& sim, std::uint32_t f) {
    using scenario::FaultKind;
    Active& a = faults_[f];
    const scenario::FaultSpec& s = a.spec;
    a.damage.end = sim.now();
    switch (s.kind) {
        case FaultKind::link_degraded:
            for (LinkId l : a.links) network_.degrade_link(l, topology_.link(l).bandwidth, 0.0);
            return;
        case FaultKind::stuck_receiver:
            for (DirectedLink d : a.stuck) network_.set_stuck(sim, d, false);
            return;
        case FaultKind::link_down:
        case FaultKind::link_flap:
        case FaultKind::switch_down:
        case FaultKind::nic_down:
            for (LinkId l : a.links) {
                router_.set_physical(l, true);
                network_.set_link_up(sim, l, true);
            }
            schedule(sim, sim.now() + s.reconverge, f, kReconverge);
            break;
        case FaultKind::straggler: return;
    }
    if (s.kind != FaultKind::link_flap) return;
    // The next flap: one period after this one's nominal start, moved by up to ±jitter.
    const Time nominal = s.at + s.period * (a.damage.times_down);
    Time next = nominal;
    if (s.jitter > Time::zero()) {
        if (rng_ == nullptr) rng_ = &sim.rng("faults/flap");
        const auto span = static_cast<std::uint64_t>(2 * s.jitter.picoseconds() + 1);
        next = nominal - s.jitter + Time::ps(static_cast<std::int64_t>(rng_->below(span)));
    }
    if (next < s.until) schedule(sim, next, f, kStrike);
}

std::vector<FaultDamage> FaultInjector::damage() const {
    std::vector<FaultDamage> out;
    for (const Active& a : faults_) {
        FaultDamage d = a.damage;
        if (d.times_down == 0) d.at = a.spec.at;  // not reached within the run
        for (LinkId l : a.links) d.packets_lost += network_.fault_losses(l);
        out.push_back(std::move(d));
    }
    return out;
}

}  // namespace fabricsim::fabric
