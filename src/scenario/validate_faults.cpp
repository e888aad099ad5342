// faults: a list of entries, each with exactly one kind key (faults_spec.hpp). Names of links
// and nodes are checked when the topology is built; here, the shape, the units and the ranges.
#include "core/units_format.hpp"
#include "scenario/faults_spec.hpp"
#include "scenario/field_readers.hpp"
#include "scenario/validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace fabricsim::scenario {

namespace {

const std::vector<std::string> kKinds{"link_down", "link_flap",      "link_degraded", "switch_down",
                                      "nic_down",  "stuck_receiver", "straggler"};

std::optional<double> parse_real(const std::string& t) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc{} || ptr != t.data() + t.size() || t.empty() || !std::isfinite(v)) return std::nullopt;
    return v;
}

constexpr Time kMaxFaultTime = Time::s(1'000'000);  // 11.6 days; four of them stay below 2^63 ps

struct Reader {
    const Node& map;
    std::string path;
    Issues& issues;
    bool ok = true;

    const Node* required(const char* key) {
        const Node* n = map.find(key);
        if (n == nullptr) {
            issues.add(map.location, key_path(path, key), "missing required key");
            ok = false;
        }
        return n;
    }
    void time(const char* key, Time& out, Zero zero) {
        if (const Node* n = map.find(key)) {
            if (auto t = read_time(*n, key_path(path, key), zero, issues); t && in_range(*n, key, *t))
                out = *t;
            else
                ok = false;
        }
    }
    // A fault's times are added to one another (at + for + reconverge, a flap's period after
    // period): each at most kMaxFaultTime keeps every sum inside 64-bit picoseconds.
    bool in_range(const Node& n, const char* key, Time t) {
        if (t <= kMaxFaultTime) return true;
        issues.add(n.location, key_path(path, key),
                   fmt::format("{} is beyond {}, the most a fault's times may reach", t, kMaxFaultTime));
        return false;
    }
    void node_name(std::string& out) {
        if (const Node* n = required("node")) {
            if (auto s = read_text(*n, key_path(path, "node"), issues))
                out = *s;
            else
                ok = false;
        }
    }
    void link(FaultSpec& f) {
        const Node* n = required("link");
        if (n == nullptr) return;
        if (!n->is_sequence() || n->items.size() != 2 || !n->items[0].is_scalar() || !n->items[1].is_scalar()) {
            issues.add(n->location, key_path(path, "link"),
                       fmt::format("expected the two nodes the link joins, e.g. [leaf0, spine1], found {}",
                                   describe_found(*n)));
            ok = false;
            return;
        }
        f.from = n->items[0].text;
        f.to = n->items[1].text;
        if (f.from == f.to) {
            issues.add(n->location, key_path(path, "link"),
                       fmt::format("both ends are \"{}\"; a link joins two nodes", f.from));
            ok = false;
        }
        if (const Node* p = map.find("parallel")) {
            if (auto v = read_int(*p, key_path(path, "parallel"), 0, 1 << 20, issues))
                f.parallel = static_cast<int>(*v);
            else
                ok = false;
        }
    }
    void real(const char* key, double& out, double min, bool min_open, double max, const char* expected) {
        const Node* n = map.find(key);
        if (n == nullptr) return;
        std::optional<double> v;
        if (n->is_scalar()) v = parse_real(n->text);
        if (!v || *v < min || (min_open && *v == min) || *v > max) {
            issues.add(n->location, key_path(path, key),
                       fmt::format("expected {}, found {}", expected, describe_found(*n)));
            ok = false;
            return;
        }
        out = *v;
    }
};

std::vector<std::string> keys_of(FaultKind kind) {
    switch (kind) {
        case FaultKind::link_down: return {"link", "parallel", "at", "for", "reconverge"};
        case FaultKind::link_flap: return {"link", "parallel", "at", "period", "down", "jitter", "until", "reconverge"};
        case FaultKind::link_degraded: return {"link", "parallel", "at", "for", "speed", "ber"};
        case FaultKind::switch_down:
        case FaultKind::nic_down: return {"node", "at", "for", "reconverge"};
        case FaultKind::stuck_receiver: return {"node", "at", "for"};
        case FaultKind::straggler: return {"rank", "at", "for", "slowdown"};
    }
    return {};
}

std::optional<FaultSpec> validate_fault(const Node& item, std::size_t index, const ClusterSpec* cluster,
                                        Issues& issues) {
    const std::string entry_path = index_path("faults", index);
    if (!item.is_mapping() || item.entries.size() != 1) {
        issues.add(item.location, entry_path,
                   fmt::format("expected one fault kind key ({}), found {}", join(kKinds), describe_found(item)));
        return std::nullopt;
    }
    const Entry& e = item.entries.front();
    const auto kind_name = read_choice(Node::scalar(e.key, e.key_location), entry_path, "fault kind", kKinds, issues);
    if (!kind_name) return std::nullopt;
    FaultSpec f;
    f.kind = static_cast<FaultKind>(std::find(kKinds.begin(), kKinds.end(), *kind_name) - kKinds.begin());
    f.name = fmt::format("{}{}", *kind_name, index);
    f.location = e.key_location;
    const std::string path = key_path(entry_path, *kind_name);
    const Node* map = read_section(e.value, path, issues);
    if (map == nullptr) return std::nullopt;
    check_keys(*map, path, keys_of(f.kind), issues);
    Reader r{*map, path, issues};
    if (r.required("at") != nullptr) r.time("at", f.at, Zero::allowed);
    if (f.kind != FaultKind::link_flap) r.time("for", f.duration, Zero::rejected);
    switch (f.kind) {
        case FaultKind::link_down:
            r.link(f);
            r.time("reconverge", f.reconverge, Zero::allowed);
            break;
        case FaultKind::link_flap:
            r.link(f);
            r.time("reconverge", f.reconverge, Zero::allowed);
            if (r.required("period") != nullptr) r.time("period", f.period, Zero::rejected);
            if (r.required("down") != nullptr) r.time("down", f.down, Zero::rejected);
            r.time("jitter", f.jitter, Zero::allowed);
            if (r.required("until") != nullptr) r.time("until", f.until, Zero::rejected);
            if (r.ok && f.down + f.jitter >= f.period) {
                issues.add(map->find("down")->location, key_path(path, "down"),
                           fmt::format("down ({}) plus jitter ({}) must be shorter than the period ({}), so that the "
                                       "link comes back between flaps",
                                       f.down, f.jitter, f.period));
                r.ok = false;
            }
            if (r.ok && f.until <= f.at) {
                issues.add(map->find("until")->location, key_path(path, "until"),
                           fmt::format("the flapping ends ({}) before it starts ({})", f.until, f.at));
                r.ok = false;
            }
            break;
        case FaultKind::link_degraded:
            r.link(f);
            if (const Node* n = map->find("speed")) {
                if (auto b = read_bandwidth(*n, key_path(path, "speed"), issues))
                    f.speed = *b;
                else
                    r.ok = false;
            }
            r.real("ber", f.ber, 0.0, false, 1e-3, "a bit error rate in [0, 1e-3] (e.g. 1e-7)");
            if (r.ok && !f.speed && f.ber == 0.0) {
                issues.add(map->location, path, "a degraded link needs a lower `speed`, a `ber` or both");
                r.ok = false;
            }
            break;
        case FaultKind::switch_down:
        case FaultKind::nic_down:
            r.node_name(f.node);
            r.time("reconverge", f.reconverge, Zero::allowed);
            break;
        case FaultKind::stuck_receiver:
            r.node_name(f.node);
            // Without an end the held packets would wait for ever (pause refreshes never stop).
            if (map->find("for") == nullptr) {
                issues.add(map->location, key_path(path, "for"),
                           "missing required key (how long the receiver stays stuck)");
                r.ok = false;
            }
            break;
        case FaultKind::straggler:
            if (const Node* n = r.required("rank")) {
                const std::int64_t ranks = cluster ? cluster->ranks() : (std::int64_t{1} << 30);
                if (auto v = read_int(*n, key_path(path, "rank"), 0, ranks - 1, issues))
                    f.rank = RankId{static_cast<RankId::rep>(*v)};
                else
                    r.ok = false;
            }
            if (r.required("slowdown") != nullptr)
                r.real("slowdown", f.slowdown, 1.0, false, 1e6,
                       "a factor of at least 1 (compute takes this many times longer)");
            break;
    }
    if (!r.ok) return std::nullopt;
    return f;
}

}  // namespace

std::string_view to_string(FaultKind kind) { return kKinds[static_cast<std::size_t>(kind)]; }

std::vector<FaultSpec> validate_faults(const Node& node, const ClusterSpec* cluster, bool packet_model,
                                       Issues& issues) {
    if (node.is_null()) return {};
    if (!node.is_sequence()) {
        issues.add(node.location, "faults", fmt::format("expected a list of faults, found {}", describe_found(node)));
        return {};
    }
    std::vector<FaultSpec> out;
    for (std::size_t i = 0; i < node.items.size(); ++i) {
        auto f = validate_fault(node.items[i], i, cluster, issues);
        if (!f) continue;
        if (!packet_model && f->kind != FaultKind::straggler) {
            issues.add(f->location, index_path("faults", i),
                       fmt::format("a {} fault needs the packet model (simulation.model: packet); the ideal and "
                                   "flow models have no packets or queues to lose, only a straggler",
                                   to_string(f->kind)));
            continue;
        }
        out.push_back(std::move(*f));
    }
    return out;
}

}  // namespace fabricsim::scenario
