// A fabric that cannot be built is a ConfigError at cluster.servers that states the largest
// buildable size: the exact messages.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "fabric/topology_builder.hpp"
#include "fabric_test_helpers.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::fabric;
using fabricsim::test::error_of;
using scenario::Ratio;
using scenario::TopologyKind;

TEST_CASE("a leaf-spine too large for 64-port switches names 2048 endpoints and 256 servers", "[fabric][errors]") {
    // The fixes named: a fat-tree of the same switches holds 64 x 32 x 32 = 65536; on 2 planes
    // each carries 300 x 4 = 1200 endpoints (and 300 <= 2048 / 4 servers); 128-port switches
    // hold 128 x 64 = 8192.
    CHECK(error_of(test::cluster(300, test::hgx_h100(), TopologyKind::leaf_spine, 64)) ==
          "cluster.servers: 300 servers with 8 NICs each need 2400 endpoints; a leaf-spine fabric of 64-port switches "
          "at 1:1 holds at most 2048 endpoints (256 servers)"
          "; it would fit with topology: fat-tree, planes: 2 or switches with 128 ports at this link rate");
    CHECK(error_of(test::cluster(256, test::hgx_h100(), TopologyKind::leaf_spine, 64)) == "(no error)");
}

TEST_CASE("a single switch holds its radix: 9 HGX servers do not fit 64 ports", "[fabric][errors]") {
    CHECK(error_of(test::cluster(9, test::hgx_h100(), TopologyKind::single_switch, 64)) ==
          "cluster.servers: 9 servers with 8 NICs each need 72 endpoints; a single switch of 64 ports holds at most 64 "
          "endpoints (8 servers); it would fit with topology: leaf-spine, planes: 2 or switches with 128 ports "
          "at this link rate");
    // All 64 ports are downlinks on a single switch.
    CHECK(build_topology(test::cluster(8, test::hgx_h100(), TopologyKind::single_switch, 64)).count(NodeKind::leaf) ==
          1);
}

TEST_CASE("a k = 4 fat tree holds 16 hosts - one more is an error", "[fabric][errors][fat-tree]") {
    CHECK(error_of(test::cluster(17, test::host_1nic(100_Gbps), TopologyKind::fat_tree, 4, 100_Gbps)) ==
          "cluster.servers: 17 servers with 1 NIC each need 17 endpoints; a fat-tree fabric of 4-port switches at 1:1 "
          "holds at most 16 endpoints (16 servers); it would fit with switches with 8 ports at this link rate");
}

TEST_CASE("rail-optimized: at most R / rails leaves per rail - 256 HGX servers on 64-port switches",
          "[fabric][errors][rail]") {
    CHECK(error_of(test::cluster(257, test::hgx_h100(), TopologyKind::rail_optimized, 64)) ==
          "cluster.servers: 257 servers with 8 NICs each need 2056 endpoints; a rail-optimized fabric of 64-port "
          "switches "
          "at 1:1 holds at most 2048 endpoints (256 servers)"
          "; it would fit with topology: fat-tree, planes: 2 or switches with 128 ports at this link rate");
}

TEST_CASE("planes: the limit is per plane - and so is the message", "[fabric][errors][planes]") {
    scenario::ClusterSpec c = test::cluster(1100, test::hgx_h100(), TopologyKind::leaf_spine, 64);
    c.fabric.planes = 4;
    CHECK(error_of(c) ==
          "cluster.servers: 1100 servers with 2 NICs each in each of 4 planes need 2200 endpoints per plane; a "
          "leaf-spine fabric of 64-port switches at 1:1 holds at most 2048 endpoints per plane (1024 servers)"
          "; it would fit with topology: fat-tree, planes: 8 or switches with 128 ports at this link rate");
    c.servers = 1024;
    CHECK(error_of(c) == "(no error)");
}

TEST_CASE("oversubscription makes room: 2:1 leaves hold 64 x 42 endpoints", "[fabric][errors]") {
    CHECK(error_of(test::cluster(337, test::hgx_h100(), TopologyKind::leaf_spine, 64, 400_Gbps, Ratio{2, 1})) ==
          "cluster.servers: 337 servers with 8 NICs each need 2696 endpoints; a leaf-spine fabric of 64-port switches "
          "at 2:1 holds at most 2688 endpoints (336 servers)"
          "; it would fit with topology: fat-tree, planes: 2 or switches with 128 ports at this link rate");
}

TEST_CASE("links faster than the switch ports and too many planes are ConfigErrors", "[fabric][errors]") {
    scenario::ClusterSpec c = test::cluster(4, test::hgx_h100(), TopologyKind::leaf_spine, 64);
    c.fabric.link_speed = 800_Gbps;
    CHECK(error_of(c) == "cluster.fabric.link_speed: 800Gbps is faster than the switch's 400Gbps ports");
    c.fabric.link_speed = Bandwidth::zero();
    c.fabric.planes = 16;
    CHECK(
        error_of(c) ==
        "cluster.fabric.planes: 16 planes for servers with 8 NICs; every plane needs at least one NIC of every server");
}

TEST_CASE("a storage fabric too small for its endpoints names them", "[fabric][errors][storage]") {
    scenario::ClusterSpec c = test::cluster(16, test::hgx_h100(), TopologyKind::leaf_spine, 64);
    c.storage_fabric.enabled = true;
    c.storage_fabric.fabric.topology = TopologyKind::single_switch;
    c.storage_fabric.fabric.switch_spec.radix = 32;
    c.storage_fabric.storage_nodes = 4;
    CHECK(error_of(c) ==
          "cluster.storage_fabric: 16 servers with 2 storage NICs each and 4 storage nodes with 1 NIC each need 36 "
          "endpoints; a single switch of 32 ports holds at most 32 endpoints");
}
