// Two CPU sockets (cluster.server.host.sockets, docs/models/gpudirect.md): a second root complex
// joined to the first by the socket link, which P2P between GPUs of different sockets crosses.
#include <catch2/catch.hpp>

#include "fabric/routing.hpp"
#include "fabric/topology_builder.hpp"

#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::fabric;

namespace {

std::vector<std::string> nodes_on(const Topology& t, const std::vector<DirectedLink>& path) {
    std::vector<std::string> out;
    for (const DirectedLink d : path) out.push_back(t.node(t.target(d)).name);
    return out;
}

}  // namespace

TEST_CASE("two sockets: GPUs under different sockets reach each other through the socket link", "[routing][sockets]") {
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
    // The socket link is a board link at host.socket_link per direction.
    const DirectedLink cross = r.path(RankId{0}, RankId{3})[2];
    CHECK(t.link(cross.link).link_class == "socket-link");
    CHECK(t.link(cross.link).bandwidth == c.server.host.socket_link);
}
