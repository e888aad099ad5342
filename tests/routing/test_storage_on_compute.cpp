// Storage nodes on the compute fabric (cluster.storage): a GPU reaches one through its rank's
// NIC, over PCIe and the compute fabric only, on one plane or on several.
#include <catch2/catch.hpp>

#include "fabric/routing.hpp"
#include "fabric/topology_builder.hpp"

#include <algorithm>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace fabricsim::fabric;
using scenario::RoutingKind;
using scenario::Technology;
using scenario::TopologyKind;

namespace {

// 16 HGX H100-like servers (8 GPUs, 4 NVSwitches, 4 PCIe switches, 8 x 400G NICs) on a
// leaf-spine of 64-port 400G switches, and 4 storage nodes with a NIC on every plane.
scenario::ClusterSpec storage_cluster(int planes) {
    scenario::ClusterSpec c;
    c.servers = 16;
    c.server.gpus = 8;
    c.server.nvlink = {"nvlink4", 18, Bandwidth::GBps(25), 4, {5, 4, 4, 5}};
    c.server.pcie = {5, 16, 4};
    c.server.nics = 8;
    c.server.nic.line_rate = 400_Gbps;
    c.fabric.topology = TopologyKind::leaf_spine;
    c.fabric.switch_spec.radix = 64;
    c.fabric.planes = planes;
    c.storage.nodes = 4;
    c.storage.nics_per_node = planes;
    c.storage.nic.line_rate = 400_Gbps;
    return c;
}

}  // namespace

TEST_CASE("GPU to a storage node on the compute fabric: out by the rank NIC over PCIe and fabric links only",
          "[routing][storage]") {
    for (int planes : {1, 2}) {
        INFO(planes << " planes");
        const scenario::ClusterSpec c = storage_cluster(planes);
        const Topology t = build_topology(c);
        for (RoutingKind policy : {RoutingKind::ecmp, RoutingKind::static_}) {
            const Routing r(t, policy, policy == RoutingKind::static_ ? Technology::infiniband : Technology::roce, 7);
            for (std::uint32_t rank : {0U, 5U, 127U}) {
                const RankInfo& info = t.rank(RankId{rank});
                for (NodeId stor : t.storage_nodes()) {
                    for (std::uint32_t qp : {0U, 1U, 2U}) {
                        const auto path = r.path(FlowKey{info.gpu, stor, qp});
                        REQUIRE(!path.empty());
                        CHECK(t.source(path.front()) == info.gpu);
                        CHECK(t.target(path.back()) == stor);
                        // GPU -> PCIe switch -> rank NIC -> leaf ... -> storage node.
                        const auto nic_hop = std::find_if(path.begin(), path.end(), [&](const DirectedLink& d) {
                            return t.link(d.link).type == LinkType::fabric;
                        });
                        REQUIRE(nic_hop != path.end());
                        CHECK(t.source(*nic_hop) == info.nic);
                        for (const DirectedLink& d : path) {
                            const LinkType type = t.link(d.link).type;
                            CHECK((type == LinkType::pcie || type == LinkType::fabric));
                        }
                        CHECK(path.size() <= std::size_t{2 + 4});  // 2 PCIe hops; NIC-leaf-spine-leaf-storage
                        // And back: the storage node reaches the GPU through the same NIC.
                        const auto back = r.path(FlowKey{stor, info.gpu, qp});
                        REQUIRE(!back.empty());
                        CHECK(t.target(back.back()) == info.gpu);
                        CHECK(std::any_of(back.begin(), back.end(),
                                          [&](const DirectedLink& d) { return t.target(d) == info.nic; }));
                    }
                }
            }
            // GPU to GPU across planes still works with storage nodes on every plane.
            CHECK(!r.path(RankId{0}, RankId{127}).empty());
            CHECK(!r.path(RankId{1}, RankId{8}).empty());
        }
    }
}
