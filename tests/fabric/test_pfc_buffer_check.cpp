// check_pfc_buffers (fabric/pfc_headroom.hpp): a switch buffer too small for the PFC
// headroom and reserved space the packet model would carve from it is bad input, found before
// the run, with the numbers; and fabric capacities that once overflowed 32 bits.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "fabric/fabric_plan.hpp"
#include "fabric/pfc_headroom.hpp"
#include "fabric/topology_builder.hpp"
#include "fabric_test_helpers.hpp"

#include <limits>
#include <string>

using namespace fabricsim;
using scenario::TopologyKind;

namespace {

// Two hosts on one 64-port switch: the switch has 2 ports.
scenario::ClusterSpec two_hosts(Bytes buffer) {
    scenario::ClusterSpec c = test::cluster(2, test::host_1nic(), TopologyKind::single_switch, 64);
    c.fabric.switch_spec.buffer = buffer;
    c.roce.pfc.headroom = Bytes{600'000};
    return c;
}

std::string check(const scenario::ClusterSpec& c) {
    const fabric::Topology t = fabric::build_topology(c);
    try {
        fabric::check_pfc_buffers(t, c.roce, c.fabric.mtu);
    } catch (const ConfigError& e) {
        REQUIRE(e.issues().size() == 1);
        return e.issues().front().str();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("a switch whose ports' PFC headroom and reserved space reach its buffer is refused with the sums",
          "[fabric][pfc][errors]") {
    // Per port: 600000 B of headroom for the one lossless priority (3), and 4KiB reserved for
    // it and for the control priority (6): 608192 B; two ports: 1216384 B.
    CHECK(check(two_hosts(Bytes{1'216'385})) == "(no error)");
    CHECK(check(two_hosts(Bytes{1'216'384})) ==
          "cluster.roce.pfc.headroom: switch leaf0: its 2 ports need 1.2MB of PFC headroom (1 lossless priority) and "
          "16KiB of reserved space (2 queues x 4KiB per port), 1.216384MB in all; its buffer is 1.216384MB: use "
          "shorter cables, fewer lossless priorities, less reserved space or a switch with a larger buffer");
}

TEST_CASE("without PFC a lossless RoCE fabric reserves nothing, and a lossy one only the control queue",
          "[fabric][pfc]") {
    scenario::ClusterSpec off = two_hosts(Bytes{1});
    off.roce.pfc.enabled = false;
    CHECK(check(off) == "(no error)");
    // Lossy: 4KiB for the control queue on each of 2 ports, 8192 B.
    scenario::ClusterSpec lossy = two_hosts(Bytes{8'193});
    lossy.roce.lossless = false;
    CHECK(check(lossy) == "(no error)");
    lossy.fabric.switch_spec.buffer = Bytes{8'192};
    CHECK(check(lossy).starts_with("cluster.roce.mmu.reserved_per_queue: switch leaf0: its 2 ports need 0B of PFC "
                                   "headroom (0 lossless priorities) and 8KiB of reserved space"));
}

TEST_CASE("fat-tree capacity is 64-bit: radix 1024 holds R^3/4 endpoints and radix 2048's does not wrap",
          "[fabric][plan]") {
    // A non-blocking fat-tree of R-port switches: R pods x R/2 leaves x R/2 endpoints = R^3/4.
    const fabric::LeafSplit split = fabric::leaf_split(1024, {1, 1});
    CHECK(fabric::capacity(TopologyKind::fat_tree, 1024, split, 1).endpoints == 1024 * 512 * 512);
    // 2048^3/4 = 2^31 is one above int's range: reported at the int maximum, not negative.
    const fabric::LeafSplit wide = fabric::leaf_split(2048, {1, 1});
    const fabric::Capacity c = fabric::capacity(TopologyKind::fat_tree, 2048, wide, 1);
    CHECK(c.endpoints == std::numeric_limits<int>::max());
    CHECK(c.servers == std::numeric_limits<int>::max());
}

TEST_CASE("a link speed that would split a switch into more than 65536 ports is refused", "[fabric][errors]") {
    scenario::ClusterSpec c = test::cluster(2, test::host_1nic(Bandwidth::Mbps(100)), TopologyKind::fat_tree, 64);
    // 400Gbps / 100Mbps = 4000 links per port, 64 x 4000 = 256000 ports.
    CHECK(test::error_of(c) ==
          "cluster.fabric.link_speed: 100Mbps links split each of the switch's 64 400Gbps ports 4000 ways, 256000 "
          "ports in all; at most 65536 ports per switch (use a switch whose port speed is nearer the link speed)");
    // 400Gbps / 25Gbps = 16 links per port: 1024 ports.
    c.server = test::host_1nic(Bandwidth::Gbps(25));
    CHECK(test::error_of(c) == "(no error)");
}
