// Shared pieces of the flow-model tests: a flow network built from a cluster spec (the packet
// tests' clusters and sinks), and one collective run through the collective layer on any
// Network, so the two models can be compared on the same work.
#pragma once

#include "flow/flow_network.hpp"
#include "packet_fixtures.hpp"

#include <memory>

namespace flow_test {

using namespace fabricsim;
using namespace fabricsim::literals;
using packet_test::msg;
using packet_test::Sink;

// `exact`: re-solve at every change (the closed-form tests); otherwise the default interval.
inline flow::FlowModelSpec flow_spec(const scenario::ClusterSpec& c, bool exact = false) {
    flow::FlowModelSpec s;
    if (exact) s.solve_interval = Time::zero();
    s.mtu = c.fabric.mtu;
    s.technology = c.fabric.technology;
    s.qps_per_connection = c.server.nic.qps_per_connection;
    s.sharp = c.fabric.technology == scenario::Technology::infiniband && c.fabric.switch_spec.sharp;
    s.cluster = c;
    return s;
}

struct FlowModel {
    explicit FlowModel(const scenario::ClusterSpec& c, bool exact = false)
        : topology(fabric::build_topology(c)),
          routing(topology, c.fabric.routing, c.fabric.technology, 1),
          network(topology, routing, flow_spec(c, exact), std::make_unique<flow::CpuMaxMin>()) {}
    fabric::Topology topology;
    fabric::Routing routing;
    flow::FlowNetwork network;
    // Payload bytes/s of the slowest link on the path from rank a to rank b.
    double bottleneck(std::uint32_t a, std::uint32_t b) const {
        double r = 1e300;
        for (auto d : routing.path(RankId{a}, RankId{b}))
            r = std::min(r, static_cast<double>(topology.link(d.link).payload_bandwidth().bits_per_second()) / 8);
        return r;
    }
};

// One collective of `size` on `network` through the collective layer; its measured time
// (Time::max() when ops were left unfinished).
inline Time run_collective(Network& network, const scenario::ClusterSpec& cluster, scenario::CollectiveOp op,
                           scenario::CollectiveAlgorithm algorithm, Bytes size, int channels = 0) {
    Simulator sim(1);
    workloads::OpGraph g;
    const auto e = g.add_entry("c");
    scenario::CollectiveSpec spec;
    spec.op = op;
    spec.algorithm = algorithm;
    spec.sizes = {size};
    spec.channels = channels;
    const auto plan = workloads::add_collective(g, e, spec, workloads::RankLayout(cluster), &network);
    workloads::Executor ex(std::move(g), network);
    ex.start(sim);
    sim.run();
    network.check_invariants(sim.now());
    if (ex.ops_done() != ex.ops_total()) return Time::max();
    return workloads::measure(plan, ex.op_timings()).at(0).time;
}

}  // namespace flow_test
