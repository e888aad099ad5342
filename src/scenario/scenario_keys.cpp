// The top level of a scenario and its `cluster`, as key tables (key_table.hpp): what the docs'
// key tables, the JSON Schema and `validate --print` show of them. Each key of these tables
// reads its section with that section's reader (validate.hpp), in the table's order, since a
// section is checked against the ones before it (the workload against the cluster).
#include "scenario/validate.hpp"

#include "scenario/describe.hpp"
#include "scenario/key_types.hpp"
#include "scenario/workload_keys.hpp"

#include <limits>

namespace fabricsim::scenario {

namespace {

// With at most 1024 GPUs per server (server_keys.cpp), rank arithmetic stays far inside
// int (servers x gpus <= 2^30).
constexpr std::int64_t kMaxServers = 1'000'000;

using S = ScenarioSpec;
using Read = TopLevelRead;
using ReadFn = std::function<bool(const Node&, const std::string&, S&, Read&, Issues&)>;

// A top-level key read by `read` (a section's reader) and printed by `print`.
Key<S, Read> top(const char* name, TypeDoc type, const char* doc, ReadFn read, std::function<Value(const S&)> print) {
    return custom_key<S, Read>(name, std::move(type), kAllModels, doc, std::move(read), std::move(print));
}

// A key the loader takes out of the tree before it is read (`include`, `variants`).
Key<S, Read> loader_key(const char* name, TypeDoc type, const char* doc) {
    return top(
        name, std::move(type), doc, [](const Node&, const std::string&, S&, Read&, Issues&) { return true; },
        [](const S&) { return Value{}; });
}

// Value holds signed integers; a seed above INT64_MAX travels as its decimal text, which the
// loader reads back as the same unsigned number.
Value seed(std::uint64_t s) {
    if (s <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return Value{static_cast<std::int64_t>(s)};
    return Value{std::to_string(s)};
}

// A section of the cluster, read by validate_cluster() with what the sections before it say,
// whether it is written or not, and printed with `table`.
template <class Sub, class Ctx>
Key<ClusterSpec> part(const char* name, Sub ClusterSpec::*member, const Table<Sub, Ctx>& table, const char* doc) {
    unsigned consumers = 0;
    for (const KeyInfo& sub : table.TableInfo::keys) consumers |= sub.consumers;
    return {key_info(name, TypeDoc{"mapping", {"object"}}, doc, consumers, &table),
            [](const Node&, const std::string&, ClusterSpec&, NoContext&, Issues&, std::vector<std::string>&) {
                return true;
            },
            [member, &table](const ClusterSpec& c) { return print_table(table, c.*member); }};
}

}  // namespace

const Table<ClusterSpec>& cluster_table() {
    using C = ClusterSpec;
    static const Table<C> t{
        "cluster",
        {
            key("servers", &C::servers, integer(1, kMaxServers), kAllModels, "The number of servers."),
            part("server", &C::server, server_table(),
                 "The server model, the same for every server: a preset name (folder `servers/`) or a mapping."),
            part("fabric", &C::fabric, fabric_table(), "The compute fabric."),
            part("roce", &C::roce, roce_table(), "RoCEv2: PFC, ECN, DCQCN, the switch MMU and the queues."),
            part("infiniband", &C::infiniband, infiniband_table(),
                 "InfiniBand: virtual lanes, credits, VL arbitration, IB CC."),
            part("iwarp", &C::iwarp, iwarp_table(), "iWARP: the TCP offload engine of every NIC.")
                .printed_if([](const C& c) { return c.iwarp.enabled; }),
            part("storage_fabric", &C::storage_fabric, storage_fabric_table(),
                 "A separate storage fabric, or `none`; absent, storage traffic shares the compute fabric.")
                .shown_default("none")
                .printed_if([](const C& c) { return c.storage_fabric.enabled; }),
            part("storage", &C::storage, storage_table(), "Storage nodes on the compute fabric, or `none`.")
                .shown_default("none")
                .printed_if([](const C& c) { return c.storage.nodes > 0; }),
            part("clients", &C::clients, clients_table(), "CPU-only client hosts on the compute fabric, or `none`.")
                .shown_default("none")
                .printed_if([](const C& c) { return c.clients.nodes > 0; }),
        }};
    return t;
}

const Table<ScenarioSpec, TopLevelRead>& scenario_table() {
    static const Table<S, Read> t{
        "scenario",
        {
            key("name", &S::name, name_field(), kAllModels,
                "Names the run and its output folder (`results/<name>`, where leading dots become `_`: `..` writes to "
                "`results/__`). Letters, digits, `.`, `_`, `-`.")
                .required(),
            key("description", &S::description, text_field(), kAllModels, "Free text, copied into results.")
                .shown_default("`\"\"`"),
            top(
                "seed", TypeDoc{"unsigned 64-bit integer", {"integer"}, 0},
                "Seeds every random stream. `--seed N` replaces it.",
                [](const Node& n, const std::string& path, S& out, Read&, Issues& issues) {
                    return store(out.seed, read_uint64(n, path, issues));
                },
                [](const S& s) { return seed(s.seed); }),
            loader_key("include", TypeDoc{"path or list of paths", {"string", "array"}},
                       "Files merged underneath this one (see [Include](#include))."),
            section("simulation", &S::simulation, simulation_table(),
                    "The network model and its settings (see [Simulation](#simulation-simulation))."),
            top(
                "cluster", TypeDoc{"mapping", {"object"}},
                "The servers and the networks between them (see [Cluster](#cluster)).",
                [](const Node& n, const std::string&, S& out, Read& read, Issues& issues) {
                    auto [cluster, ranks_known] = validate_cluster(n, issues);
                    out.cluster = std::move(cluster);
                    read.cluster_known = ranks_known;
                    return true;
                },
                [](const S& s) { return print_table(cluster_table(), s.cluster); })
                .with_section(cluster_table())
                .required("missing required section"),
            top(
                "workload", TypeDoc{"non-empty list of entries", {"array"}},
                "What the cluster does (see [Workload](#workload)).",
                [](const Node& n, const std::string&, S& out, Read& read, Issues& issues) {
                    out.workload = validate_workload(n, read.cluster_known ? &out.cluster : nullptr, issues);
                    return true;
                },
                [](const S& s) { return describe_workload(s.workload); })
                .required("missing required section"),
            top(
                "faults", TypeDoc{"list of entries", {"array"}},
                "Things that go wrong during the run: failed, flapping or degraded links, failed switches and NICs, "
                "stuck receivers, slow GPUs (see [Faults](#faults)).",
                [](const Node& n, const std::string&, S& out, Read& read, Issues& issues) {
                    out.faults = validate_faults(n, read.cluster_known ? &out.cluster : nullptr,
                                                 out.simulation.model == NetworkModel::packet, issues);
                    return true;
                },
                // Only a scenario with faults has the section, so that others print as before.
                [](const S& s) { return s.faults.empty() ? Value{} : describe_faults(s.faults); }),
            loader_key("variants", TypeDoc{"mapping", {"object"}},
                       "Named sets of overrides, each a mapping of key paths to values (see [Variants](#variants)).")
                .shown_default("one variant, `default`"),
            section("outputs", &S::outputs, outputs_table(), "Result files (see [Outputs](#outputs-outputs))."),
        }};
    return t;
}

Value describe(const ScenarioSpec& spec) { return print_table(scenario_table(), spec); }

}  // namespace fabricsim::scenario
