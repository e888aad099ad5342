// faults: a list of entries, each with exactly one kind key whose value holds the keys of that
// kind (faults_spec.hpp), one declaration per key. Names of links and nodes are checked when
// the topology is built; here, the shape, the units and the ranges. Every time is held to
// 10^6 s by the time fields (input_limits.hpp), so that a fault's sums (at + for + reconverge, a
// flap's period after period) stay inside 64-bit picoseconds.
#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/key_types.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fabricsim::scenario {

namespace {

using S = FaultSpec;

const std::vector<std::string> kKinds{"link_down", "link_flap",      "link_degraded", "switch_down",
                                      "nic_down",  "stuck_receiver", "straggler"};
constexpr std::int64_t kMaxRanks = std::int64_t{1} << 30;

// The keys of each kind, in the order the master table declares them.
std::vector<std::string> keys_of(FaultKind kind) {
    switch (kind) {
        case FaultKind::link_down: return {"at", "link", "parallel", "for", "reconverge"};
        case FaultKind::link_flap: return {"at", "link", "parallel", "reconverge", "period", "down", "jitter", "until"};
        case FaultKind::link_degraded: return {"at", "link", "parallel", "for", "speed", "ber"};
        case FaultKind::switch_down:
        case FaultKind::nic_down: return {"at", "node", "for", "reconverge"};
        case FaultKind::stuck_receiver: return {"at", "node", "for"};
        case FaultKind::straggler: return {"at", "for", "rank", "slowdown"};
    }
    return {};
}

// A number in [min, max]; `expected` says what it is.
Field<double> real(double min, double max, std::string type, const char* expected) {
    return parsed<double>(
        TypeDoc{std::move(type), {"number"}},
        [min, max](const std::string& s) -> std::optional<double> {
            const auto v = parse_number(s);
            return v && *v >= min && *v <= max ? v : std::nullopt;
        },
        expected);
}

// The link between two nodes: [from, to].
bool read_link(const Node& n, const std::string& path, S& out, NoContext&, Issues& issues) {
    if (!n.is_sequence() || n.items.size() != 2 || !n.items[0].is_scalar() || !n.items[1].is_scalar()) {
        add_expected(issues, n, path, "the two nodes the link joins, e.g. [leaf0, spine1]");
        return false;
    }
    out.from = n.items[0].text;
    out.to = n.items[1].text;
    if (out.from != out.to) return true;
    issues.add(n.location, path, "both ends are \"{}\"; a link joins two nodes", out.from);
    return false;
}

Field<std::optional<Bandwidth>> lower_rate() {
    Field<std::optional<Bandwidth>> f = optional_of(rate());
    f.doc.text = "rate below the link's";
    return f;
}

}  // namespace

const Table<S>& faults_table() {
    static const Table<S> t{
        "faults",
        {
            key("at", &S::at, time(Zero::allowed), kAllModels,
                "All kinds: when the fault strikes (a flapping link: its first flap).")
                .required(),
            custom_key<S>("link", TypeDoc{"`[node, node]`", {"array"}}, kPacket,
                          "`link_down`, `link_flap`, `link_degraded`: the link between the two nodes.", read_link,
                          [](const S& f) {
                              return Value{Value::List{Value{f.from}, Value{f.to}}};
                          })
                .required(),
            key("parallel", &S::parallel, integer(0, 1 << 20), kPacket,
                "The link kinds: which of several parallel links between them (0 first)."),
            key("node", &S::node, text_field(), kPacket,
                "`switch_down`, `nic_down`, `stuck_receiver`: a fabric switch (`switch_down`: all its links fail) or "
                "a NIC or other fabric endpoint (`nic_down`: its fabric links fail; `stuck_receiver`: the switch "
                "ports into it stop sending).")
                .required(),
            key("for", &S::duration, time(Zero::rejected), kAllModels,
                "All kinds but `link_flap`: how long it lasts; then the link, switch or NIC is back, the receiver "
                "drains, the GPU is at full speed. Required for `stuck_receiver`.")
                .printed_if([](const S& f) { return f.duration != Time::max(); })
                .shown_default("to the end"),
            key("reconverge", &S::reconverge, time(Zero::allowed), kPacket,
                "`link_down`, `link_flap`, `switch_down`, `nic_down`: routing converges around a failure (and back "
                "after a recovery) this long after it: ECMP groups drop the lost members. On InfiniBand, the subnet "
                "manager's sweep delay."),
            key("period", &S::period, time(Zero::rejected), kPacket,
                "`link_flap`: the link goes down for `down` every `period`.")
                .required(),
            key("down", &S::down, time(Zero::rejected), kPacket,
                "`link_flap`: how long each flap lasts; `down` + `jitter` must be below `period`.")
                .required(),
            key("jitter", &S::jitter, time(Zero::allowed), kPacket,
                "`link_flap`: each flap after the first starts up to ± this far from its nominal time, drawn from "
                "the seed."),
            key("until", &S::until, time(Zero::rejected), kPacket, "`link_flap`: no flap starts after this (> `at`).")
                .required(),
            key("speed", &S::speed, lower_rate(), kPacket,
                "`link_degraded`: the link's lower line rate, both directions.")
                .shown_default("unchanged"),
            key("ber", &S::ber, real(0, 1e-3, "number in [0, 1e-3]", "a bit error rate in [0, 1e-3] (e.g. 1e-7)"),
                kPacket,
                "`link_degraded`: bit error rate; a packet of b bits is dropped with probability 1 − (1 − ber)^b. "
                "One of `speed` and `ber` is required."),
            custom_key<S>(
                "rank", TypeDoc{"rank", {"integer"}, 0, kMaxRanks - 1, {}}, kAllModels,
                "`straggler`: the GPU that slows down.",
                [](const Node& n, const std::string& path, S& out, NoContext&, Issues& issues) {
                    const auto v = read_int(n, path, 0, kMaxRanks - 1, issues);
                    if (v) out.rank = RankId{static_cast<RankId::rep>(*v)};
                    return v.has_value();
                },
                [](const S& f) { return Value{std::int64_t{f.rank.value()}}; })
                .required(),
            key("slowdown", &S::slowdown,
                real(1, 1e6, "number ≥ 1", "a factor of at least 1 (compute takes this many times longer)"), kAllModels,
                "`straggler`: its compute takes this many times longer while the fault lasts.")
                .required(),
        }};
    return t;
}

namespace {

// Each kind's keys, taken from the master table.
const Table<S>& kind_table(FaultKind kind) {
    static const std::vector<Table<S>> tables = [] {
        std::vector<Table<S>> out;
        for (std::size_t i = 0; i < kKinds.size(); ++i) {
            std::vector<Key<S>> keys;
            for (const std::string& name : keys_of(static_cast<FaultKind>(i)))
                for (const auto& k : faults_table().keys_)
                    if (k.info.name == name) keys.push_back(k);
            out.emplace_back(key_path("faults", kKinds[i]), std::move(keys));
        }
        return out;
    }();
    return tables[static_cast<std::size_t>(kind)];
}

// The checks across a kind's keys, once each was read without an issue.
bool check_fault(const S& f, const SectionRead& r, const std::string& path, const ClusterSpec* cluster,
                 Issues& issues) {
    const std::size_t before = issues.size();
    if (f.kind == FaultKind::link_flap && f.down + f.jitter >= f.period)
        issues.add(r.given("down")->location, key_path(path, "down"),
                   "down ({}) plus jitter ({}) must be shorter than the period ({}), so that the link "
                   "comes back between flaps",
                   f.down, f.jitter, f.period);
    else if (f.kind == FaultKind::link_flap && f.until <= f.at)
        issues.add(r.given("until")->location, key_path(path, "until"), "the flapping ends ({}) before it starts ({})",
                   f.until, f.at);
    if (f.kind == FaultKind::link_degraded && !f.speed && f.ber == 0.0)
        issues.add(r.map->location, path, "a degraded link needs a lower `speed`, a `ber` or both");
    if (f.kind == FaultKind::straggler && cluster != nullptr)
        read_int(*r.given("rank"), key_path(path, "rank"), 0, cluster->ranks() - 1, issues);
    return issues.size() == before;
}

std::optional<FaultSpec> validate_fault(const Node& item, std::size_t index, const ClusterSpec* cluster,
                                        Issues& issues) {
    const std::string entry_path = index_path("faults", index);
    if (!item.is_mapping() || item.entries.size() != 1)
        return issues.reject(item.location, entry_path, "expected one fault kind key ({}), found {}", join(kKinds),
                             describe_found(item));
    const Entry& e = item.entries.front();
    const auto kind_name = read_choice(Node::scalar(e.key, e.key_location), entry_path, "fault kind", kKinds, issues);
    if (!kind_name) return std::nullopt;
    FaultSpec f;
    f.kind = static_cast<FaultKind>(std::find(kKinds.begin(), kKinds.end(), *kind_name) - kKinds.begin());
    f.name = fmt::format("{}{}", *kind_name, index);
    f.location = e.key_location;
    const std::string path = key_path(entry_path, *kind_name);
    const SectionRead r = read_table(e.value, path, kind_table(f.kind), f, issues);
    if (r.map == nullptr) return std::nullopt;
    // Without an end the held packets would wait for ever (pause refreshes never stop).
    const bool endless = f.kind == FaultKind::stuck_receiver && r.given("for") == nullptr;
    if (endless)
        issues.add(r.map->location, key_path(path, "for"), "missing required key (how long the receiver stays stuck)");
    if (!r.failed.empty() || endless || !check_fault(f, r, path, cluster, issues)) return std::nullopt;
    return f;
}

}  // namespace

std::string_view to_string(FaultKind kind) { return kKinds[static_cast<std::size_t>(kind)]; }

std::vector<FaultSpec> validate_faults(const Node& node, const ClusterSpec* cluster, bool packet_model,
                                       Issues& issues) {
    if (node.is_null()) return {};
    if (!node.is_sequence()) {
        add_expected(issues, node, "faults", "a list of faults");
        return {};
    }
    std::vector<FaultSpec> out;
    for (std::size_t i = 0; i < node.items.size(); ++i) {
        auto f = validate_fault(node.items[i], i, cluster, issues);
        if (!f) continue;
        if (!packet_model && f->kind != FaultKind::straggler) {
            issues.add(f->location, index_path("faults", i),
                       "a {} fault needs the packet model (simulation.model: packet); the ideal and "
                       "flow models have no packets or queues to lose, only a straggler",
                       to_string(f->kind));
            continue;
        }
        out.push_back(std::move(*f));
    }
    return out;
}

Value describe_faults(const std::vector<FaultSpec>& faults) {
    Value::List list;
    for (const FaultSpec& f : faults)
        list.push_back(Value{Value::Map{{std::string(to_string(f.kind)), print_table(kind_table(f.kind), f)}}});
    return Value{std::move(list)};
}

}  // namespace fabricsim::scenario
