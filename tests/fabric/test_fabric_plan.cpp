// Fabric sizing as pure functions (fabric_plan.hpp), against the closed forms.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "fabric/fabric_plan.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::fabric;
using scenario::Ratio;
using scenario::TopologyKind;

TEST_CASE("a 64-port leaf at 2:1 is 42 down / 21 up / 1 spare - at 1:1 32 / 32 / 0", "[plan]") {
    CHECK(leaf_split(64, Ratio{2, 1}) == LeafSplit{42, 21, 1});
    CHECK(leaf_split(64, Ratio{1, 1}) == LeafSplit{32, 32, 0});
    CHECK(leaf_split(64, Ratio{3, 1}) == LeafSplit{48, 16, 0});
    CHECK(leaf_split(64, Ratio{3, 2}) == LeafSplit{36, 24, 4});
    CHECK(leaf_split(64, Ratio{4, 2}) == LeafSplit{42, 21, 1});  // reduced to 2:1 first
    CHECK(leaf_split(32, Ratio{5, 1}) == LeafSplit{25, 5, 2});
}

TEST_CASE("a switch too small for its ratio is a ConfigError at the oversubscription key", "[plan]") {
    try {
        (void)leaf_split(3, Ratio{3, 1});
        FAIL("no error");
    } catch (const ConfigError& e) {
        CHECK(e.issues().at(0).key_path == "cluster.fabric.oversubscription");
        CHECK(e.issues().at(0).message == "a 3-port switch cannot split its ports 3:1 (it needs at least 4 ports)");
    }
}

TEST_CASE("spines: every leaf reaches every spine - with parallel links when leaves are few", "[plan]") {
    // 4 leaves with 32 uplinks on 64-port spines: 16 links to each of 2 spines.
    CHECK(upper_tier(4, 32, 64).switches == 2);
    CHECK(upper_tier(4, 32, 64).parallel == 16);
    // 64 leaves: one link to each of 32 spines.
    CHECK(upper_tier(64, 32, 64).switches == 32);
    CHECK(upper_tier(64, 32, 64).parallel == 1);
    // 3 leaves: at most 21 links per spine pair, and it must divide 32: 16 -> 2 spines.
    CHECK(upper_tier(3, 32, 64).switches == 2);
    // 21 uplinks (2:1) from 4 leaves: 7 links to each of 3 spines.
    CHECK(upper_tier(4, 21, 64).switches == 3);
    CHECK(upper_tier(4, 21, 64).parallel == 7);
}

TEST_CASE("switch ports break out to the link rate: 64 x 400G is 128 x 200G", "[plan]") {
    scenario::SwitchSpec sw;
    sw.radix = 64;
    sw.port_speed = 400_Gbps;
    CHECK(ports_at_link_rate(sw, 400_Gbps, "cluster.fabric") == 64);
    CHECK(ports_at_link_rate(sw, 200_Gbps, "cluster.fabric") == 128);
    CHECK(ports_at_link_rate(sw, 100_Gbps, "cluster.fabric") == 256);
    CHECK(ports_at_link_rate(sw, 300_Gbps, "cluster.fabric") == 64);
    try {
        (void)ports_at_link_rate(sw, 800_Gbps, "cluster.fabric");
        FAIL("no error");
    } catch (const ConfigError& e) {
        CHECK(e.issues().at(0).str() == "cluster.fabric.link_speed: 800Gbps is faster than the switch's 400Gbps ports");
    }
}

TEST_CASE("largest sizes: leaf-spine R*down - fat-tree R*R/2*down - rails R/rails*down servers", "[plan]") {
    const LeafSplit full = leaf_split(64, Ratio{1, 1});
    CHECK(capacity(TopologyKind::single_switch, 64, LeafSplit{64, 0, 0}, 8).endpoints == 64);
    CHECK(capacity(TopologyKind::single_switch, 64, LeafSplit{64, 0, 0}, 8).servers == 8);
    CHECK(capacity(TopologyKind::leaf_spine, 64, full, 8).endpoints == 2048);
    CHECK(capacity(TopologyKind::leaf_spine, 64, full, 8).servers == 256);
    CHECK(capacity(TopologyKind::fat_tree, 64, full, 1).endpoints == 65536);  // k^3/4
    CHECK(capacity(TopologyKind::rail_optimized, 64, full, 8).servers == 256);
    CHECK(capacity(TopologyKind::rail_optimized, 64, full, 3).servers == 21 * 32);
    CHECK(capacity(TopologyKind::leaf_spine, 64, leaf_split(64, Ratio{2, 1}), 1).endpoints == 64 * 42);
}

TEST_CASE("a k-ary fat tree plan: k pods of k/2 leaves and k/2 aggregation switches - (k/2)^2 cores",
          "[plan][fat-tree]") {
    for (int k : {4, 8, 16, 64}) {
        INFO("k = " << k);
        const FabricPlan p = plan_fabric(TopologyKind::fat_tree, k, Ratio{1, 1}, PlaneDemand{k * k * k / 4, 1, 1});
        CHECK(p.kind == TopologyKind::fat_tree);
        CHECK(p.pods == k);
        CHECK(p.leaves == k * k / 2);
        CHECK(p.spines == k * k / 2);
        CHECK(p.cores == k * k / 4);
        CHECK(p.leaf_spine_parallel == 1);
        CHECK(p.spine_core_parallel == 1);
        CHECK(p.leaves + p.spines + p.cores == 5 * k * k / 4);
    }
}

TEST_CASE("a fat tree with few endpoints has fewer pods - and one pod is a leaf-spine", "[plan][fat-tree]") {
    // 64-port at 1:1: 32 endpoints per leaf, 32 leaves per pod. 3 pods' worth of leaves:
    const FabricPlan three = plan_fabric(TopologyKind::fat_tree, 64, Ratio{1, 1}, PlaneDemand{3 * 32 * 32, 1, 1});
    CHECK(three.pods == 3);
    CHECK(three.spines == 3 * 32);
    CHECK(three.spine_core_parallel == 16);  // largest divisor of 32 with 3 pods x q <= 64 ports
    CHECK(three.cores == 32 * 2);
    const FabricPlan one = plan_fabric(TopologyKind::fat_tree, 64, Ratio{1, 1}, PlaneDemand{20 * 32, 1, 1});
    CHECK(one.kind == TopologyKind::leaf_spine);
    CHECK(one.leaves == 20);
    CHECK(one.cores == 0);
}

TEST_CASE("any kind collapses to one switch when the endpoints fit one leaf's downlinks", "[plan]") {
    for (auto kind : {TopologyKind::leaf_spine, TopologyKind::fat_tree, TopologyKind::rail_optimized}) {
        const FabricPlan p = plan_fabric(kind, 64, Ratio{1, 1}, PlaneDemand{4, 8, 1});
        CHECK(p.kind == TopologyKind::single_switch);
        CHECK(p.leaves == 1);
        CHECK(p.spines == 0);
    }
    CHECK(plan_fabric(TopologyKind::leaf_spine, 64, Ratio{1, 1}, PlaneDemand{5, 8, 1}).leaves == 2);
}

TEST_CASE("rail-optimized: a half-filled rail leaf cables uplinks for its servers only - at the ratio",
          "[plan][rail]") {
    // 128-port leaves at 1:1 (64 down): 32 servers per rail use 32 downlinks and 32 uplinks.
    const FabricPlan p = plan_fabric(TopologyKind::rail_optimized, 128, Ratio{1, 1}, PlaneDemand{32, 8, 1});
    CHECK(p.leaves == 8);
    CHECK(p.leaf_uplinks == 32);
    CHECK(p.spines == 2);
    CHECK(p.leaf_spine_parallel == 16);
    // Full rail leaves keep every uplink.
    CHECK(plan_fabric(TopologyKind::rail_optimized, 128, Ratio{1, 1}, PlaneDemand{128, 8, 1}).leaf_uplinks == 64);
    // 2:1: 40 servers per rail leaf (84 down / 42 up) need 20 uplinks.
    CHECK(plan_fabric(TopologyKind::rail_optimized, 128, Ratio{2, 1}, PlaneDemand{40, 8, 1}).leaf_uplinks == 20);
}
