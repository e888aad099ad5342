#include "scenario/describe.hpp"

#include "core/units_format.hpp"
#include "scenario/describe_entries.hpp"
#include "scenario/describe_iwarp.hpp"
#include "scenario/fabric_keys.hpp"
#include "scenario/field_readers.hpp"
#include "scenario/host_keys.hpp"
#include "scenario/infiniband_keys.hpp"
#include "scenario/outputs_keys.hpp"
#include "scenario/roce_keys.hpp"
#include "scenario/server_keys.hpp"
#include "scenario/simulation_keys.hpp"

#include <limits>

namespace fabricsim::scenario {

namespace {

Value text(std::string s) { return Value{std::move(s)}; }
Value integer(std::int64_t v) { return Value{v}; }

Value cluster(const ClusterSpec& c) {
    Value::Map m{
        {"servers", integer(c.servers)},
        {"server", print_table(server_table(), c.server)},
        {"fabric", describe_fabric(c.fabric)},
        {"roce", describe_roce(c.roce)},
        {"infiniband", describe_infiniband(c.infiniband)},
    };
    if (c.iwarp.enabled) m.push_back({"iwarp", describe_iwarp(c.iwarp)});
    // Absent: storage traffic shares the compute fabric.
    if (c.storage_fabric.enabled) m.push_back({"storage_fabric", describe_storage_fabric(c.storage_fabric)});
    if (c.storage.nodes > 0) m.push_back({"storage", describe_storage(c.storage)});
    if (c.clients.nodes > 0) m.push_back({"clients", describe_clients(c.clients)});
    return Value{std::move(m)};
}

Value transfer(const TransferSpec& t) {
    return Value{Value::Map{
        {"from", integer(t.from.value())},
        {"to", integer(t.to.value())},
        {"size", text(to_string(t.size))},
        {"start", text(to_string(t.start))},
    }};
}

// The collective's parameters beside its kind key, as the user writes them.
void collective(const CollectiveSpec& c, Value::Map& m) {
    static constexpr const char* kOps[] = {"all_reduce", "all_gather", "reduce_scatter",
                                           "all_to_all", "broadcast",  "send_recv"};
    static constexpr const char* kAlgorithms[] = {"auto",     "ring", "tree",         "halving_doubling",
                                                  "pairwise", "nvls", "hierarchical", "sharp"};
    m.push_back({"collective", text(kOps[static_cast<int>(c.op)])});
    m.push_back({"algorithm", text(kAlgorithms[static_cast<int>(c.algorithm)])});
    if (c.sizes.size() == 1) {
        m.push_back({"size", text(to_string(c.sizes.front()))});
    } else {
        Value::List sizes;
        for (Bytes b : c.sizes) sizes.push_back(text(to_string(b)));
        m.push_back({"sizes", Value{std::move(sizes)}});
    }
    if (c.ranks.empty()) {
        m.push_back({"ranks", text("all")});
    } else {
        Value::List ranks;
        for (RankId r : c.ranks) ranks.push_back(integer(r.value()));
        m.push_back({"ranks", Value{std::move(ranks)}});
    }
    m.push_back({"iterations", integer(c.iterations)});
    m.push_back({"channels", c.channels == 0 ? text("auto") : integer(c.channels)});
    if (c.op == CollectiveOp::broadcast) m.push_back({"root", integer(c.root.value())});
}

Value workload(const std::vector<WorkloadEntry>& entries) {
    Value::List list;
    for (const auto& e : entries) {
        Value::Map m{{"name", text(e.name)}};
        if (!e.after.empty()) m.push_back({"after", text(e.after)});
        if (e.priority) m.push_back({"priority", Value{std::int64_t{*e.priority}}});
        if (const auto* t = std::get_if<TransferSpec>(&e.kind)) m.push_back({"transfer", transfer(*t)});
        if (const auto* c = std::get_if<CollectiveSpec>(&e.kind)) collective(*c, m);
        if (const auto* t = std::get_if<TrafficSpec>(&e.kind)) describe_traffic(*t, m);
        if (const auto* t = std::get_if<TrainingSpec>(&e.kind)) describe_training(*t, m);
        if (const auto* t = std::get_if<TraceSpec>(&e.kind)) {
            Value::Map trace{{"format", text("chakra")}, {"path", text(t->path)}};
            Value::List ranks;
            for (int r : t->ranks) ranks.push_back(integer(r));
            trace.push_back({"ranks", t->ranks.empty() ? text("all") : Value{std::move(ranks)}});
            trace.push_back({"algorithm", text(t->algorithm == CollectiveAlgorithm::ring ? "ring" : "auto")});
            trace.push_back({"channels", t->channels == 0 ? text("auto") : integer(t->channels)});
            m.push_back({"trace", Value{std::move(trace)}});
        }
        list.push_back(Value{std::move(m)});
    }
    return Value{std::move(list)};
}

// Value holds signed integers; a seed above INT64_MAX travels as its decimal text, which the
// loader reads back as the same unsigned number.
Value seed(std::uint64_t s) {
    if (s <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return integer(static_cast<std::int64_t>(s));
    return text(std::to_string(s));
}

}  // namespace

std::string_view name_of(TopologyKind t) {
    switch (t) {
        case TopologyKind::single_switch: return "single-switch";
        case TopologyKind::leaf_spine: return "leaf-spine";
        case TopologyKind::fat_tree: return "fat-tree";
        case TopologyKind::rail_optimized: return "rail-optimized";
        case TopologyKind::custom: return "custom";
    }
    return "leaf-spine";
}

std::string_view name_of(Technology t) { return t == Technology::infiniband ? "infiniband" : "roce"; }

std::string_view name_of(RoutingKind r) {
    switch (r) {
        case RoutingKind::automatic: return "auto";
        case RoutingKind::ecmp: return "ecmp";
        case RoutingKind::adaptive: return "adaptive";
        case RoutingKind::spray: return "spray";
        case RoutingKind::static_: return "static";
    }
    return "auto";
}

Value describe(const ScenarioSpec& spec) {
    Value out{Value::Map{
        {"name", text(spec.name)},
        {"description", text(spec.description)},
        {"seed", seed(spec.seed)},
        {"simulation", describe_simulation(spec.simulation)},
        {"cluster", cluster(spec.cluster)},
        {"workload", workload(spec.workload)},
        {"outputs", describe_outputs(spec.outputs)},
    }};
    // Only a scenario with faults has the section, so that others describe as before.
    if (!spec.faults.empty())
        std::get<Value::Map>(out.v).insert(std::get<Value::Map>(out.v).end() - 1,
                                           {"faults", describe_faults(spec.faults)});
    return out;
}

}  // namespace fabricsim::scenario
