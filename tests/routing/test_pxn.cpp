// NCCL PXN (cluster.server.gpudirect.pxn, docs/models/gpudirect.md): on a rail-optimised fabric
// a GPU's message to a GPU of another rail leaves by its server's NIC of that rail, reached over
// NVLink through the GPU that NIC serves, so it never climbs to a spine.
#include <catch2/catch.hpp>

#include "fabric/routing.hpp"
#include "fabric/topology_builder.hpp"

#include <algorithm>
#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::fabric;
using namespace fabricsim::literals;

namespace {

// Two HGX-like servers (8 GPUs on 4 NVSwitches, 4 PCIe switches, 8 NICs) on a rail-optimised
// fabric: rail r's leaf joins NIC r of both servers, the spines join the rails.
scenario::ClusterSpec rails(bool pxn) {
    scenario::ClusterSpec c;
    c.servers = 2;
    c.server.gpus = 8;
    c.server.nics = 8;
    c.server.nic.line_rate = 400_Gbps;
    c.server.nvlink.generation = "nvlink4";
    c.server.nvlink.links_per_gpu = 18;
    c.server.nvlink.switches = 4;
    c.server.nvlink.split = {5, 4, 4, 5};
    c.server.pcie.switches = 4;
    c.server.gpudirect.pxn = pxn;
    c.fabric.topology = scenario::TopologyKind::rail_optimized;
    c.fabric.switch_spec.port_speed = 400_Gbps;
    c.fabric.switch_spec.radix = 10;  // 16 NICs do not fit one switch: 8 rail leaves (5 down, 5 up) and spines
    return c;
}

std::vector<std::string> nodes_on(const Topology& t, const std::vector<DirectedLink>& path) {
    std::vector<std::string> out;
    for (const DirectedLink d : path) out.push_back(t.node(t.target(d)).name);
    return out;
}

bool has(const std::vector<std::string>& v, const std::string& name) {
    return std::find(v.begin(), v.end(), name) != v.end();
}

bool climbs_to_spine(const Topology& t, const std::vector<DirectedLink>& path) {
    return std::any_of(path.begin(), path.end(),
                       [&](DirectedLink d) { return t.node(t.target(d)).kind == NodeKind::spine; });
}

}  // namespace

TEST_CASE("PXN: a message to another rail crosses NVLink to that rail's GPU and stays on the rail", "[routing][pxn]") {
    const Topology t = build_topology(rails(true));
    const Routing r(t, scenario::RoutingKind::ecmp, scenario::Technology::roce, 1);
    // Rank 0 (s0.gpu0, rail 0) to rank 9 (s1.gpu1, rail 1).
    const auto path = r.path(RankId{0}, RankId{9});
    const auto names = nodes_on(t, path);
    CHECK(has(names, "s0.gpu1"));  // the relay GPU, over NVLink
    CHECK(has(names, "s0.nic1"));  // the destination's rail
    CHECK_FALSE(has(names, "s0.nic0"));
    CHECK_FALSE(climbs_to_spine(t, path));
    CHECK(t.link(path.front().link).type == LinkType::nvlink);
    CHECK(names.back() == "s1.gpu1");
    // The same rail needs no relay: rank 1 to rank 9 leaves by its own NIC.
    CHECK_FALSE(has(nodes_on(t, r.path(RankId{1}, RankId{9})), "s0.gpu0"));
}

TEST_CASE("PXN off: a message to another rail leaves by the rank's own NIC and crosses a spine", "[routing][pxn]") {
    const Topology t = build_topology(rails(false));
    const Routing r(t, scenario::RoutingKind::ecmp, scenario::Technology::roce, 1);
    const auto path = r.path(RankId{0}, RankId{9});
    const auto names = nodes_on(t, path);
    CHECK(has(names, "s0.nic0"));
    CHECK_FALSE(has(names, "s0.gpu1"));
    CHECK(climbs_to_spine(t, path));
}

TEST_CASE("PXN needs GPUDirect RDMA: with it off the rank's own NIC is used", "[routing][pxn]") {
    scenario::ClusterSpec c = rails(true);
    c.server.gpudirect.rdma = false;
    const Topology t = build_topology(c);
    const Routing r(t, scenario::RoutingKind::ecmp, scenario::Technology::roce, 1);
    CHECK(has(nodes_on(t, r.path(RankId{0}, RankId{9})), "s0.nic0"));
}

TEST_CASE("two sockets: GPUs under different sockets reach each other through the socket link", "[routing][pxn]") {
    // 4 GPUs on 2 PCIe switches, one per socket, no NVLink: GPU 0 (socket 0) to GPU 3 (socket 1)
    // goes GPU -> pcisw0 -> cpu -> cpu1 -> pcisw1 -> GPU.
    scenario::ClusterSpec c;
    c.server.gpus = 4;
    c.server.nics = 2;
    c.server.pcie.switches = 2;
    c.server.host.sockets = 2;
    const Topology t = build_topology(c);
    const Routing r(t, scenario::RoutingKind::ecmp, scenario::Technology::roce, 1);
    const auto names = nodes_on(t, r.path(RankId{0}, RankId{3}));
    CHECK(names == std::vector<std::string>{"s0.pcisw0", "s0.cpu", "s0.cpu1", "s0.pcisw1", "s0.gpu3"});
    // Under one PCIe switch the path turns at the switch.
    CHECK(nodes_on(t, r.path(RankId{0}, RankId{1})) == std::vector<std::string>{"s0.pcisw0", "s0.gpu1"});
}
