// Inside the servers: NVLink to NVSwitch as the boards split it, the PCIe tree, NICs, ranks.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "fabric/topology_builder.hpp"
#include "fabric_test_helpers.hpp"

#include <algorithm>
#include <set>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::fabric;
using fabricsim::test::links_between;
using scenario::TopologyKind;

namespace {

Bandwidth nvlink_bandwidth(const Topology& t, NodeId gpu) {
    Bandwidth sum;
    for (const Port& p : t.node(gpu).ports)
        if (t.link(p.link).type == LinkType::nvlink) sum = sum + t.link(p.link).bandwidth;
    return sum;
}

int nvlink_count(const Topology& t, NodeId gpu) {
    return static_cast<int>(std::count_if(t.node(gpu).ports.begin(), t.node(gpu).ports.end(),
                                          [&](const Port& p) { return t.link(p.link).type == LinkType::nvlink; }));
}

// The PCIe switch a device hangs off, or the host.
NodeId pcie_parent(const Topology& t, NodeId device) {
    for (const Port& p : t.node(device).ports)
        if (t.link(p.link).type == LinkType::pcie) return p.peer;
    return NodeId::invalid();
}

Topology build(const scenario::ServerSpec& server, int servers = 2) {
    return build_topology(test::cluster(servers, server, TopologyKind::leaf_spine, 64));
}

}  // namespace

TEST_CASE("HGX H100: 18 NVLink4 links per GPU - 450 GB/s per direction - split 5-4-4-5 over 4 NVSwitches",
          "[servers]") {
    const Topology t = build(test::hgx_h100());
    for (const ServerInfo& s : t.servers()) {
        REQUIRE(s.gpus.size() == 8);
        REQUIRE(s.nvswitches.size() == 4);
        for (NodeId gpu : s.gpus) {
            CHECK(nvlink_count(t, gpu) == 18);
            CHECK(nvlink_bandwidth(t, gpu) == 450_GBps);
            const int expected[] = {5, 4, 4, 5};
            for (int i = 0; i < 4; ++i)
                CHECK(links_between(t, gpu, s.nvswitches[static_cast<std::size_t>(i)]).size() ==
                      static_cast<std::size_t>(expected[i]));
        }
        // Every NVSwitch port is a GPU's link: 8 GPUs x its share.
        CHECK(t.node(s.nvswitches[0]).ports.size() == 40);
        CHECK(t.node(s.nvswitches[1]).ports.size() == 32);
        CHECK(t.node(s.nvswitches[0]).forwarding_latency > Time::zero());
    }
    const Link& nvl = t.link(t.node(t.servers()[0].gpus[0]).ports.back().link);
    CHECK(nvl.link_class == "nvlink4");
    CHECK(nvl.medium == Medium::board);
    CHECK(nvl.propagation > Time::zero());
}

TEST_CASE("HGX H100: GPU g and NIC g share a PCIe Gen5 x16 switch - 4 switches under the CPU", "[servers]") {
    const Topology t = build(test::hgx_h100());
    const ServerInfo& s = t.servers()[1];
    REQUIRE(s.pcie_switches.size() == 4);
    REQUIRE(s.nics.size() == 8);
    std::set<std::uint32_t> used;
    for (std::size_t g = 0; g < 8; ++g) {
        const NodeId sw = pcie_parent(t, s.gpus[g]);
        CHECK(t.node(sw).kind == NodeKind::pcie_switch);
        CHECK(sw == pcie_parent(t, s.nics[g]));  // GPUDirect path GPU -> PCIe switch -> NIC
        CHECK(sw == s.pcie_switches[g / 2]);
        CHECK(links_between(t, sw, s.host).size() == 1);
        used.insert(sw.value());
        const Link& l = t.link(links_between(t, s.gpus[g], sw).at(0));
        CHECK(l.link_class == "pcie-gen5-x16");
        CHECK(l.payload_bandwidth() < l.bandwidth);
    }
    CHECK(used.size() == 4);
    CHECK(t.node(s.pcie_switches[0]).forwarding_latency == 105_ns);
}

TEST_CASE("ranks: rank r is GPU r mod 8 of server r div 8 - served by NIC r mod 8", "[servers][ranks]") {
    const Topology t = build(test::hgx_h100(), 3);
    REQUIRE(t.ranks().size() == 24);
    for (std::uint32_t r = 0; r < 24; ++r) {
        const RankInfo& info = t.rank(RankId{r});
        CHECK(info.rank.value() == r);
        CHECK(info.server.value() == r / 8);
        CHECK(info.local_index == r % 8);
        CHECK(info.gpu == t.servers()[r / 8].gpus[r % 8]);
        CHECK(info.nic == t.servers()[r / 8].nics[r % 8]);
        CHECK(info.rail == r % 8);
        CHECK(t.node(info.nic).rail == r % 8);
    }
}

TEST_CASE("HGX A100: 12 NVLink3 links to each of 6 NVSwitches two at a time - 300 GB/s per direction", "[servers]") {
    const Topology t = build(test::hgx_a100());
    const ServerInfo& s = t.servers()[0];
    REQUIRE(s.nvswitches.size() == 6);
    for (NodeId gpu : s.gpus) {
        CHECK(nvlink_bandwidth(t, gpu) == 300_GBps);
        for (NodeId sw : s.nvswitches) CHECK(links_between(t, gpu, sw).size() == 2);
    }
    CHECK(t.link(links_between(t, s.gpus[0], pcie_parent(t, s.gpus[0])).at(0)).link_class == "pcie-gen4-x16");
    CHECK(t.link(t.node(s.nics[0]).ports.back().link).link_class == "roce-200G");
}

TEST_CASE("HGX B200: 18 NVLink5 links at 50 GB/s to 2 NVSwitches - 900 GB/s per direction", "[servers]") {
    const Topology t = build(test::hgx_b200());
    const ServerInfo& s = t.servers()[0];
    REQUIRE(s.nvswitches.size() == 2);
    for (NodeId gpu : s.gpus) {
        CHECK(nvlink_count(t, gpu) == 18);
        CHECK(nvlink_bandwidth(t, gpu) == 900_GBps);
        for (NodeId sw : s.nvswitches) CHECK(links_between(t, gpu, sw).size() == 9);
    }
}

TEST_CASE("an NVLink bridge joins two PCIe H100s directly with all their links - no NVSwitch", "[servers]") {
    const Topology t = build(test::h100_pcie_bridge());
    const ServerInfo& s = t.servers()[0];
    CHECK(s.nvswitches.empty());
    CHECK(links_between(t, s.gpus[0], s.gpus[1]).size() == 12);
    CHECK(nvlink_bandwidth(t, s.gpus[0]) == 300_GBps);
    CHECK(pcie_parent(t, s.gpus[0]) == s.host);  // no PCIe switch: the CPU's root ports
}

TEST_CASE("a PCIe L40S server: no NVLink - GPUs 0-3 and NIC 0 on one switch - 4-7 and NIC 1 on the other",
          "[servers]") {
    const Topology t = build(test::pcie_l40s());
    const ServerInfo& s = t.servers()[0];
    CHECK(s.nvswitches.empty());
    for (std::size_t g = 0; g < 8; ++g) {
        CHECK(nvlink_count(t, s.gpus[g]) == 0);
        CHECK(pcie_parent(t, s.gpus[g]) == pcie_parent(t, s.nics[g / 4]));
        CHECK(t.rank(RankId{static_cast<std::uint32_t>(g)}).nic == s.nics[g / 4]);
    }
}

TEST_CASE("a plain host is one rank on its CPU with its NIC on a root port", "[servers]") {
    const Topology t = build(test::host_1nic(), 4);
    REQUIRE(t.ranks().size() == 4);
    const ServerInfo& s = t.servers()[2];
    CHECK(s.gpus.empty());
    CHECK(t.rank(RankId{2}).gpu == s.host);
    CHECK(t.rank(RankId{2}).nic == s.nics[0]);
    CHECK(pcie_parent(t, s.nics[0]) == s.host);
}

TEST_CASE("storage NICs exist only with a storage fabric - on the CPU's root ports", "[servers][storage]") {
    scenario::ClusterSpec c = test::cluster(2, test::hgx_h100(), TopologyKind::leaf_spine, 64);
    CHECK(build_topology(c).servers()[0].storage_nics.empty());
    c.storage_fabric.enabled = true;
    const Topology t = build_topology(c);
    REQUIRE(t.servers()[0].storage_nics.size() == 2);
    CHECK(pcie_parent(t, t.servers()[0].storage_nics[0]) == t.servers()[0].host);
}

TEST_CASE("an NVLink split that does not add up to the GPU's links is a ConfigError", "[servers][errors]") {
    scenario::ServerSpec s = test::hgx_h100();
    s.nvlink.split = {5, 4, 4, 4};
    try {
        (void)build(s);
        FAIL("no error");
    } catch (const ConfigError& e) {
        CHECK(e.issues().at(0).str() ==
              "cluster.server.nvlink.split: the split adds up to 17 links, but each GPU has 18 (links_per_gpu)");
    }
    s.nvlink.split = {9, 9};
    CHECK_THROWS_WITH(build(s),
                      "cluster.server.nvlink.split: 2 entries for 4 NVSwitch chips; give one link count per switch");
}

TEST_CASE("an even NVLink split when none is given: 18 links over 4 switches are 5-5-4-4", "[servers]") {
    scenario::ServerSpec s = test::hgx_h100();
    s.nvlink.split.clear();
    const Topology t = build(s);
    const ServerInfo& info = t.servers()[0];
    CHECK(links_between(t, info.gpus[3], info.nvswitches[0]).size() == 5);
    CHECK(links_between(t, info.gpus[3], info.nvswitches[1]).size() == 5);
    CHECK(links_between(t, info.gpus[3], info.nvswitches[2]).size() == 4);
    CHECK(links_between(t, info.gpus[3], info.nvswitches[3]).size() == 4);
}

TEST_CASE("servers without NICs cannot form a cluster of more than one", "[servers][errors]") {
    scenario::ServerSpec s = test::hgx_h100();
    s.nics = 0;
    CHECK_THROWS_WITH(build(s, 3),
                      "cluster.server.nics: servers without NICs cannot reach each other; 3 servers need at "
                      "least 1 NIC each");
    CHECK(build(s, 1).count(NodeKind::leaf) == 0);
}
