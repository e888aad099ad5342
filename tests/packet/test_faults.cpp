// Faults in the packet model (docs/models/faults.md): a failed uplink under an all-reduce, a
// flapping uplink, a stuck receiver with and without the PFC watchdog. Expected values are
// derived in each test from the link rates.
#include <catch2/catch.hpp>

#include "fabric/packet/fault_injector.hpp"
#include "packet_fixtures.hpp"

#include <cmath>

using namespace packet_test;
using scenario::FaultKind;
using scenario::FaultSpec;

namespace {

// 8 plain hosts at 100G on a 2:1 leaf-spine of 6-port switches: each leaf has 4 hosts below
// and 2 uplinks (fabric_plan.cpp: 6 ports split 4:2), and the 2 leaves' 4 uplinks go to one
// spine, 2 parallel links per leaf. Spraying spreads every flow's packets evenly over the
// links it may take, so a link's share of a leaf's traffic is exact, not a hash's luck. A 4 MB
// switch buffer bounds the queueing delay (4 MB drain in 320 us at 100G, a few hops) well
// below the 2 ms retransmission timeout the tests use: a timeout shorter than the queues would
// send again what is only waiting, and go-back-N would then mostly carry copies.
scenario::ClusterSpec leaf_spine() {
    scenario::ClusterSpec c = hosts(8);
    c.fabric.switch_spec.buffer = 4_MB;
    c.fabric.topology = scenario::TopologyKind::leaf_spine;
    c.fabric.switch_spec.radix = 6;
    c.fabric.oversubscription = scenario::Ratio{2, 1};
    c.fabric.routing = scenario::RoutingKind::spray;
    return c;
}

fabric::PacketModelSpec faulty_spec(const scenario::ClusterSpec& c, scenario::RoceSpec roce) {
    fabric::PacketModelSpec spec = model_spec(c, roce);
    spec.ooo_placement =
        c.fabric.routing == scenario::RoutingKind::spray || c.fabric.routing == scenario::RoutingKind::adaptive;
    spec.recover_lossless = true;
    return spec;
}

// The network as `fabricsim run` builds it for a scenario with faults.
struct FaultyModel {
    FaultyModel(const scenario::ClusterSpec& c, const scenario::RoceSpec& roce, std::vector<FaultSpec> faults)
        : topology(fabric::build_topology(c)),
          routing(topology, c.fabric.routing, c.fabric.technology, 1),
          router(topology, routing, 1),
          network(topology, router, faulty_spec(c, roce)),
          injector(topology, router, network, std::move(faults)) {}
    fabric::Topology topology;
    fabric::Routing routing;
    fabric::FaultRouter router;
    fabric::PacketNetwork network;
    fabric::FaultInjector injector;
};

FaultSpec link_fault(FaultKind kind, std::string from, std::string to, Time at) {
    FaultSpec f;
    f.kind = kind;
    f.name = std::string(scenario::to_string(kind)) + "0";
    f.from = std::move(from);
    f.to = std::move(to);
    f.at = at;
    return f;
}

// A halving-doubling all-reduce of `size` over all 8 ranks, one channel: finished, and its
// busbw. Rounds pair ranks r and r xor d: d = 4, 2, 1 in the reduce-scatter (S/2, S/4, S/8
// each way) and 1, 2, 4 in the all-gather (S/8, S/4, S/2).
struct HdRun {
    bool finished = false;
    double busbw_GBps = 0;
};
HdRun hd_all_reduce(fabric::PacketNetwork& net, fabric::FaultInjector* injector, const scenario::ClusterSpec& c,
                    Bytes size) {
    Simulator sim(1);
    workloads::OpGraph g;
    const auto e = g.add_entry("ar");
    scenario::CollectiveSpec spec;
    spec.op = scenario::CollectiveOp::all_reduce;
    spec.algorithm = scenario::CollectiveAlgorithm::halving_doubling;
    spec.sizes = {size};
    spec.channels = 1;
    const auto plan = workloads::add_collective(g, e, spec, workloads::RankLayout(c), &net);
    workloads::Executor ex(std::move(g), net);
    if (injector != nullptr) injector->start(sim);
    ex.start(sim);
    sim.run();
    HdRun r;
    r.finished = ex.ops_done() == ex.ops_total();
    if (r.finished) r.busbw_GBps = workloads::measure(plan, ex.op_timings()).at(0).busbw_GBps;
    return r;
}

}  // namespace

TEST_CASE("a failed leaf uplink under an all-reduce: routes avoid it and busbw drops by the capacity lost",
          "[packet][faults]") {
    // Derivation. Hosts 0-3 hang off leaf0, 4-7 off leaf1. Halving-doubling's two distance-4
    // rounds (S/2 each way per rank) pair every host with one on the other leaf: 4 flows share
    // a leaf's uplinks each way. Its four rounds at distance 2 and 1 (S/4, S/8, S/8, S/4) stay
    // inside a leaf at the NIC's payload rate P. Partners send to each other at once, so the
    // rounds follow one another:
    //   both uplinks:  T = 2·(S/2)/(2P/4) + 2·(S/4 + S/8)/P = 2.75·S/P
    //   one left:      T = 2·(S/2)/(1P/4) + 0.75·S/P          = 4.75·S/P
    // (the spine reaches leaf0 over the surviving link only, so both directions lose half).
    // busbw = 2(n−1)/n·S / T = 1.75·S / T: 1.75/2.75·P before, 1.75/4.75·P after; the
    // ratio 2.75/4.75 is what the failure costs. The six rounds' latency and the pipeline's
    // fill add about 2 % to T at this size.
    const scenario::ClusterSpec c = leaf_spine();
    const Bytes size = 32_MiB;
    Model healthy(c, faulty_spec(c, pfc_only()));
    REQUIRE(healthy.topology.count(fabric::NodeKind::spine) == 1);
    Bandwidth payload;  // every fabric link runs at 100G
    for (const auto& link : healthy.topology.links())
        if (link.type == fabric::LinkType::fabric) payload = link.payload_bandwidth();
    const double p_GBps = payload.bytes_per_second() / 1e9;

    const HdRun before = hd_all_reduce(healthy.network, nullptr, c, size);
    REQUIRE(before.finished);
    CHECK(before.busbw_GBps == Approx(1.75 / 2.75 * p_GBps).epsilon(0.04));

    // Down from the start with routes already converged: no packet is lost, only capacity.
    FaultSpec down = link_fault(FaultKind::link_down, "leaf0", "spine0", Time::zero());
    down.reconverge = Time::zero();
    FaultyModel failed(c, pfc_only(), {down});
    const HdRun after = hd_all_reduce(failed.network, &failed.injector, c, size);
    REQUIRE(after.finished);
    CHECK(after.busbw_GBps == Approx(1.75 / 4.75 * p_GBps).epsilon(0.04));
    CHECK(after.busbw_GBps / before.busbw_GBps == Approx(2.75 / 4.75).epsilon(0.02));
    const auto damage = failed.injector.damage();
    REQUIRE(damage.size() == 1);
    CHECK(damage[0].packets_lost == 0);
    CHECK(damage[0].reconverged == Time::zero());
    CHECK(failed.network.counters().lossless_drops == 0);
}

TEST_CASE("a link that fails under traffic loses what it carries and RC on the lossless class sends it again",
          "[packet][faults]") {
    // ECMP (one path per QP), so the flows on the failed link lose packets until routes
    // reconverge 20 us later; go-back-N recovers them, the all-reduce finishes, and no packet
    // counts as a lossless drop (the loss was the link's, not PFC's).
    scenario::ClusterSpec c = leaf_spine();
    c.fabric.routing = scenario::RoutingKind::ecmp;
    scenario::RoceSpec roce = pfc_only();
    roce.retransmit_timeout = 2_ms;
    FaultSpec down = link_fault(FaultKind::link_down, "leaf0", "spine0", 200_us);
    down.reconverge = 20_us;
    FaultyModel m(c, roce, {down});
    const HdRun run = hd_all_reduce(m.network, &m.injector, c, 16_MiB);
    CHECK(run.finished);
    const FabricCounters k = m.network.counters();
    CHECK(k.fault_drops > 0);
    CHECK(k.retransmitted > 0);
    CHECK(k.lossless_drops == 0);
    CHECK(k.messages_abandoned == 0);
    CHECK(m.network.packets_in_flight() == 0);
    const auto damage = m.injector.damage();
    CHECK(damage.at(0).packets_lost == k.fault_drops);
    CHECK(damage.at(0).reconverged == 220_us);
}

TEST_CASE("a flapping uplink: the all-reduce finishes with retransmissions and no lossless drop", "[packet][faults]") {
    scenario::ClusterSpec c = leaf_spine();
    c.fabric.routing = scenario::RoutingKind::ecmp;
    scenario::RoceSpec roce = pfc_only();
    roce.retransmit_timeout = 2_ms;
    // Down 30 us of every 200 us from 50 us to 1 ms (jitter ±10 us), routes 10 us behind.
    FaultSpec flap = link_fault(FaultKind::link_flap, "leaf0", "spine0", 50_us);
    flap.period = 200_us;
    flap.down = 30_us;
    flap.jitter = 10_us;
    flap.until = 1_ms;
    flap.reconverge = 10_us;
    FaultyModel m(c, roce, {flap});
    const HdRun run = hd_all_reduce(m.network, &m.injector, c, 16_MiB);
    CHECK(run.finished);
    const FabricCounters k = m.network.counters();
    CHECK(k.retransmitted > 0);
    CHECK(k.lossless_drops == 0);
    CHECK_NOTHROW(m.network.check_invariants(Time::max()));
    // Flaps start in [50 us + 200 us·i − 10 us, + 10 us] for i = 0..4 (the next nominal start,
    // 1.05 ms, is past `until`; a jittered one could be at most 1.06 ms, also past it).
    CHECK(m.injector.damage().at(0).times_down == 5);
}

namespace {

// Hosts 0-3 each send 4 MiB to host 4, whose NIC is stuck from 0 to 1 ms; host 0 also sends
// 1 MiB to host 5 (a victim: it shares host 0's uplink, not the stuck port) on its own QP.
struct StormRun {
    Time victim_done = Time::max();
    bool all_done = false;
    std::int64_t paused_ports = 0;  // directed links whose sender PFC paused
    FabricCounters counters;
};
StormRun pfc_storm(std::optional<Time> watchdog) {
    const scenario::ClusterSpec c = small_buffer_hosts(6);
    scenario::RoceSpec roce = pfc_only();
    roce.pfc.watchdog = watchdog;
    roce.retransmit_timeout = 2_ms;
    FaultSpec stuck;
    stuck.kind = FaultKind::stuck_receiver;
    stuck.name = "stuck_receiver0";
    stuck.node = "s4.nic0";
    stuck.at = Time::zero();
    stuck.duration = 1_ms;
    FaultyModel m(c, roce, {stuck});
    Simulator sim(1);
    Sink sink;
    m.injector.start(sim);
    for (std::uint32_t s = 0; s < 4; ++s) m.network.send(sim, msg(s, s, 4, 4_MiB), sink);
    m.network.send(sim, msg(4, 0, 5, 1_MiB, 1), sink);
    sim.run();
    StormRun r;
    r.all_done =
        sink.at.size() == 5 && std::all_of(sink.at.begin(), sink.at.end(), [](Time t) { return t != Time::max(); });
    if (sink.at.size() == 5) r.victim_done = sink.at[4];
    for (const auto& port : m.network.port_reports())
        if (port.paused > Time::zero()) ++r.paused_ports;
    r.counters = m.network.counters();
    return r;
}

}  // namespace

TEST_CASE("a stuck receiver without the PFC watchdog: the pause spreads to every sender and the victim waits",
          "[packet][faults][pfc]") {
    const StormRun r = pfc_storm(std::nullopt);
    // The switch's port into s4.nic0 holds its packets; the switch's buffer for the four
    // senders' ingress fills past XOFF and PFC pauses all four NIC uplinks: 4 paused ports.
    CHECK(r.paused_ports == 4);
    // The victim's packets queue behind the paused ones at host 0's uplink: it cannot finish
    // before the receiver drains again at 1 ms (1 MiB alone takes ~85 us at 100G).
    CHECK(r.victim_done > 1_ms);
    CHECK(r.all_done);  // once unstuck, everything drains: nothing was dropped
    CHECK(r.counters.drops == 0);
    CHECK(r.counters.pfc_watchdog_triggers == 0);
}

TEST_CASE("a stuck receiver with the PFC watchdog: the storm is contained, RC recovers what it dropped",
          "[packet][faults][pfc]") {
    const StormRun r = pfc_storm(100_us);
    CHECK(r.counters.pfc_watchdog_triggers > 0);
    CHECK(r.counters.watchdog_drops > 0);
    CHECK(r.counters.lossless_drops == 0);  // RC sent them again: not a lossless loss
    // Go-back-N sends every dropped packet again at least once (and packets behind it that
    // were not lost), so it sends at least as many again as the watchdog dropped.
    CHECK(r.counters.retransmitted >= r.counters.watchdog_drops);
    CHECK(r.all_done);
    // After 100 us the port drops what comes for the stuck NIC, the switch drains and the
    // pauses end: the victim finishes long before the receiver recovers at 1 ms.
    CHECK(r.victim_done < 1_ms);
}

TEST_CASE("a degraded link: its lower speed sets a lone transfer's time, as the closed form says", "[packet][faults]") {
    // Host 0's NIC link runs at 25G instead of 100G from the start. A lone transfer of n
    // packets through store-and-forward hops takes the first packet's trip plus (n − 1) times
    // the slowest hop's packet time. Every fabric hop ran at 100G (PCIe is faster), so the
    // 25G hop becomes the slowest and adds its extra t25 − t100 once for the first packet and
    // n − 1 times for the train: T = T(100G) + n·(t25 − t100), n = 1024 packets of 4 KiB.
    const scenario::ClusterSpec c = hosts(2);
    FaultSpec slow;
    slow.kind = FaultKind::link_degraded;
    slow.name = "link_degraded0";
    slow.from = "s0.nic0";
    slow.speed = 25_Gbps;
    Model fast(c, pfc_only());
    slow.to = fast.topology.node(fast.topology.node(fast.topology.ranks()[0].nic).ports.back().peer).name;
    FaultyModel m(c, pfc_only(), {slow});
    Simulator sim(1);
    Sink sink;
    m.injector.start(sim);
    const Message one = msg(0, 0, 1, 4_MiB);
    m.network.send(sim, one, sink);
    sim.run();
    REQUIRE(sink.at.size() == 1);
    const Bandwidth p25 = Bandwidth::bps(static_cast<std::int64_t>(
        25e9 * m.topology.link(m.topology.node(m.topology.ranks()[0].nic).ports.back().link).efficiency));
    const Time t25 = transmit_time(4_KiB, p25);
    const Time alone = run_alone(fast, one);
    const Time t100 = transmit_time(
        4_KiB,
        fast.topology.link(fast.topology.node(fast.topology.ranks()[0].nic).ports.back().link).payload_bandwidth());
    CHECK(sink.at[0].seconds() == Approx((alone + (t25 - t100) * 1024).seconds()).epsilon(0.001));
}

TEST_CASE("bit errors drop each packet with probability 1 - (1 - BER)^bits, lossless class included, and RC recovers",
          "[packet][faults]") {
    // BER 1e-6 on host 0's uplink: a 4 KiB packet (32768 bits) is lost with
    // p = 1 − (1 − 1e-6)^32768 = 0.03223. Over the N packets the link carried (first sends and
    // go-back-N copies alike), the losses are binomial: within 4 standard deviations of N·p.
    // The ACKs coming back (64 B, p' = 1 − (1 − 1e-6)^512 = 5.1e-4, one per packet) add N·p'.
    const scenario::ClusterSpec c = hosts(2);
    Model probe(c, pfc_only());
    FaultSpec ber;
    ber.kind = FaultKind::link_degraded;
    ber.name = "link_degraded0";
    ber.from = "s0.nic0";
    ber.to = probe.topology.node(probe.topology.node(probe.topology.ranks()[0].nic).ports.back().peer).name;
    ber.ber = 1e-6;
    scenario::RoceSpec roce = pfc_only();
    roce.retransmit_timeout = 1_ms;
    FaultyModel m(c, roce, {ber});
    Simulator sim(1);
    Sink sink;
    m.injector.start(sim);
    m.network.send(sim, msg(0, 0, 1, 16_MiB), sink);
    sim.run();
    REQUIRE(sink.at.size() == 1);
    CHECK(sink.at[0] != Time::max());
    const fabric::DirectedLink up = fabric::DirectedLink{
        m.topology.node(m.topology.ranks()[0].nic).ports.back().link,
        m.topology.link(m.topology.node(m.topology.ranks()[0].nic).ports.back().link).a != m.topology.ranks()[0].nic};
    const double n = static_cast<double>(m.network.bytes_sent(up).count()) / 4096.0;
    const double p = 1.0 - std::pow(1.0 - 1e-6, 32768.0);
    const FabricCounters k = m.network.counters();
    INFO("carried " << n << " packets, lost " << k.fault_drops);
    const double p_ack = 1.0 - std::pow(1.0 - 1e-6, 512.0);
    CHECK(std::abs(static_cast<double>(k.fault_drops) - n * (p + p_ack)) < 4 * std::sqrt(n * (p + p_ack)));
    CHECK(k.retransmitted > 0);
    CHECK(k.lossless_drops == 0);
}

TEST_CASE("a NIC that fails for good: RC gives up after its retry count and the run ends, saying so",
          "[packet][faults]") {
    // Host 1's NIC fails at 10 us under a 4 MiB transfer to it. Nothing reaches it again, so
    // every timeout finds no progress: after 7 retries (8 timeouts of 1 ms) RC gives up, the
    // message stays undelivered, and no event is left.
    const scenario::ClusterSpec c = hosts(2);
    FaultSpec dead;
    dead.kind = FaultKind::nic_down;
    dead.name = "nic_down0";
    dead.node = "s1.nic0";
    dead.at = 10_us;
    scenario::RoceSpec roce = pfc_only();
    roce.retransmit_timeout = 1_ms;
    FaultyModel m(c, roce, {dead});
    Simulator sim(1);
    Sink sink;
    m.injector.start(sim);
    m.network.send(sim, msg(0, 0, 1, 4_MiB), sink);
    sim.run();
    CHECK(sink.at.empty());  // never delivered
    const FabricCounters k = m.network.counters();
    CHECK(k.messages_abandoned == 1);
    CHECK(k.rc_timeouts == 8);
    CHECK(m.injector.damage().at(0).packets_lost > 0);
}

TEST_CASE("a failed spine: routes go through the other one, which carries everything", "[packet][faults]") {
    // 16 hosts on 4 leaves of 6-port switches (4 down, 2 up), two spines (one link from each
    // leaf to each). spine1 fails at the start with routes converged: a transfer from host 0
    // (leaf0) to host 15 (leaf3) finishes at its unloaded time (the path through spine0 is as
    // long) and no byte crosses spine1.
    scenario::ClusterSpec c = hosts(16);
    c.fabric.topology = scenario::TopologyKind::leaf_spine;
    c.fabric.switch_spec.radix = 6;
    c.fabric.oversubscription = scenario::Ratio{2, 1};
    FaultSpec down;
    down.kind = FaultKind::switch_down;
    down.name = "switch_down0";
    down.node = "spine1";
    down.reconverge = Time::zero();
    FaultyModel m(c, pfc_only(), {down});
    REQUIRE(m.topology.count(fabric::NodeKind::spine) == 2);
    Simulator sim(1);
    Sink sink;
    m.injector.start(sim);
    for (std::uint32_t qp = 0; qp < 4; ++qp) m.network.send(sim, msg(qp, 0, 15, 1_MiB, qp), sink);
    sim.run();
    REQUIRE(sink.at.size() == 4);
    for (Time t : sink.at) CHECK(t != Time::max());
    fabric::NodeId spine1;
    for (std::uint32_t n = 0; n < m.topology.nodes().size(); ++n)
        if (m.topology.nodes()[n].name == "spine1") spine1 = fabric::NodeId{n};
    for (const auto& port : m.topology.node(spine1).ports)
        for (bool reverse : {false, true})
            CHECK(m.network.bytes_sent(fabric::DirectedLink{port.link, reverse}) == Bytes::zero());
    CHECK(m.network.counters().fault_drops == 0);
}

TEST_CASE("adaptive routing avoids a dead port of its own at once, and ECMP loses packets until routes reconverge",
          "[packet][faults]") {
    // The uplink fails as the run starts (nothing is on it yet) and routes reconverge only
    // 10 ms later. Both ends of the link are switches that see their own port go down:
    // adaptive routing, which weighs its ports per packet, never uses it, so nothing is lost;
    // ECMP keeps hashing flows onto it until reconvergence, so RC must recover them.
    std::int64_t lost[2] = {0, 0};
    for (const auto routing : {scenario::RoutingKind::adaptive, scenario::RoutingKind::ecmp}) {
        scenario::ClusterSpec c = leaf_spine();
        c.fabric.routing = routing;
        scenario::RoceSpec roce = pfc_only();
        roce.retransmit_timeout = 2_ms;
        FaultSpec down = link_fault(FaultKind::link_down, "leaf0", "spine0", Time::zero());
        down.reconverge = 10_ms;
        FaultyModel m(c, roce, {down});
        const HdRun run = hd_all_reduce(m.network, &m.injector, c, 4_MiB);
        CHECK(run.finished);
        lost[routing == scenario::RoutingKind::ecmp] = m.network.counters().fault_drops;
    }
    CHECK(lost[0] == 0);  // adaptive
    CHECK(lost[1] > 0);   // ECMP
}
