#include "scenario/describe.hpp"

#include "core/units_format.hpp"
#include "scenario/fabric_keys.hpp"
#include "scenario/faults_keys.hpp"
#include "scenario/field_readers.hpp"
#include "scenario/host_keys.hpp"
#include "scenario/infiniband_keys.hpp"
#include "scenario/iwarp_keys.hpp"
#include "scenario/outputs_keys.hpp"
#include "scenario/roce_keys.hpp"
#include "scenario/server_keys.hpp"
#include "scenario/simulation_keys.hpp"
#include "scenario/workload_keys.hpp"

#include <limits>

namespace fabricsim::scenario {

namespace {

Value text(std::string s) { return Value{std::move(s)}; }
Value integer(std::int64_t v) { return Value{v}; }

Value cluster(const ClusterSpec& c) {
    Value::Map m{
        {"servers", integer(c.servers)},
        {"server", print_table(server_table(), c.server)},
        {"fabric", print_table(fabric_table(), c.fabric)},
        {"roce", describe_roce(c.roce)},
        {"infiniband", print_table(infiniband_table(), c.infiniband)},
    };
    if (c.iwarp.enabled) m.push_back({"iwarp", print_table(iwarp_table(), c.iwarp)});
    // Absent: storage traffic shares the compute fabric.
    if (c.storage_fabric.enabled)
        m.push_back({"storage_fabric", print_table(storage_fabric_table(), c.storage_fabric)});
    if (c.storage.nodes > 0) m.push_back({"storage", print_table(storage_table(), c.storage)});
    if (c.clients.nodes > 0) m.push_back({"clients", print_table(clients_table(), c.clients)});
    return Value{std::move(m)};
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
        {"simulation", print_table(simulation_table(), spec.simulation)},
        {"cluster", cluster(spec.cluster)},
        {"workload", describe_workload(spec.workload)},
        {"outputs", print_table(outputs_table(), spec.outputs)},
    }};
    // Only a scenario with faults has the section, so that others describe as before.
    if (!spec.faults.empty())
        std::get<Value::Map>(out.v).insert(std::get<Value::Map>(out.v).end() - 1,
                                           {"faults", describe_faults(spec.faults)});
    return out;
}

}  // namespace fabricsim::scenario
