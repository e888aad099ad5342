#include "fabric_test_helpers.hpp"
#include "core/errors.hpp"
#include "fabric/topology_builder.hpp"

namespace fabricsim::test {

using fabric::NodeId;
using fabric::NodeKind;
using fabric::Topology;

namespace {
scenario::NicSpec nic(Bandwidth rate, int generation) {
    scenario::NicSpec n;
    n.line_rate = rate;
    n.pcie_generation = generation;
    n.pcie_lanes = 16;
    return n;
}
}  // namespace

scenario::ServerSpec hgx_h100() {
    scenario::ServerSpec s;
    s.gpu_model = "H100 SXM5";
    s.gpus = 8;
    s.nvlink = {"nvlink4", 18, Bandwidth::GBps(25), 4, {5, 4, 4, 5}};
    s.pcie = {5, 16, 4};
    s.nics = 8;
    s.nic = nic(Bandwidth::Gbps(400), 5);
    s.storage_nics = 2;
    s.storage_nic = nic(Bandwidth::Gbps(400), 5);
    return s;
}

scenario::ServerSpec hgx_a100() {
    scenario::ServerSpec s;
    s.gpu_model = "A100 SXM4";
    s.gpus = 8;
    s.nvlink = {"nvlink3", 12, Bandwidth::zero(), 6, {}};
    s.pcie = {4, 16, 4};
    s.nics = 8;
    s.nic = nic(Bandwidth::Gbps(200), 4);
    return s;
}

scenario::ServerSpec hgx_b200() {
    scenario::ServerSpec s;
    s.gpu_model = "B200";
    s.gpus = 8;
    s.nvlink = {"nvlink5", 18, Bandwidth::zero(), 2, {9, 9}};
    s.pcie = {5, 16, 4};
    s.nics = 8;
    s.nic = nic(Bandwidth::Gbps(400), 5);
    return s;
}

scenario::ServerSpec h100_pcie_bridge() {
    scenario::ServerSpec s;
    s.gpu_model = "H100 PCIe";
    s.gpus = 2;
    s.nvlink = {"nvlink4", 12, Bandwidth::zero(), 0, {}};
    s.pcie = {5, 16, 0};
    s.nics = 2;
    s.nic = nic(Bandwidth::Gbps(400), 5);
    return s;
}

scenario::ServerSpec pcie_l40s() {
    scenario::ServerSpec s;
    s.gpu_model = "L40S";
    s.gpus = 8;
    s.nvlink = {"nvlink4", 0, Bandwidth::zero(), 0, {}};
    s.pcie = {4, 16, 2};
    s.nics = 2;
    s.nic = nic(Bandwidth::Gbps(200), 4);
    return s;
}

scenario::ServerSpec host_1nic(Bandwidth rate) {
    scenario::ServerSpec s;
    s.gpus = 0;
    s.nics = 1;
    s.nic = nic(rate, 5);
    return s;
}

scenario::ClusterSpec cluster(int servers, scenario::ServerSpec server, scenario::TopologyKind kind, int radix,
                              Bandwidth port_speed, scenario::Ratio ratio) {
    scenario::ClusterSpec c;
    c.servers = servers;
    c.server = std::move(server);
    c.fabric.topology = kind;
    c.fabric.switch_spec.radix = radix;
    c.fabric.switch_spec.port_speed = port_speed;
    c.fabric.oversubscription = ratio;
    return c;
}

std::vector<fabric::LinkId> links_between(const Topology& t, NodeId a, NodeId b) {
    std::vector<fabric::LinkId> out;
    for (const fabric::Port& p : t.node(a).ports)
        if (p.peer == b) out.push_back(p.link);
    return out;
}

std::vector<NodeId> nodes_of(const Topology& t, NodeKind kind) {
    std::vector<NodeId> out;
    for (std::uint32_t i = 0; i < t.nodes().size(); ++i)
        if (t.nodes()[i].kind == kind) out.push_back(NodeId{i});
    return out;
}

NodeId leaf_of(const Topology& t, NodeId endpoint) {
    for (const fabric::Port& p : t.node(endpoint).ports)
        if (t.node(p.peer).kind == NodeKind::leaf) return p.peer;
    return NodeId::invalid();
}

std::string error_of(const scenario::ClusterSpec& c) {
    try {
        (void)fabric::build_topology(c);
    } catch (const ConfigError& e) {
        if (e.issues().size() != 1) return "(" + std::to_string(e.issues().size()) + " issues)";
        return e.issues()[0].str();
    }
    return "(no error)";
}

}  // namespace fabricsim::test
