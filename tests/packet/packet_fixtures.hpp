// Shared pieces of the packet-model tests: plain hosts on one switch, a model built from a
// cluster spec, a listener that records delivery times, and messages.
#pragma once

#include "core/simulator.hpp"
#include "fabric/packet/packet_network.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology_builder.hpp"
#include "workloads/collective.hpp"
#include "workloads/executor.hpp"

#include <vector>

namespace packet_test {

using namespace fabricsim;
using namespace fabricsim::literals;

// `n` plain hosts (one rank and one NIC each) on one switch of 500 ns port-to-port latency,
// 10 m cables, everything at `rate`.
inline scenario::ClusterSpec hosts(int n, Bandwidth rate = 100_Gbps) {
    scenario::ClusterSpec c;
    c.servers = n;
    c.server.gpus = 0;
    c.server.nics = 1;
    c.server.nic.line_rate = rate;
    c.fabric.topology = scenario::TopologyKind::single_switch;
    c.fabric.switch_spec.port_speed = rate;
    c.fabric.switch_spec.latency = 500_ns;
    c.fabric.cable_length = Length::m(10);
    return c;
}

// RoCE with PFC alone: no ECN marking and no DCQCN.
inline scenario::RoceSpec pfc_only() {
    scenario::RoceSpec roce;
    roce.ecn.enabled = false;
    roce.dcqcn.enabled = false;
    return roce;
}

inline fabric::PacketModelSpec model_spec(const scenario::ClusterSpec& c, const scenario::RoceSpec& roce) {
    fabric::PacketModelSpec spec;
    spec.mtu = c.fabric.mtu;
    spec.technology = c.fabric.technology;
    spec.roce = roce;
    spec.infiniband = c.infiniband;
    return spec;
}

// HGX H100-like servers: 8 GPUs, 18 NVLink4 links each through 4 NVSwitches (5/4/4/5), 4 PCIe
// switches, 8 NICs at 400G, on 400G switch ports.
inline scenario::ClusterSpec hgx(int servers) {
    scenario::ClusterSpec c;
    c.servers = servers;
    c.server.gpus = 8;
    c.server.nics = 8;
    c.server.nic.line_rate = 400_Gbps;
    c.server.nvlink.generation = "nvlink4";
    c.server.nvlink.links_per_gpu = 18;
    c.server.nvlink.switches = 4;
    c.server.nvlink.split = {5, 4, 4, 5};
    c.server.pcie.switches = 4;
    c.fabric.switch_spec.port_speed = 400_Gbps;
    return c;
}

struct Model {
    Model(const scenario::ClusterSpec& c, const scenario::RoceSpec& roce) : Model(c, model_spec(c, roce)) {}
    Model(const scenario::ClusterSpec& c, const fabric::PacketModelSpec& spec)
        : topology(fabric::build_topology(c)),
          routing(topology, c.fabric.routing, c.fabric.technology, 1),
          network(topology, routing, spec) {}
    fabric::Topology topology;
    fabric::Routing routing;
    fabric::PacketNetwork network;
    // The NIC -> switch link of a plain host's rank r (its second hop).
    fabric::DirectedLink uplink(std::uint32_t r) const { return routing.path(RankId{r}, RankId{r == 0 ? 1u : 0u})[1]; }
};

// Records when each message id was delivered (Time::max() until then).
struct Sink final : DeliveryListener {
    std::vector<Time> at;
    void on_delivered(Simulator& sim, MessageId id) override {
        if (at.size() <= id.value()) at.resize(id.value() + 1, Time::max());
        at[id.value()] = sim.now();
    }
};

inline Message msg(std::uint32_t id, std::uint32_t from, std::uint32_t to, Bytes size, std::uint32_t qp = 0,
                   std::uint8_t priority = Message::kDataClass) {
    Message m;
    m.priority = priority;
    m.id = MessageId{id};
    m.src = RankId{from};
    m.dst = RankId{to};
    m.size = size;
    m.flow_hint = qp;
    return m;
}

// 4 MB of switch buffer: XOFF = 1/8 of the free shared buffer, about 470 KB.
inline scenario::ClusterSpec small_buffer_hosts(int n) {
    scenario::ClusterSpec c = hosts(n);
    c.fabric.switch_spec.buffer = 4_MB;
    return c;
}

// `one` alone on an idle network: when it is delivered.
inline Time run_alone(Model& m, const Message& one) {
    Simulator sim(1);
    Sink sink;
    m.network.send(sim, one, sink);
    sim.run();
    REQUIRE(sink.at.size() == one.id.value() + 1);
    return sink.at[one.id.value()];
}

// Hosts 0 to 3 each send `size` to host 4 on the data class (messages 0 to 3) while host 0
// sends `size` to host 5 on `victim_class` (message 4, QP 1): when the victim is delivered.
inline Time incast_with_victim(Model& m, Bytes size, std::uint8_t victim_class) {
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s = 0; s < 4; ++s) m.network.send(sim, msg(s, s, 4, size), sink);
    m.network.send(sim, msg(4, 0, 5, size, 1, victim_class), sink);
    sim.run();
    REQUIRE(sink.at.size() == 5);
    return sink.at[4];
}

// Hosts 0 and 1 each send `size` to host 2 at time 0 (messages 0 and 1), run to the end.
inline void two_to_one(Model& m, Simulator& sim, Sink& sink, Bytes size) {
    m.network.send(sim, msg(0, 0, 2, size), sink);
    m.network.send(sim, msg(1, 1, 2, size), sink);
    sim.run();
}

// One all-reduce of `size` by `algorithm` through the collective layer on `m`, run to the
// end: whether every op finished, and its measurement. `channels` 0: as NCCL would choose.
struct AllReduceRun {
    bool finished = false;
    workloads::CollectiveMeasurement measured;
};
inline AllReduceRun run_all_reduce(Model& m, const scenario::ClusterSpec& cluster,
                                   scenario::CollectiveAlgorithm algorithm, Bytes size, int channels = 0) {
    Simulator sim(1);
    workloads::OpGraph g;
    const auto e = g.add_entry("ar");
    scenario::CollectiveSpec spec;
    spec.op = scenario::CollectiveOp::all_reduce;
    spec.algorithm = algorithm;
    spec.sizes = {size};
    spec.channels = channels;
    const auto plan = workloads::add_collective(g, e, spec, workloads::RankLayout(cluster), &m.network);
    workloads::Executor ex(std::move(g), m.network);
    ex.start(sim);
    sim.run();
    AllReduceRun run;
    run.finished = ex.ops_done() == ex.ops_total();
    if (run.finished) run.measured = workloads::measure(plan, ex.op_timings()).at(0);
    return run;
}

}  // namespace packet_test
