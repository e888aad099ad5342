// The shipped server presets (configs/servers/), loaded by name and built: links per GPU,
// per-GPU NVLink bandwidth, every GPU on every NVSwitch, and the GPU <-> NIC PCIe path.
#include <catch2/catch.hpp>

#include "fabric/topology_builder.hpp"
#include "fabric/topology_summary.hpp"
#include "fabric_test_helpers.hpp"
#include "scenario/loader.hpp"

#include <fmt/format.h>

#include <algorithm>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::fabric;

namespace {

scenario::ClusterSpec load_cluster(const std::string& server, int servers = 2, const std::string& fabric = "") {
    scenario::LoadOptions options;
    options.config_dirs.emplace_back(std::string(FABRICSIM_SOURCE_DIR) + "/configs");
    const std::string text = fmt::format(
        "name: t\ncluster:\n  servers: {}\n  server: {}\n{}workload:\n  - transfer: {{ from: 0, to: 1, size: 1KiB }}\n",
        servers, server, fabric);
    return scenario::load_scenario_text(text, "t.yaml", options).variants.at(0).spec.cluster;
}

struct GpuLinks {
    int nvlinks = 0;
    Bandwidth nvlink;
    std::vector<NodeId> peers;
};

GpuLinks gpu_links(const Topology& t, NodeId gpu) {
    GpuLinks out;
    for (const Port& p : t.node(gpu).ports) {
        if (t.link(p.link).type != LinkType::nvlink) continue;
        ++out.nvlinks;
        out.nvlink = out.nvlink + t.link(p.link).bandwidth;
        if (std::find(out.peers.begin(), out.peers.end(), p.peer) == out.peers.end()) out.peers.push_back(p.peer);
    }
    return out;
}

// The device's PCIe parent (a PCIe switch, or the host).
NodeId pcie_parent(const Topology& t, NodeId device) {
    for (const Port& p : t.node(device).ports)
        if (t.link(p.link).type == LinkType::pcie) return p.peer;
    return NodeId::invalid();
}

}  // namespace

TEST_CASE("preset hgx-h100: 18 links - 450 GB/s per direction - all 4 NVSwitches - GPU and NIC on one PCIe switch",
          "[presets]") {
    const scenario::ClusterSpec c = load_cluster("hgx-h100");
    const Topology t = build_topology(c);
    const ServerInfo& s = t.servers()[0];
    REQUIRE(s.nvswitches.size() == 4);
    REQUIRE(s.pcie_switches.size() == 4);
    for (std::size_t g = 0; g < s.gpus.size(); ++g) {
        const GpuLinks l = gpu_links(t, s.gpus[g]);
        CHECK(l.nvlinks == 18);
        CHECK(l.nvlink == 450_GBps);
        CHECK(l.peers.size() == 4);
        CHECK(test::links_between(t, s.gpus[g], s.nvswitches[0]).size() == 5);
        CHECK(test::links_between(t, s.gpus[g], s.nvswitches[1]).size() == 4);
        const RankInfo& r = t.rank(RankId{static_cast<std::uint32_t>(g)});
        CHECK(t.node(pcie_parent(t, s.gpus[g])).kind == NodeKind::pcie_switch);
        CHECK(pcie_parent(t, s.gpus[g]) == pcie_parent(t, r.nic));
    }
    CHECK(summarize(t, c).nvlink_per_gpu == 450_GBps);
}

TEST_CASE("preset hgx-a100: 12 NVLink3 links - 300 GB/s per direction - 2 to each of 6 NVSwitches - 200G NICs",
          "[presets]") {
    const Topology t = build_topology(load_cluster("hgx-a100"));
    const ServerInfo& s = t.servers()[1];
    REQUIRE(s.nvswitches.size() == 6);
    for (NodeId gpu : s.gpus) {
        const GpuLinks l = gpu_links(t, gpu);
        CHECK(l.nvlinks == 12);
        CHECK(l.nvlink == 300_GBps);
        CHECK(l.peers.size() == 6);
    }
    for (std::size_t g = 0; g < 8; ++g) CHECK(pcie_parent(t, s.gpus[g]) == pcie_parent(t, s.nics[g]));
    CHECK(t.link(t.node(s.nics[0]).ports.back().link).bandwidth == 200_Gbps);
}

TEST_CASE("preset hgx-b200: 18 NVLink5 links at 50 GB/s - 900 GB/s per direction over 2 switch chips", "[presets]") {
    const Topology t = build_topology(load_cluster("hgx-b200"));
    const ServerInfo& s = t.servers()[0];
    REQUIRE(s.nvswitches.size() == 2);
    for (NodeId gpu : s.gpus) {
        const GpuLinks l = gpu_links(t, gpu);
        CHECK(l.nvlinks == 18);
        CHECK(l.nvlink == 900_GBps);
        CHECK(l.peers.size() == 2);
    }
}

TEST_CASE("preset pcie-l40s: no NVLink - each GPU reaches its NIC through its PCIe Gen4 switch", "[presets]") {
    const Topology t = build_topology(load_cluster("pcie-l40s"));
    const ServerInfo& s = t.servers()[0];
    CHECK(s.nvswitches.empty());
    REQUIRE(s.nics.size() == 2);
    for (std::size_t g = 0; g < 8; ++g) {
        CHECK(gpu_links(t, s.gpus[g]).nvlinks == 0);
        const RankInfo& r = t.rank(RankId{static_cast<std::uint32_t>(g)});
        CHECK(r.nic == s.nics[g / 4]);
        CHECK(pcie_parent(t, s.gpus[g]) == pcie_parent(t, r.nic));
        CHECK(t.link(test::links_between(t, s.gpus[g], pcie_parent(t, s.gpus[g])).at(0)).link_class == "pcie-gen4-x16");
    }
}

TEST_CASE("preset h100-pcie-bridge: the two GPUs joined by 12 NVLink links - 300 GB/s - no NVSwitch", "[presets]") {
    const Topology t = build_topology(load_cluster("h100-pcie-bridge"));
    const ServerInfo& s = t.servers()[0];
    REQUIRE(s.gpus.size() == 2);
    CHECK(s.nvswitches.empty());
    CHECK(test::links_between(t, s.gpus[0], s.gpus[1]).size() == 12);
    CHECK(gpu_links(t, s.gpus[1]).nvlink == 300_GBps);
    CHECK(pcie_parent(t, s.gpus[0]) == s.host);
    CHECK(pcie_parent(t, s.nics[0]) == s.host);
}

TEST_CASE("preset host-1nic: one rank on the CPU - one 400G NIC on a root port", "[presets]") {
    const Topology t = build_topology(load_cluster("host-1nic", 3));
    CHECK(t.ranks().size() == 3);
    CHECK(t.count(NodeKind::gpu) == 0);
    CHECK(t.rank(RankId{1}).gpu == t.servers()[1].host);
    CHECK(t.link(t.node(t.servers()[1].nics[0]).ports.back().link).bandwidth == 400_Gbps);
}

TEST_CASE("switch presets by name: quantum-2 (64 x NDR) and spectrum-4 (128 x 400G)", "[presets]") {
    const scenario::ClusterSpec ib =
        load_cluster("hgx-h100", 64, "  fabric: { technology: infiniband, topology: leaf-spine, switch: quantum-2 }\n");
    const TopologySummary s = summarize(build_topology(ib), ib);
    CHECK(s.radix == 64);
    CHECK(s.switches.leaf == 16);  // 512 NICs / 32
    CHECK(s.switches.spine == 8);  // 16 x 32 uplinks, 4 parallel links from each leaf to each spine
    CHECK(s.link_classes.at("ib-ndr") == 512 + 512);
    CHECK(s.max_nic_to_nic_latency == 2 * 25_ns + 2 * 150_ns + 3 * 200_ns);  // Quantum-2 preset: 200 ns
    const scenario::ClusterSpec eth = load_cluster("hgx-h100", 64, "  fabric: { switch: spectrum-4 }\n");
    const TopologySummary e = summarize(build_topology(eth), eth);
    CHECK(e.radix == 128);
    CHECK(e.switches.leaf == 8);
    CHECK(e.switches.spine == 4);
}
