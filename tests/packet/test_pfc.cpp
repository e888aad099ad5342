// PFC in the packet model (docs/models/pfc.md): a bottleneck shared by pausing its feeders,
// incast without loss, and loss when the headroom is set below the worst case.
#include <catch2/catch.hpp>

#include "core/simulator.hpp"
#include "fabric/packet/packet_network.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology_builder.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using fabric::DirectedLink;

namespace {

scenario::ClusterSpec hosts(int n) {
    scenario::ClusterSpec c;
    c.servers = n;
    c.server.gpus = 0;
    c.server.nics = 1;
    c.server.nic.line_rate = 100_Gbps;
    c.fabric.topology = scenario::TopologyKind::single_switch;
    c.fabric.switch_spec.port_speed = 100_Gbps;
    c.fabric.switch_spec.latency = 500_ns;
    c.fabric.cable_length = Length::m(10);
    c.fabric.switch_spec.buffer = 4_MB;  // XOFF = 1/8 of the free shared buffer: about 470 KB
    return c;
}

// PFC alone: no ECN marking and no DCQCN, as the PFC cases ask.
scenario::RoceSpec pfc_only() {
    scenario::RoceSpec roce;
    roce.ecn.enabled = false;
    roce.dcqcn.enabled = false;
    return roce;
}

struct Model {
    Model(const scenario::ClusterSpec& c, const scenario::RoceSpec& roce)
        : topology(fabric::build_topology(c)),
          routing(topology, c.fabric.routing, c.fabric.technology, 1),
          network(topology, routing, fabric::PacketModelSpec{c.fabric.mtu, 64_KiB, c.fabric.technology, roce}) {}
    fabric::Topology topology;
    fabric::Routing routing;
    fabric::PacketNetwork network;
    // The NIC -> switch link of rank r: its egress is what PFC pauses.
    DirectedLink uplink(std::uint32_t r) const { return routing.path(RankId{r}, RankId{r == 0 ? 1u : 0u})[1]; }
};

struct Sink final : DeliveryListener {
    std::vector<Time> at;
    void on_delivered(Simulator& sim, MessageId id) override {
        if (at.size() <= id.value()) at.resize(id.value() + 1, Time::max());
        at[id.value()] = sim.now();
    }
};

Message msg(std::uint32_t id, std::uint32_t from, std::uint32_t to, Bytes size) {
    Message m;
    m.id = MessageId{id};
    m.src = RankId{from};
    m.dst = RankId{to};
    m.size = size;
    return m;
}

}  // namespace

TEST_CASE("PFC two senders into one receiver: half the rate each and each paused half the time", "[packet][pfc]") {
    Model m(hosts(3), pfc_only());
    Simulator sim(1);
    Sink sink;
    const Bytes size = 32_MiB;
    m.network.send(sim, msg(0, 0, 2, size), sink);
    m.network.send(sim, msg(1, 1, 2, size), sink);
    sim.run();
    REQUIRE(sink.at.size() == 2);
    const auto c = m.network.counters();
    CHECK(c.lossless_drops == 0);
    CHECK(c.pfc_pauses_sent > 0);
    const DirectedLink down = m.routing.path(RankId{0}, RankId{2})[2];
    const double two_s = transmit_time(size * 2, m.topology.link(down.link).payload_bandwidth()).seconds();
    for (std::uint32_t r : {0u, 1u}) {
        // 50 % ± 2 % of the bottleneck each: both finish at 2S / B.
        CHECK(sink.at[r].seconds() == Approx(two_s).epsilon(0.02));
        // Each sender's link is paused half of the time, ± 3 %.
        const double paused = m.network.paused_time(m.uplink(r)).seconds() / sink.at[r].seconds();
        CHECK(paused == Approx(0.5).margin(0.03));
        // The queue sits at XOFF: it rose past it (and paused) and never past XOFF + headroom,
        // XOFF at most 1/8 of the shared buffer (4 MB less 3 ports' headroom and reserve).
        const DirectedLink in = m.uplink(r);
        const Bytes reserved = scenario::MmuSpec{}.reserved_per_queue;
        const Bytes shared = 4_MB - (m.network.headroom(in) + reserved) * 3;
        CHECK(m.network.max_ingress(in) > reserved + shared / 16);
        CHECK(m.network.max_ingress(in) <= reserved + shared / 8 + m.network.headroom(in));
    }
}

TEST_CASE("PFC 32-to-1 incast loses nothing and holds every port within XOFF plus headroom", "[packet][pfc]") {
    Model m(hosts(33), pfc_only());
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s = 1; s <= 32; ++s) m.network.send(sim, msg(s - 1, s, 0, 2_MiB), sink);
    sim.run();
    const auto c = m.network.counters();
    CHECK(c.lossless_drops == 0);
    CHECK(c.pfc_pauses_sent >= 32);
    REQUIRE(sink.at.size() == 32);
    for (Time t : sink.at) CHECK(t != Time::max());
    CHECK(m.network.packets_in_flight() == 0);
    CHECK_NOTHROW(m.network.check_invariants(sim.now()));  // no lossless drop, bytes conserved
}

TEST_CASE("PFC with headroom below the worst case drops packets and counts them", "[packet][pfc]") {
    scenario::RoceSpec roce = pfc_only();
    roce.pfc.headroom = 1_KiB;  // less than one MTU frame: whatever is on the cable overflows
    Model m(hosts(33), roce);
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s = 1; s <= 32; ++s) m.network.send(sim, msg(s - 1, s, 0, 2_MiB), sink);
    sim.run();
    const auto c = m.network.counters();
    CHECK(c.lossless_drops > 0);
    CHECK(c.drops == c.lossless_drops);
    CHECK_THROWS_WITH(m.network.check_invariants(sim.now()),
                      Catch::Contains("dropped on the lossless class (PFC headroom or switch buffer too small)"));
}

TEST_CASE("PFC off: the same incast queues without bound and nothing pauses", "[packet][pfc]") {
    scenario::RoceSpec roce = pfc_only();
    roce.pfc.enabled = false;
    Model m(hosts(33), roce);
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s = 1; s <= 32; ++s) m.network.send(sim, msg(s - 1, s, 0, 2_MiB), sink);
    sim.run();
    const auto c = m.network.counters();
    CHECK(c.pfc_pauses_sent == 0);
    CHECK(c.max_queue > 16_MiB);  // most of the 64 MiB waits at the receiver's switch port
}
