// The coupled congestion-control overlay of the flow network (src/flow/flow_congestion.hpp,
// `simulation.flow_congestion: fluid`): DCQCN's fixed point reached inside the flow network,
// back-pressure that holds a whole uplink, an uncongested fabric left exactly as it was, and
// an incast against the packet model.
#include <catch2/catch.hpp>

#include "flow/dcqcn_fluid_fabric.hpp"
#include "flow/dcqcn_standing_queue.hpp"
#include "flow_fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::flow;
using namespace fabricsim::literals;

namespace {

struct Coupled {
    explicit Coupled(const scenario::ClusterSpec& c, bool fluid = true)
        : topology(fabric::build_topology(c)),
          routing(topology, c.fabric.routing, c.fabric.technology, 1),
          network(topology, routing, spec(c, fluid), std::make_unique<CpuMaxMin>()) {}
    static FlowModelSpec spec(const scenario::ClusterSpec& c, bool fluid) {
        FlowModelSpec s = flow_test::flow_spec(c, true);
        s.fluid = fluid;
        return s;
    }
    double payload(fabric::DirectedLink d) const {
        return static_cast<double>(topology.link(d.link).payload_bandwidth().bits_per_second()) / 8;
    }
    fabric::Topology topology;
    fabric::Routing routing;
    FlowNetwork network;
};

}  // namespace

TEST_CASE("coupled fluid: two DCQCN flows on one port share it at C/2 with the queue at DCQCN's fixed point",
          "[flow][flow-congestion]") {
    // Hosts 0 and 1 stream into host 2 with the paper's DCQCN (which settles; the NIC preset
    // cycles, tests/flow/test_dcqcn_fluid.cpp). Max-min alone gives C/2 each and no queue. With
    // the overlay both senders push at line rate into the port to host 2, its queue grows past
    // Kmin, RED marks and DCQCN cuts, until the fixed point of Zhu et al. (CoNEXT'16, §3):
    // R_C = C/2 each, and the queue q*(2) that balances cuts against increases
    // (dcqcn_standing_queue, derived by hand in test_dcqcn_fluid.cpp), between Kmin and Kmax.
    scenario::ClusterSpec c = packet_test::hosts(3);
    c.roce.dcqcn.preset = scenario::DcqcnPreset::paper;
    Coupled m(c);
    Simulator sim(1);
    packet_test::Sink sink;
    m.network.send(sim, packet_test::msg(0, 0, 2, Bytes{1'000'000'000}), sink);
    m.network.send(sim, packet_test::msg(1, 1, 2, Bytes{1'000'000'000}), sink);
    sim.run(30_ms);
    const FlowCongestion* cc = m.network.congestion();
    REQUIRE(cc != nullptr);
    const fabric::DirectedLink port = m.routing.path(RankId{0}, RankId{2})[2];  // host, NIC, switch -> NIC
    REQUIRE(fabric::is_fabric_switch(m.topology.node(m.topology.source(port)).kind));
    const double C = m.payload(port);
    const congestion::RedParams red = congestion::RedParams::nic(m.topology.link(port.link).bandwidth);
    const double q_star = dcqcn_standing_queue(fluid_params_of(c), red, C, 2);
    INFO("queue " << cc->queue(port.index()) << " B, q* " << q_star << " B");
    CHECK(cc->queue(port.index()) > static_cast<double>(red.kmin.count()));
    CHECK(cc->queue(port.index()) < static_cast<double>(red.kmax.count()));
    CHECK(cc->queue(port.index()) == Approx(q_star).epsilon(0.05));
    for (std::uint32_t f = 0; f < 2; ++f) CHECK(cc->allowed_rate(f) == Approx(C / 2).epsilon(0.05));
    CHECK(m.network.current_rate(port) == Approx(C).epsilon(1e-9));  // the port never idles
}

TEST_CASE("coupled fluid: an uncongested fabric delivers to the picosecond what max-min alone delivers",
          "[flow][flow-congestion]") {
    // A permutation (0->1, 1->2, 2->3, 3->0) and a later message between two idle hosts: no
    // switch port is offered more than it carries, so the overlay builds no queue, caps
    // nothing and never steps.
    const scenario::ClusterSpec c = packet_test::hosts(6);
    auto deliveries = [&](bool fluid) {
        Coupled m(c, fluid);
        Simulator sim(1);
        packet_test::Sink sink;
        for (std::uint32_t s = 0; s < 4; ++s) m.network.send(sim, packet_test::msg(s, s, (s + 1) % 4, 8_MiB), sink);
        sim.run(100_us);
        m.network.send(sim, packet_test::msg(4, 4, 5, 1_MiB), sink);
        sim.run();
        if (fluid) CHECK(m.network.congestion()->steps() == 0);
        return sink.at;
    };
    const std::vector<Time> with = deliveries(true), without = deliveries(false);
    REQUIRE(with.size() == 5);
    CHECK(with == without);
}

TEST_CASE("coupled fluid: PFC at a full port holds every flow on the uplinks that feed it", "[flow][flow-congestion]") {
    // PFC alone (no ECN, no DCQCN), static XOFF of 100 KB: hosts 1-4 stream into host 0, and
    // host 1 also streams to host 5 (the victim). Max-min gives the victim C − C/4 on host 1's
    // uplink. With PFC, once the port to host 0 holds its limit q_max = 4 feeders × XOFF, it
    // takes θ = C / (offered 4·C) = 1/4 of its senders' rates and pauses the uplinks that feed
    // it that fraction of the time: the victim, on host 1's uplink, gets line × 1/4 = C/4.
    scenario::ClusterSpec c = packet_test::hosts(6);
    c.roce = packet_test::pfc_only();
    c.roce.pfc.xoff = Bytes{100'000};
    Coupled m(c);
    Simulator sim(1);
    packet_test::Sink sink;
    for (std::uint32_t s = 1; s <= 4; ++s) m.network.send(sim, packet_test::msg(s, s, 0, Bytes{1'000'000'000}), sink);
    m.network.send(sim, packet_test::msg(5, 1, 5, Bytes{1'000'000'000}), sink);
    sim.run(500_us);
    const fabric::DirectedLink port = m.routing.path(RankId{1}, RankId{0})[2];
    const fabric::DirectedLink victim_port = m.routing.path(RankId{1}, RankId{5})[2];
    const double C = m.payload(port);
    CHECK(m.network.congestion()->queue(port.index()) == Approx(4 * 100'000.0).epsilon(1e-9));
    CHECK(m.network.current_rate(port) == Approx(C).epsilon(1e-9));
    CHECK(m.network.current_rate(victim_port) == Approx(C / 4).epsilon(2 * FlowCongestion::kCapResolution));
}

TEST_CASE("coupled fluid: an 8-to-1 RoCE incast loses to DCQCN what the packet model loses and max-min does not",
          "[flow][flow-congestion]") {
    // The incast of test_dcqcn_fluid.cpp ("DCQCN fluid vs the packet model"), every RoCE
    // default, now through the flow network. Max-min alone ends at the bound 16 MB / C plus a
    // path (1.31 ms). DCQCN's first cuts leave the port idle while the NIC preset's 300 µs timer
    // brings the senders back, so the packet model takes over 1.2 times that (1.89-2.05 ms over
    // seeds 1-8). The overlay, which runs the NIC's reaction point on the marks its packets
    // bring back (dcqcn_events.hpp), must show that loss: within 10 % of the packet model, the
    // bound docs/VALIDATION.md holds congested cases to, which max-min (0.65-0.69 of the packet
    // model's time) misses.
    const scenario::ClusterSpec c = packet_test::hosts(9);
    const Bytes size{2'000'000};
    auto last = [&](auto& network) {
        Simulator sim(1);
        packet_test::Sink sink;
        for (std::uint32_t s = 0; s < 8; ++s) network.send(sim, packet_test::msg(s, s, 8, size), sink);
        sim.run();
        REQUIRE(sink.at.size() == 8);
        return static_cast<double>(std::max_element(sink.at.begin(), sink.at.end())->picoseconds());
    };
    packet_test::Model pm(c, c.roce);
    const double packet = last(pm.network);
    Coupled fm(c), plain(c, false);
    const double fluid = last(fm.network), maxmin = last(plain.network);
    INFO("packet " << packet * 1e-12 << " s, coupled flow " << fluid * 1e-12 << " s, max-min " << maxmin * 1e-12
                   << " s");
    CHECK(packet > 1.2 * maxmin);  // the loss is real
    CHECK(fluid > 0.9 * packet);   // and the overlay has it
    CHECK(fluid < 1.1 * packet);
}

TEST_CASE("coupled fluid: a RoCE port serves a QP no more than it pushed, however long the others' queue",
          "[flow][flow-congestion]") {
    // The 8-to-1 incast above, NIC preset. A switch's egress queue is first in, first out: it
    // can serve a QP only the bytes the QP pushed into it. So while host 8's port holds a queue,
    // a sender none of whose pushed bytes are left unserved gets no more than it pushes, its
    // DCQCN rate R_C (θ ≤ 1), where its max-min share would be C/8 = 12.5 Gb/s; DCQCN's crash
    // to R_min = 1 Gb/s makes that case come up.
    const scenario::ClusterSpec c = packet_test::hosts(9);
    Coupled m(c);
    Simulator sim(1);
    packet_test::Sink sink;
    for (std::uint32_t s = 0; s < 8; ++s) m.network.send(sim, packet_test::msg(s, s, 8, Bytes{2'000'000}), sink);
    const FlowCongestion* cc = m.network.congestion();
    const fabric::DirectedLink port = m.routing.path(RankId{0}, RankId{8})[2];
    const double C = m.payload(port);
    int checked = 0;
    for (Time t = 5_us; t < 1_ms && sink.at.empty(); t += 5_us) {
        sim.run(t);
        if (cc->queue(port.index()) <= 1.0) continue;
        for (std::uint32_t s = 0; s < 8; ++s) {
            if (!cc->tracked(s) || cc->unserved(s) > 1.0) continue;
            const double served = m.network.current_rate(m.routing.path(RankId{s}, RankId{8})[1]);
            CHECK(served <= cc->allowed_rate(s) * (1 + 2 * FlowCongestion::kCapResolution));
            if (cc->allowed_rate(s) < C / 8 / 2) ++checked;
        }
    }
    CHECK(checked > 0);  // a sender cut below half its share met a queue with nothing of its own
}

namespace {

// InfiniBand hosts with credits alone (IB CC off): host 1 sends one message to host 0 and host
// 2 three, each on its own QP or all three on one (`one_qp`). Returns what host 1's and host 2's
// uplinks carry once host 0's port is full, over its capacity C.
std::pair<double, double> ib_uplinks(bool fluid, bool one_qp) {
    scenario::ClusterSpec c = packet_test::hosts(3);
    c.fabric.technology = scenario::Technology::infiniband;
    c.infiniband.congestion_control.enabled = false;
    const Bytes size{1'000'000'000};
    Coupled m(c, fluid);
    Simulator sim(1);
    packet_test::Sink sink;
    m.network.send(sim, packet_test::msg(0, 1, 0, size), sink);
    for (std::uint32_t k = 0; k < 3; ++k)
        m.network.send(sim, packet_test::msg(1 + k, 2, 0, size, one_qp ? 0 : k), sink);
    sim.run(200_us);
    const fabric::DirectedLink port = m.routing.path(RankId{1}, RankId{0})[2];
    const double C = m.payload(port);
    CHECK(m.network.current_rate(port) == Approx(C).epsilon(1e-9));
    return {m.network.current_rate(m.routing.path(RankId{1}, RankId{0})[1]) / C,
            m.network.current_rate(m.routing.path(RankId{2}, RankId{0})[1]) / C};
}

}  // namespace

TEST_CASE("coupled fluid: an InfiniBand port shares its capacity among input ports, then among their flows",
          "[flow][flow-congestion]") {
    // Host 0's port C has two input ports, host 1's (one flow) and host 2's (three flows on
    // three QPs). Per input port each gets C/2: host 1's flow runs at C/2 and host 2's three at
    // C/6 each (3 · C/6 = C/2 on its uplink). Max-min per flow would give every flow C/4: host
    // 1's uplink C/4, host 2's 3C/4, which the flow model without the overlay does.
    const auto [one, three] = ib_uplinks(true, false);
    CHECK(one == Approx(0.5).epsilon(1e-6));
    CHECK(three == Approx(0.5).epsilon(1e-6));
    const auto [one_maxmin, three_maxmin] = ib_uplinks(false, false);
    CHECK(one_maxmin == Approx(0.25).epsilon(1e-6));
    CHECK(three_maxmin == Approx(0.75).epsilon(1e-6));
}

TEST_CASE("coupled fluid: on InfiniBand a QP's share is split among its messages in flight",
          "[flow][flow-congestion]") {
    // As above, but host 2's three messages are on one QP: the port still gives each input
    // port C/2, and host 2's QP splits its C/2 among its three messages (C/6 each). Weighting
    // per input port alone (weight 1/n, n its QPs) would give the three messages C/4 each.
    const auto [one, three] = ib_uplinks(true, true);
    CHECK(one == Approx(0.5).epsilon(1e-6));
    CHECK(three == Approx(0.5).epsilon(1e-6));
}

TEST_CASE("coupled fluid: on RoCE with DCQCN a queued port gives each QP one share, split among its messages",
          "[flow][flow-congestion]") {
    // Host 1 sends one message to host 0 and host 2 three on one QP, with the paper's DCQCN
    // (which settles, so host 0's port keeps a standing queue between Kmin and Kmax). DCQCN
    // limits rates per QP (Zhu et al., SIGCOMM 2015, §3) and the NIC serves a QP's messages one
    // after another, so each QP gets C/2 of the queued port and host 2's three messages C/6
    // each: both uplinks carry C/2. Max-min per message gives host 1 C/4 and host 2 3C/4.
    scenario::ClusterSpec c = packet_test::hosts(3);
    c.roce.dcqcn.preset = scenario::DcqcnPreset::paper;
    const Bytes size{1'000'000'000};
    auto uplinks = [&](bool fluid) {
        Coupled m(c, fluid);
        Simulator sim(1);
        packet_test::Sink sink;
        m.network.send(sim, packet_test::msg(0, 1, 0, size), sink);
        for (std::uint32_t k = 0; k < 3; ++k) m.network.send(sim, packet_test::msg(1 + k, 2, 0, size, 0), sink);
        sim.run(20_ms);
        const fabric::DirectedLink port = m.routing.path(RankId{1}, RankId{0})[2];
        const double C = m.payload(port);
        if (fluid) REQUIRE(m.network.congestion()->queue(port.index()) > 1.0);
        CHECK(m.network.current_rate(port) == Approx(C).epsilon(1e-9));
        return std::pair{m.network.current_rate(m.routing.path(RankId{1}, RankId{0})[1]) / C,
                         m.network.current_rate(m.routing.path(RankId{2}, RankId{0})[1]) / C};
    };
    const auto [one, three] = uplinks(true);
    CHECK(one == Approx(0.5).epsilon(1e-6));
    CHECK(three == Approx(0.5).epsilon(1e-6));
    const auto [one_maxmin, three_maxmin] = uplinks(false);
    CHECK(one_maxmin == Approx(0.25).epsilon(1e-6));
    CHECK(three_maxmin == Approx(0.75).epsilon(1e-6));
}

TEST_CASE("coupled fluid: a RoCE port's PFC limit is the dynamic threshold over the shared pool the MMU leaves",
          "[flow][flow-congestion]") {
    // The packet model's switch (SwitchMmu) takes out of its buffer B, at each of its P ports,
    // the reserved space r of two priority groups (lossless priority 3, control priority 6) and
    // the PFC headroom H of priority 3; an ingress queue pauses at r + α·(S − q), S the pool
    // left. With n ingress queues full at one port, q = n·(r + α·(S − q)):
    // q = n·(r + α·S) / (1 + n·α). The whole buffer in place of S overstated it.
    scenario::ClusterSpec c = packet_test::hosts(5);
    c.roce.pfc.headroom = Bytes{100'000};
    const fabric::Topology topology = fabric::build_topology(c);
    const fabric::Routing routing(topology, c.fabric.routing, c.fabric.technology, 1);
    const auto a = routing.path(RankId{1}, RankId{0}), b = routing.path(RankId{2}, RankId{0});
    const fabric::DirectedLink port = a[2];
    const fabric::Node& sw = topology.node(topology.source(port));
    const double B = static_cast<double>(sw.buffer.count()), P = static_cast<double>(sw.ports.size());
    const double r = 4096, H = 100'000, alpha = c.roce.mmu.alpha, n = 2;
    const double S = B - P * (2 * r + H);
    REQUIRE(S > 0);
    const double expected = n * (r + alpha * S) / (1 + n * alpha);
    CHECK(static_cast<double>(fluid_queue_limit(topology, c, port, {a[1], b[1]}).count()) ==
          Approx(expected).margin(1.0));
    CHECK(expected < n * alpha * B / (1 + n * alpha));
}

TEST_CASE("coupled fluid: on InfiniBand a port holds only the VL buffers of the input links still sending",
          "[flow][flow-congestion]") {
    // Credits alone (IB CC off). Hosts 1 and 2 send to host 0; host 1's message is short. While
    // both send, host 0's port fills to the VL buffers of its two input links. A switch holds
    // for each input link only the buffer it gave credits for (IBA Vol. 1 §7.9): once host 1's
    // message is delivered its input holds nothing at the port, so the queue is at most host
    // 2's buffer, where one limit for every input ever seen kept it at two.
    scenario::ClusterSpec c = packet_test::hosts(3);
    c.fabric.technology = scenario::Technology::infiniband;
    c.infiniband.congestion_control.enabled = false;
    Coupled m(c);
    Simulator sim(1);
    packet_test::Sink sink;
    m.network.send(sim, packet_test::msg(0, 1, 0, Bytes{2'000'000}), sink);
    m.network.send(sim, packet_test::msg(1, 2, 0, Bytes{1'000'000'000}), sink);
    const auto one = m.routing.path(RankId{1}, RankId{0}), two = m.routing.path(RankId{2}, RankId{0});
    const fabric::DirectedLink port = one[2];
    const double both = static_cast<double>(fluid_queue_limit(m.topology, c, port, {one[1], two[1]}).count());
    const double alone = static_cast<double>(fluid_queue_limit(m.topology, c, port, {two[1]}).count());
    REQUIRE(alone < both);
    sim.run(100_us);
    CHECK(m.network.congestion()->queue(port.index()) == Approx(both).epsilon(1e-6));
    sim.run(Time::ms(2));
    REQUIRE(sink.at.size() >= 1);
    REQUIRE(sink.at[0] < Time::ms(2));  // host 1's message is delivered
    CHECK(m.network.congestion()->queue(port.index()) <= alone * (1 + 1e-9));
}

TEST_CASE("coupled fluid: a message behind a queue is late by what it was served before its first byte got through",
          "[flow][flow-congestion]") {
    // InfiniBand, credits alone (IB CC off). Host 1 sends A (L bytes) and host 2 a long D to
    // host 0 from t = 0: each runs at C/2 and host 0's port fills to Q, the VL buffers of its
    // two input links. At t0 host 2 sends M (S bytes) on a second QP. Per input port, then per
    // QP, M runs at C/4 until A's bytes end at t1 = L/(C/2), then host 2's input has the port
    // and M runs at C/2: its bytes end at T = t1 + (S - (C/4)(t1 - t0)) / (C/2).
    // Its first packet waits behind host 2's buffer, Q/2, drained at host 2's C/2: it leaves
    // at t0 + w with w = Q/C (the overlay's Σ q/C). From then M leaves at C/4 until t1, at C/2
    // after, so its last byte leaves at T + (C/4)·w / (C/2) = T + w/2: the (C/4)·w bytes the
    // solve served M before its packets got through, at its rate at the end. A wait of w
    // added whole at its start (the overlay before) gives T + w, which holds only while M's
    // share stays what it was during the wait.
    scenario::ClusterSpec c = packet_test::hosts(3);
    c.fabric.technology = scenario::Technology::infiniband;
    c.infiniband.congestion_control.enabled = false;
    Coupled m(c);
    const auto one = m.routing.path(RankId{1}, RankId{0}), two = m.routing.path(RankId{2}, RankId{0});
    const fabric::DirectedLink port = one[2];
    const double C = m.payload(port);
    const double Q = static_cast<double>(fluid_queue_limit(m.topology, c, port, {one[1], two[1]}).count());
    const double w = Q / C;
    const double t0 = 100e-6, t1 = t0 + w + 200e-6;
    const double L = C / 2 * t1, S = C * (t1 - t0);
    const double T = t1 + (S - C / 4 * (t1 - t0)) / (C / 2);
    const double packet = 4096 / C;
    REQUIRE(w / 2 > 10 * packet);  // the two answers are apart

    Simulator sim(1);
    packet_test::Sink sink;
    m.network.send(sim, packet_test::msg(0, 1, 0, Bytes{static_cast<std::int64_t>(L)}), sink);
    m.network.send(sim, packet_test::msg(1, 2, 0, Bytes{1'000'000'000}), sink);
    sim.run(Time::ps(static_cast<std::int64_t>(t0 * 1e12)));
    CHECK(m.network.congestion()->queue(port.index()) == Approx(Q).epsilon(1e-6));
    const Message M = packet_test::msg(2, 2, 0, Bytes{static_cast<std::int64_t>(S)}, 1);
    // The path's latency: a lone M's time less its bytes at C.
    const double latency = static_cast<double>(m.network.unloaded_time(M).picoseconds()) * 1e-12 - S / C;
    m.network.send(sim, M, sink);
    sim.run(Time::ps(static_cast<std::int64_t>((T + w + 1e-3) * 1e12)));
    REQUIRE(sink.at.size() >= 3);
    REQUIRE(sink.at[0] < sink.at[2]);  // A was done first
    const double at = static_cast<double>(sink.at[2].picoseconds()) * 1e-12;
    CHECK(std::abs(at - (T + w / 2 + latency)) < packet);
}

TEST_CASE("coupled fluid: IB CC marks a QP's packets as the congested port sends them, not as the QP pushes them",
          "[flow][flow-congestion]") {
    // Host 0's port has two input links: host 1's with one QP, host 2's with three. Per input
    // port the QPs are served C/2 and C/6 each, while back-pressure lets every QP push the
    // same C/4 into the full queue. A switch sets FECN on the packets it forwards (IBA Vol. 1
    // Annex A10), one in marking_rate + 1 while the queue is above the threshold, so a QP
    // gets BECNs at its served rate / MTU / (marking_rate + 1) and its CCT index falls one per
    // ccti_timer. Host 1's QP then gets more BECNs than its timer takes back and is cut; host
    // 2's get fewer and stay at line. Counted on what each pushes (C/4), no QP would be cut.
    scenario::ClusterSpec c = packet_test::hosts(3);
    c.fabric.technology = scenario::Technology::infiniband;
    const auto& cc = c.infiniband.congestion_control;
    REQUIRE(cc.enabled);
    Coupled m(c);
    const auto one = m.routing.path(RankId{1}, RankId{0});
    const double C = m.payload(one[2]);
    const double becn_per_Bps = 1.0 / static_cast<double>(c.fabric.mtu.count()) / (cc.marking_rate + 1.0);
    const double decay = 1.0 / (static_cast<double>(cc.ccti_timer.picoseconds()) * 1e-12);
    REQUIRE(C / 2 * becn_per_Bps > decay);
    REQUIRE(C / 4 * becn_per_Bps < decay);
    REQUIRE(C / 6 * becn_per_Bps < decay);

    Simulator sim(1);
    packet_test::Sink sink;
    const Bytes size{1'000'000'000};
    m.network.send(sim, packet_test::msg(0, 1, 0, size), sink);
    for (std::uint32_t k = 0; k < 3; ++k) m.network.send(sim, packet_test::msg(1 + k, 2, 0, size, k), sink);
    sim.run(500_us);
    const FlowCongestion& f = *m.network.congestion();
    REQUIRE(f.queue(one[2].index()) > static_cast<double>(cc.threshold.count()));
    // The four messages are the overlay's flows 0 (host 1) and 1-3 (host 2), in send order.
    for (std::uint32_t id = 0; id < 4; ++id) REQUIRE(f.tracked(id));
    const double line = m.payload(one[1]);
    CHECK(f.allowed_rate(0) < line * (1 - 1e-6));
    for (std::uint32_t id = 1; id < 4; ++id) CHECK(f.allowed_rate(id) == Approx(line).epsilon(1e-9));
}
