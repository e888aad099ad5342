// A ring channel as one coupled flow (Offload::ring_channel, flow_ring.cpp; docs/models/flow.md,
// "Rings as one flow") against the closed forms of its messages and against the packet model.
#include <catch2/catch.hpp>

#include "flow_fixtures.hpp"
#include "workloads/collective_program.hpp"

using namespace flow_test;
using scenario::CollectiveAlgorithm;
using scenario::CollectiveOp;

namespace {
// One ring channel over ranks 0..n−1 of `steps` steps of `block` bytes, started at 0 beside the
// messages in `others` (sent at 0 too); its delivery time.
Time ring_channel(FlowModel& m, std::uint32_t n, std::uint32_t steps, Bytes block,
                  const std::vector<Message>& others = {}) {
    Simulator sim(1);
    Sink sink;
    std::vector<RankId> ranks;
    for (std::uint32_t i = 0; i < n; ++i) ranks.push_back(RankId{i});
    REQUIRE(m.network.offers(Offload::ring_channel, ranks));
    GroupOperation op;
    op.id = MessageId{0};
    op.offload = Offload::ring_channel;
    op.ranks = ranks;
    op.size = Bytes{block.count() * n};
    op.egress = op.ingress = Bytes{block.count() * steps};
    op.steps = steps;
    m.network.start_group(sim, op, sink);
    for (const Message& o : others) m.network.send(sim, o, sink);
    sim.run();
    m.network.check_invariants(sim.now());
    REQUIRE(!sink.at.empty());
    return sink.at[0];
}
}  // namespace

TEST_CASE("flow ring channel: alone in an HGX H100 it takes its messages' time, steps · (L + b / R)", "[flow]") {
    // 8 GPUs, all-reduce of 4 MiB on one channel: 14 steps of 512 KiB blocks, each step a
    // message that starts when the one before it has arrived, on links nothing else uses. Every
    // connection is GPU -> NVSwitches -> GPU, so every step takes the unloaded time u of one
    // block (latency + b / R, rounded up to 1 ps): T = 14 · u. The coupled flow's T is the
    // same sum in floating point, rounded up once: within 14 ps of it.
    const auto cluster = packet_test::hgx(1);
    FlowModel coupled(cluster, true), messages(cluster, true);
    const Time u = coupled.network.unloaded_time(msg(0, 0, 1, 512_KiB));
    const Time t = ring_channel(coupled, 8, 14, 512_KiB);
    INFO("coupled " << t.picoseconds() << " ps, 14 u " << 14 * u.picoseconds() << " ps");
    CHECK(std::abs(t.picoseconds() - 14 * u.picoseconds()) <= 14);
    // The same all-reduce as messages (add_collective's ring: one message per step here).
    const Time sent =
        run_collective(messages.network, cluster, CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 4_MiB, 1);
    INFO("messages " << sent.picoseconds() << " ps");
    CHECK(std::abs(t.picoseconds() - sent.picoseconds()) <= 14);
}

TEST_CASE("flow ring channel: a message on two of its links takes half of them until it ends", "[flow]") {
    // 8 GPUs, 14 steps of 8 MiB: 128 segments a step, so a connection stripes over all 18 of a
    // GPU's NVLink links: R = 18 c. Alone the ring takes T = 14 · u and is capped at its average,
    // cap = E / T (E = 14 · 8 MiB). A 16 MiB message from GPU 0 to GPU 2 shares GPU 0's links
    // out (the ring's connection 0 -> 1) and GPU 2's links in (1 -> 2); both want more than half
    // of them, so max-min gives each R / 2 until the message has sent M = 16 MiB at
    // t1 = M / (R / 2); the ring has sent M too, and sends the rest at its cap:
    //   T' = 2 M / R + (E − M) · T / E.
    const auto cluster = packet_test::hgx(1);
    FlowModel m(cluster, true), alone(cluster, true);
    const double big = static_cast<double>((8_MiB).count()), e = 14 * big,
                 msize = static_cast<double>((16_MiB).count());
    const double r = 18 * m.bottleneck(0, 1);
    const Time t = ring_channel(alone, 8, 14, 8_MiB);
    const Time u = alone.network.unloaded_time(msg(0, 0, 1, 8_MiB));
    CHECK(std::abs(t.picoseconds() - 14 * u.picoseconds()) <= 14);
    const double expected = (2 * msize / r + (e - msize) * t.seconds() / e) * 1e12;
    const Time shared = ring_channel(m, 8, 14, 8_MiB, {msg(1, 0, 2, 16_MiB)});
    INFO("shared " << shared.picoseconds() << " ps, closed form " << expected << " ps");
    CHECK(std::abs(static_cast<double>(shared.picoseconds()) - expected) <= 100);
    CHECK(shared > t);
}

TEST_CASE("flow ring channel: the flow model offers it, the packet model does not", "[flow]") {
    const auto cluster = packet_test::hgx(2);
    packet_test::Model packet(cluster, scenario::RoceSpec{});
    FlowModel flow(cluster);
    const std::vector<RankId> ranks{RankId{0}, RankId{8}};
    CHECK(flow.network.offers(Offload::ring_channel, ranks));
    CHECK_FALSE(packet.network.offers(Offload::ring_channel, ranks));
}

TEST_CASE("flow ring channel: simulation.flow_rings: messages turns it off", "[flow]") {
    // The collective layer asks offers() before it builds a ring channel; refused, it sends
    // the ring's messages (the run_variant wiring: FlowModelSpec::ring_channels).
    const auto cluster = packet_test::hgx(1);
    FlowModel coupled(cluster, true);
    auto spec = flow_spec(cluster, true);
    spec.ring_channels = false;
    fabric::Topology topology = fabric::build_topology(cluster);
    fabric::Routing routing(topology, cluster.fabric.routing, cluster.fabric.technology, 1);
    flow::FlowNetwork messages(topology, routing, spec, std::make_unique<flow::CpuMaxMin>());
    std::vector<RankId> ranks;
    for (std::uint32_t i = 0; i < 8; ++i) ranks.push_back(RankId{i});
    CHECK(coupled.network.offers(Offload::ring_channel, ranks));
    CHECK_FALSE(messages.offers(Offload::ring_channel, ranks));
}

TEST_CASE("flow ring channel: a collective's rings as one flow each, within 10 % of the packet model's messages",
          "[flow][agreement]") {
    // 2 HGX H100, ring all-reduce of 8 MiB: 16 channels of 512 KiB, one loop each (one message
    // per ring step), so the collective program runs each channel as one op on the flow model.
    const auto cluster = packet_test::hgx(2);
    scenario::CollectiveSpec spec;
    spec.op = CollectiveOp::all_reduce;
    spec.algorithm = CollectiveAlgorithm::ring;
    spec.sizes = {8_MiB};
    FlowModel flow(cluster);
    Simulator sim(1);
    workloads::OpGraph g;
    const auto e = g.add_entry("c");
    auto program = std::make_unique<workloads::CollectiveProgram>(spec, workloads::RankLayout(cluster), &flow.network);
    const workloads::CollectiveProgram& p = *program;
    const std::size_t channels = static_cast<std::size_t>(p.plan().runs.at(0).channels);
    workloads::Executor ex(std::move(g), flow.network);
    ex.set_program(e, std::move(program));
    ex.start(sim);
    sim.run();
    REQUIRE(ex.ops_done() == ex.ops_total());
    CHECK(ex.ops_total() == channels + 1);  // one op per channel and the run's join
    const Time coupled = workloads::measure(p.plan(), p.spans()).at(0).time;
    packet_test::Model packet(cluster, scenario::RoceSpec{});
    const Time sent = run_collective(packet.network, cluster, spec.op, spec.algorithm, 8_MiB);
    INFO("packet " << sent.seconds() * 1e6 << " us, coupled flow " << coupled.seconds() * 1e6 << " us");
    CHECK(coupled.seconds() / sent.seconds() == Approx(1.0).margin(0.10));
}
