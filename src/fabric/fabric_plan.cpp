#include "fabric/fabric_plan.hpp"

#include "core/errors.hpp"
#include "core/units_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

namespace fabricsim::fabric {

using scenario::TopologyKind;

namespace {

[[noreturn]] void bad(const std::string& key_path, std::string message) {
    ConfigIssue issue;
    issue.key_path = key_path;
    issue.message = std::move(message);
    throw ConfigError(std::move(issue));
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// The largest divisor of n that is at most `limit` (at least 1).
int largest_divisor_at_most(int n, int limit) {
    for (int p = std::min(n, limit); p > 1; --p)
        if (n % p == 0) return p;
    return 1;
}

std::string plural(int n, std::string_view word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// What would hold `demand` when `requested` of `radix`-port switches cannot, for the error
// message: a larger topology of the same switches, more planes (each then carries fewer of
// every server's NICs), or switches with more ports. "" when none of these would.
std::string remedies(TopologyKind requested, int radix, scenario::Ratio ratio, const PlaneDemand& demand) {
    const auto fits = [&](TopologyKind kind, int r, const PlaneDemand& d) {
        const LeafSplit split = kind == TopologyKind::single_switch ? LeafSplit{r, 0, 0} : leaf_split(r, ratio);
        const Capacity c = capacity(kind, r, split, d.per_server);
        return d.endpoints() <= c.endpoints && d.servers <= c.servers;
    };
    // Radix 1024 is far beyond any switch sold; up to there the capacities stay within int.
    constexpr int kLargestRadix = 1024;
    if (radix > kLargestRadix) return {};
    std::vector<std::string> ways;
    if (requested == TopologyKind::single_switch && fits(TopologyKind::leaf_spine, radix, demand))
        ways.emplace_back("topology: leaf-spine");
    else if (requested != TopologyKind::fat_tree && fits(TopologyKind::fat_tree, radix, demand))
        ways.emplace_back("topology: fat-tree");
    // More planes split every server's NICs; storage nodes' and clients' NICs split by their
    // own rules, so with them on the plane no plane count is offered.
    const int nics = demand.storage_ports + demand.client_ports > 0 ? 0 : demand.per_server * demand.planes;
    for (int planes = demand.planes + 1; planes <= nics; ++planes) {
        if (nics % planes != 0) continue;
        PlaneDemand d = demand;
        d.per_server = nics / planes;
        d.planes = planes;
        if (fits(requested, radix, d)) {
            ways.push_back(fmt::format("planes: {}", planes));
            break;
        }
    }
    for (int r = 2 * radix; r <= kLargestRadix; r *= 2)
        if (fits(requested, r, demand)) {
            ways.push_back(fmt::format("switches with {} ports at this link rate", r));
            break;
        }
    if (ways.empty()) return {};
    std::string out = "; it would fit with ";
    for (std::size_t i = 0; i < ways.size(); ++i) out += (i == 0 ? "" : i + 1 == ways.size() ? " or " : ", ") + ways[i];
    return out;
}

}  // namespace

std::string_view topology_name(TopologyKind kind) {
    switch (kind) {
        case TopologyKind::single_switch: return "single-switch";
        case TopologyKind::leaf_spine: return "leaf-spine";
        case TopologyKind::fat_tree: return "fat-tree";
        case TopologyKind::rail_optimized: return "rail-optimized";
        case TopologyKind::custom: return "custom";
    }
    return "unknown";
}

LeafSplit leaf_split(int radix, scenario::Ratio ratio) {
    if (ratio.down <= 0 || ratio.up <= 0)
        bad("cluster.fabric.oversubscription",
            fmt::format("{}:{} is not a ratio of positive integers", ratio.down, ratio.up));
    const int g = std::gcd(ratio.down, ratio.up);
    const int d = ratio.down / g, u = ratio.up / g;
    const int n = radix / (d + u);
    if (n == 0)
        bad("cluster.fabric.oversubscription",
            fmt::format("a {}-port switch cannot split its ports {}:{} (it needs at least {} ports)", radix, ratio.down,
                        ratio.up, d + u));
    return LeafSplit{n * d, n * u, radix - n * (d + u)};
}

UpperTier upper_tier(int lower, int uplinks, int radix) {
    const int parallel = largest_divisor_at_most(uplinks, radix / std::max(lower, 1));
    return UpperTier{uplinks / parallel, parallel};
}

int ports_at_link_rate(const scenario::SwitchSpec& sw, Bandwidth link, const std::string& key_prefix) {
    if (sw.radix < 2)
        bad(key_prefix + ".switch.radix", fmt::format("a switch needs at least 2 ports, found {}", sw.radix));
    if (link > sw.port_speed)
        bad(key_prefix + ".link_speed", fmt::format("{} is faster than the switch's {} ports", link, sw.port_speed));
    const std::int64_t port = sw.port_speed.bits_per_second(), l = link.bits_per_second();
    if (l <= 0 || port % l != 0) return sw.radix;
    // radix <= 4096 and port / l <= 10^15 (input_limits.hpp): the product fits 64 bits.
    const std::int64_t ports = std::int64_t{sw.radix} * (port / l);
    if (ports > kMaxPortsPerSwitch)
        bad(key_prefix + ".link_speed",
            fmt::format("{} links split each of the switch's {} {} ports {} ways, {} ports in all; at most {} ports "
                        "per switch (use a switch whose port speed is nearer the link speed)",
                        link, sw.radix, sw.port_speed, port / l, ports, kMaxPortsPerSwitch));
    return static_cast<int>(ports);
}

Capacity capacity(TopologyKind kind, int radix, const LeafSplit& leaf, int per_server) {
    // In 64 bits: a fat-tree of 65536-port switches holds 2^47 endpoints. Reported capped at
    // the int range, which is far above any cluster a scenario can describe (2^30 ranks).
    const std::int64_t r = radix, down = leaf.down, per = std::max(per_server, 1);
    const auto capped = [](std::int64_t v) {
        return static_cast<int>(std::min<std::int64_t>(v, std::numeric_limits<int>::max()));
    };
    Capacity c;
    std::int64_t endpoints = 0;
    switch (kind) {
        case TopologyKind::custom: return c;  // no plan: the links say what is connected
        case TopologyKind::single_switch: endpoints = r; break;
        case TopologyKind::leaf_spine: endpoints = r * down; break;
        case TopologyKind::fat_tree: endpoints = r * (r / 2) * down; break;
        case TopologyKind::rail_optimized: {
            // At most R leaves in all, ceil(servers / down) per rail; or one switch.
            const std::int64_t servers = std::max((r / per) * down, down / per);
            c.servers = capped(servers);
            c.endpoints = capped(servers * per);
            return c;
        }
    }
    c.endpoints = capped(endpoints);
    c.servers = capped(endpoints / per);
    return c;
}

int FabricPlan::leaf_of(int server, int rail, int per_server) const {
    switch (kind) {
        case TopologyKind::single_switch:
        case TopologyKind::custom: return 0;
        case TopologyKind::rail_optimized: return rail * leaves_per_rail + server / leaf.down;
        case TopologyKind::leaf_spine:
        case TopologyKind::fat_tree: return (server * per_server + rail) / leaf.down;
    }
    return 0;
}

int FabricPlan::storage_leaf_of(int k) const {
    if (kind == TopologyKind::single_switch) return 0;
    return (endpoints - client_ports - storage_ports + k) / leaf.down;  // after the servers' ports, as leaf_of
}

int FabricPlan::client_leaf_of(int k) const {
    if (kind == TopologyKind::single_switch) return 0;
    return (endpoints - client_ports + k) / leaf.down;  // after the storage nodes' ports
}

FabricPlan plan_fabric(TopologyKind requested, int radix, scenario::Ratio ratio, PlaneDemand demand,
                       const std::string& servers_key) {
    FabricPlan plan;
    plan.radix = radix;
    plan.endpoints = demand.endpoints();
    plan.storage_ports = demand.storage_ports;
    plan.client_ports = demand.client_ports;
    if (demand.storage_ports > 0 && requested == TopologyKind::rail_optimized)
        bad("cluster.storage", "storage nodes cannot join a rail-optimized compute fabric (they have no rail); use "
                               "leaf-spine or fat-tree, or put them on cluster.storage_fabric");
    if (demand.client_ports > 0 && requested == TopologyKind::rail_optimized)
        bad("cluster.clients", "client hosts cannot join a rail-optimized compute fabric (they have no rail); use "
                               "leaf-spine or fat-tree");
    plan.rails = requested == TopologyKind::rail_optimized ? demand.per_server : 1;
    const LeafSplit split =
        requested == TopologyKind::single_switch ? LeafSplit{radix, 0, 0} : leaf_split(radix, ratio);

    const Capacity cap = capacity(requested, radix, split, demand.per_server);
    plan.max_endpoints = cap.endpoints;
    // With storage or client ports on the plane, the servers get what those leave.
    const int others = demand.storage_ports + demand.client_ports;
    plan.max_servers = others > 0
                           ? std::min(cap.servers, std::max(cap.endpoints - others, 0) / std::max(demand.per_server, 1))
                           : cap.servers;

    const int e = plan.endpoints;
    if (e > cap.endpoints || demand.servers > cap.servers) {
        const bool planes = demand.planes > 1;
        const std::string shape = requested == TopologyKind::single_switch
                                      ? fmt::format("a single switch of {} ports", radix)
                                      : fmt::format("a {} fabric of {}-port switches at {}:{}",
                                                    topology_name(requested), radix, ratio.down, ratio.up);
        // " and 12 storage node NICs", ", 12 storage node NICs and 4 client NICs"; and whom the
        // servers share the fabric with.
        std::vector<std::string> extra, beside;
        if (demand.storage_ports > 0) {
            extra.push_back(plural(demand.storage_ports, "storage node NIC"));
            beside.emplace_back("storage nodes");
        }
        if (demand.client_ports > 0) {
            extra.push_back(plural(demand.client_ports, "client NIC"));
            beside.emplace_back("client hosts");
        }
        const std::string extras = extra.empty()       ? std::string()
                                   : extra.size() == 1 ? " and " + extra[0]
                                                       : fmt::format(", {} and {}", extra[0], extra[1]);
        bad(servers_key,
            fmt::format("{} with {} each{}{} need{} {} endpoints{}; {} holds at most {} endpoints{} ({}{}){}",
                        plural(demand.servers, "server"), plural(demand.per_server, "NIC"),
                        planes ? fmt::format(" in each of {} planes", demand.planes) : "", extras,
                        demand.servers == 1 && extra.empty() ? "s" : "", e, planes ? " per plane" : "", shape,
                        cap.endpoints, planes ? " per plane" : "", plural(plan.max_servers, "server"),
                        beside.empty()       ? ""
                        : beside.size() == 1 ? " beside the " + beside[0]
                                             : fmt::format(" beside the {} and {}", beside[0], beside[1]),
                        remedies(requested, radix, ratio, demand)));
    }

    // Everything on one switch.
    if (requested == TopologyKind::single_switch || e <= split.down) {
        plan.kind = TopologyKind::single_switch;
        plan.leaf = LeafSplit{radix, 0, 0};
        plan.leaves = e > 0 ? 1 : 0;
        plan.leaves_per_pod = plan.leaves;
        plan.leaves_per_rail = plan.leaves;
        plan.rails = 1;
        return plan;
    }
    plan.leaf = split;

    plan.leaf_uplinks = split.up;
    if (requested == TopologyKind::rail_optimized) {
        plan.kind = TopologyKind::rail_optimized;
        plan.leaves_per_rail = ceil_div(demand.servers, split.down);
        plan.leaves = plan.rails * plan.leaves_per_rail;
        if (plan.leaves_per_rail == 1) plan.leaf_uplinks = ceil_div(demand.servers * split.up, split.down);
    } else {
        plan.kind = TopologyKind::leaf_spine;
        plan.leaves = ceil_div(e, split.down);
    }
    plan.leaves_per_pod = plan.leaves;

    const int pod_leaves = radix / 2;
    if (requested == TopologyKind::fat_tree && plan.leaves > pod_leaves) {
        plan.kind = TopologyKind::fat_tree;
        plan.pods = ceil_div(plan.leaves, pod_leaves);
        plan.leaves_per_pod = pod_leaves;
        plan.spines_per_pod = split.up;
        plan.spines = plan.pods * split.up;
        plan.leaf_spine_parallel = 1;
        const int agg_up = radix / 2;
        plan.spine_core_parallel = largest_divisor_at_most(agg_up, radix / plan.pods);
        plan.cores_per_group = agg_up / plan.spine_core_parallel;
        plan.core_groups = split.up;
        plan.cores = plan.core_groups * plan.cores_per_group;
        return plan;
    }

    const UpperTier spines = upper_tier(plan.leaves, plan.leaf_uplinks, radix);
    plan.spines = spines.switches;
    plan.spines_per_pod = spines.switches;
    plan.leaf_spine_parallel = spines.parallel;
    return plan;
}

}  // namespace fabricsim::fabric
