#include "scenario/describe.hpp"

#include "scenario/scenario_keys.hpp"

namespace fabricsim::scenario {

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

Value describe(const ScenarioSpec& spec) { return print_table(scenario_table(), spec); }

}  // namespace fabricsim::scenario
