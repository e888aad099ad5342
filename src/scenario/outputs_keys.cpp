// outputs: the result files, one declaration per key.
#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/key_types.hpp"

#include <algorithm>

namespace fabricsim::scenario {

namespace {

constexpr std::int64_t kTopMax = 100'000;

// formats: a list of distinct formats.
Field<std::vector<OutputFormat>> formats() {
    return {TypeDoc{"list of `json`, `csv`", {"array"}},
            [](const Node& n, const std::string& path, Issues& issues) -> std::optional<std::vector<OutputFormat>> {
                if (!n.is_sequence()) return add_expected(issues, n, path, "a list of formats (json, csv)");
                std::vector<OutputFormat> out;
                for (std::size_t i = 0; i < n.items.size(); ++i) {
                    const std::string at = index_path(path, i);
                    const auto name = read_choice(n.items[i], at, "format", {"json", "csv"}, issues);
                    if (!name) continue;
                    const OutputFormat f = *name == "json" ? OutputFormat::json : OutputFormat::csv;
                    if (std::find(out.begin(), out.end(), f) != out.end()) {
                        issues.add(n.items[i].location, at, "\"{}\" is listed twice", *name);
                        continue;
                    }
                    out.push_back(f);
                }
                return out;
            },
            [](const std::vector<OutputFormat>& list) {
                return list_value(
                    list, [](OutputFormat f) { return Value{std::string(f == OutputFormat::json ? "json" : "csv")}; });
            }};
}

// ports: "from->to", each naming every link from node `from` to `to`; the names are checked
// against the topology when it is built (queue_sampler.cpp).
bool read_ports(const Node& n, const std::string& path, QueueOutputSpec& out, NoContext&, Issues& issues) {
    if (!n.is_sequence() || n.items.empty()) {
        issues.add(n.location, path,
                   "expected a list of one or more ports \"from->to\" (e.g. \"leaf0->s0.nic0\"), found {}",
                   describe_found(n));
        return false;
    }
    bool read = true;
    for (std::size_t i = 0; i < n.items.size(); ++i) {
        const Node& item = n.items[i];
        const std::string at = index_path(path, i);
        const auto name = read_text(item, at, issues);
        if (!name) {
            read = false;
            continue;
        }
        const auto arrow = name->find("->");
        if (arrow == std::string::npos || arrow == 0 || arrow + 2 >= name->size() ||
            name->find("->", arrow + 2) != std::string::npos) {
            issues.add(item.location, at,
                       "\"{}\" is not a port; expected \"from->to\", two node names as `fabricsim topo` "
                       "lists them (e.g. \"leaf0->s0.nic0\")",
                       *name);
            read = false;
            continue;
        }
        out.ports.push_back(*name);
        out.port_locations.push_back(item.location);
    }
    return read;
}

Value print_ports(const QueueOutputSpec& q) {
    return list_value(q.ports, [](const std::string& p) { return Value{p}; });
}

const Table<QueueOutputSpec>& queues_table() {
    using S = QueueOutputSpec;
    static const Table<S> t{
        "outputs.queues",
        {
            custom_key<S>("ports", TypeDoc{"list of `\"from->to\"`", {"array"}}, kPacket,
                          "The ports to sample: `\"leaf0->s0.nic0\"` is the egress port of `leaf0` toward `s0.nic0` "
                          "(node names as `fabricsim topo` lists them); parallel links between the two nodes are "
                          "each sampled (`#1`, `#2`, … in the output). A name that is no node, or two nodes no link "
                          "joins, is an error at that entry. Exactly one of `ports` and `top`.",
                          read_ports, print_ports)
                .printed_if([](const S& s) { return s.top == 0; }),
            key("top", &S::top, integer(1, kTopMax), kPacket,
                "Instead of `ports`: the N ports whose sampled queue got deepest over the run, deepest first.")
                .printed_if([](const S& s) { return s.top > 0; }),
            key("interval", &S::interval, time(Zero::rejected), kPacket,
                "Sampling period: a sample at every multiple of it while packets are in the network, and "
                "one when it falls idle.")
                .shown_default("`10us`"),
        }};
    return t;
}

// outputs.queues: {ports: [...] | top: N, interval}; nothing sampled after an issue.
bool read_queues(const Node& n, const std::string& path, OutputsSpec& out, NoContext& none, Issues& issues) {
    QueueOutputSpec q;
    q.interval = Time::us(10);
    const SectionRead r = read_table(n, path, queues_table(), q, none, issues);
    if (r.map == nullptr) return false;
    q.location = r.map->location;
    const bool ports = r.given("ports") != nullptr;
    if (ports == (r.given("top") != nullptr)) {
        issues.add(r.map->location, path,
                   ports ? "has both ports and top; expected one of them"
                         : "names no ports; expected `ports: [\"from->to\", ...]` or `top: N`");
        return false;
    }
    if (!r.failed.empty()) return false;
    out.queues = std::move(q);
    return true;
}

}  // namespace

const Table<OutputsSpec>& outputs_table() {
    using S = OutputsSpec;
    static const Table<S> t{
        "outputs",
        {
            key("dir", &S::dir, text_field(), kAllModels,
                "Results folder. `\"\"` means `results/<name>`; the CLI's `--out` wins.")
                .shown_default("`\"\"`"),
            key("formats", &S::formats, formats(), kAllModels,
                "Files written to the results folder. Each format at most once."),
            key("qp_rates", &S::qp_rates, keyword_for(time(Zero::rejected), "off", Time::zero(), "time > 0, or `off`"),
                kPacket,
                "Packet model with DCQCN or IB CC: each QP's rate (and IB CC's CCTI), sampled on change at most this "
                "often, into `qp_rates.csv` (with `csv`)."),
            key("timeline", &S::timeline, boolean(), kAllModels,
                "Write `timeline.json`: every op of the trace, transfer and traffic entries with its simulated "
                "start and end, one track per rank, in Chrome's trace-event format (Perfetto, `chrome://tracing`; "
                "docs/models/traces.md).")
                .printed_if([](const S& s) { return s.timeline; }),
            custom_key<S>("queues", TypeDoc{"mapping", {"object"}}, kPacket,
                          "Packet model only (with the ideal model it is an error): queue time series into "
                          "`queues.csv` (with `csv`), see [Queue time series](#queue-time-series).",
                          read_queues,
                          [](const S& s) {
                              return s.queues.interval > Time::zero() ? print_table(queues_table(), s.queues) : Value{};
                          })
                .with_section(queues_table()),
        }};
    return t;
}

}  // namespace fabricsim::scenario
