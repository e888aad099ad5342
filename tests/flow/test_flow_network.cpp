// The flow network's timing against hand-derived closed forms: a message alone, n flows into
// one port, staggered flows, striping over NVLink, bytes conserved (docs/models/flow.md). They
// re-solve at every change (solve_interval 0), where the model is exact max-min.
#include <catch2/catch.hpp>

#include "flow_fixtures.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace flow_test;

namespace {
double ps(double seconds) { return seconds * 1e12; }
// Delivery time of a lone message minus its transmission: the path's latency.
double latency_ps(FlowModel& m, std::uint32_t a, std::uint32_t b, Bytes size) {
    return static_cast<double>(m.network.unloaded_time(msg(0, a, b, size)).picoseconds()) -
           ps(static_cast<double>(size.count()) / m.bottleneck(a, b));
}
}  // namespace

TEST_CASE("flow: a message alone is delivered at its unloaded time: latency + size / bottleneck", "[flow]") {
    FlowModel m(packet_test::hosts(2), true);
    const Bytes size = 4_MiB + 1000_B;
    Simulator sim(1);
    Sink sink;
    m.network.send(sim, msg(0, 0, 1, size), sink);
    sim.run();
    REQUIRE(sink.at.size() == 1);
    const Time unloaded = m.network.unloaded_time(msg(0, 0, 1, size));
    CHECK(std::abs((sink.at[0] - unloaded).picoseconds()) <= 1);
    // The transmission part is size / the 100G link's payload rate; the latency a few µs.
    const double tx = ps(static_cast<double>(size.count()) / m.bottleneck(0, 1));
    CHECK(static_cast<double>(unloaded.picoseconds()) - tx > 0);
    CHECK(static_cast<double>(unloaded.picoseconds()) - tx < ps(5e-6));
    m.network.check_invariants(sim.now());
}

TEST_CASE("flow: n senders into one port finish together at n·S / R", "[flow]") {
    for (std::uint32_t n : {2u, 4u, 7u}) {
        FlowModel m(packet_test::hosts(static_cast<int>(n) + 1), true);
        const Bytes size = 1_MiB;
        Simulator sim(1);
        Sink sink;
        for (std::uint32_t s = 0; s < n; ++s) m.network.send(sim, msg(s, s + 1, 0, size), sink);
        sim.run();
        // Each gets R/n of the receiver's port: all end at n·S/R, then the path latency (they
        // all started on an idle port: no queueing estimate), less half a round-robin round of
        // the port, (n - 1) packets of 4096 B at R: each one's last packet leaves in its turn
        // (flow_network.hpp, "Round robin").
        const double r = m.bottleneck(1, 0);
        const double turn = ps(0.5 * (n - 1) * 4096 / r);
        const double expected = ps(n * static_cast<double>(size.count()) / r) + latency_ps(m, 1, 0, size) - turn;
        for (std::uint32_t s = 0; s < n; ++s)
            CHECK(static_cast<double>(sink.at[s].picoseconds()) == Approx(expected).epsilon(1e-6));
        m.network.check_invariants(sim.now());
    }
}

TEST_CASE("flow: staggered flows into one port: alone, then halves, then alone again", "[flow]") {
    // A (host 1 -> 0) starts at 0, B at T0, both S bytes, bottleneck R. B comes from host 2,
    // or from host 1 like A: then the two are one group of the solver (one solver flow of
    // weight 2 while both run, flow_network.hpp), which must change nothing:
    //   [0, T0)   A alone at R: sends R·T0
    //   [T0, t1)  both at R/2 until A is done: t1 = T0 + 2(S - R·T0)/R
    //   [t1, t2)  B alone with R·T0 left (it sent (R/2)(t1 - T0) = S - R·T0): t2 = t1 + T0
    // A is delivered at t1 + latency (less A's turn, below); B at t2 + latency + half a 4096 B packet at each port
    // A saturates on B's path (the queueing estimate): the ports of A's path at rate R.
    const std::uint32_t b_from = GENERATE(2u, 1u);
    FlowModel m(packet_test::hosts(3), true);
    const Bytes size = 2_MiB;
    const double r = m.bottleneck(1, 0), s = static_cast<double>(size.count());
    const Time t0 = Time::us(50);
    const double T0 = static_cast<double>(t0.picoseconds()) * 1e-12;
    REQUIRE(r * T0 < s);
    Simulator sim(1);
    Sink sink;
    struct Later final : EventTarget {
        FlowModel* m;
        Sink* sink;
        Bytes size;
        std::uint32_t from;
        std::size_t solver_flows = 0;  // while both run
        void on_event(Simulator& sim_, std::uint64_t arg) override {
            if (arg == 0) m->network.send(sim_, msg(1, from, 0, size), *sink);
            solver_flows = m->network.solver().active_flows();
        }
    } later;
    later.m = &m;
    later.sink = &sink;
    later.size = size;
    later.from = b_from;
    m.network.send(sim, msg(0, 1, 0, size), sink);
    sim.at(t0, later, 0);
    sim.at(t0 + Time::us(1), later, 1);
    sim.run();
    CHECK(later.solver_flows == (b_from == 1 ? 1u : 2u));
    const auto a_path = m.routing.path(RankId{1}, RankId{0});
    double saturated_ps = 0;
    for (const auto d : m.routing.path(RankId{b_from}, RankId{0})) {
        const double rate = static_cast<double>(m.topology.link(d.link).payload_bandwidth().bits_per_second()) / 8;
        if (std::find(a_path.begin(), a_path.end(), d) != a_path.end() && rate == Approx(r))
            saturated_ps += ps(2048 / rate);
    }
    REQUIRE(saturated_ps > 0);
    const double t1 = T0 + 2 * (s - r * T0) / r, t2 = t1 + T0;
    const double lat = latency_ps(m, 1, 0, size);
    // A ends sharing its port with B: half a round of one packet sooner (the header of
    // flow_network.hpp, "Round robin"); B ends alone.
    CHECK(static_cast<double>(sink.at[0].picoseconds()) == Approx(ps(t1) + lat - ps(0.5 * 4096 / r)).epsilon(1e-6));
    CHECK(static_cast<double>(sink.at[1].picoseconds()) == Approx(ps(t2) + lat + saturated_ps).epsilon(1e-6));
    // Bytes conserved: the receiver's port carried both messages, each link of a path its
    // message once; every link was busy exactly its bytes / its rate.
    const fabric::DirectedLink last_fabric = a_path[a_path.size() - 2];
    CHECK(m.network.bytes_carried(last_fabric) == Approx(2 * s));
    for (const auto& p : m.network.port_reports()) {
        CHECK(p.bytes.count() % size.count() == 0);
    }
    m.network.check_invariants(sim.now());
}

TEST_CASE("flow: a copy between two GPUs of an HGX stripes over all 18 NVLink links", "[flow]") {
    // GPU -> 4 NVSwitches over 18 NVLink4 links (5/4/4/5), each link 1/18 of the flow:
    // rate = 18 × one link's payload rate, the NVLink fabric's whole bandwidth. On top: the
    // pipeline fill of one 64 KiB segment on one link (about 3 µs, 0.4 %).
    FlowModel m(packet_test::hgx(1), true);
    const Bytes size = 256_MiB;
    Simulator sim(1);
    Sink sink;
    m.network.send(sim, msg(0, 0, 5, size), sink);
    sim.run();
    const auto path = m.routing.path(RankId{0}, RankId{5});
    const double link = static_cast<double>(m.topology.link(path[0].link).payload_bandwidth().bits_per_second()) / 8;
    const double tx = ps(static_cast<double>(size.count()) / (18 * link));
    CHECK(static_cast<double>(sink.at[0].picoseconds()) == Approx(tx).epsilon(0.006));
    CHECK(std::abs((sink.at[0] - m.network.unloaded_time(msg(0, 0, 5, size))).picoseconds()) <= 1);
    m.network.check_invariants(sim.now());
}

TEST_CASE("flow: every link's bytes and report are its own, through the solver's numbering of the links", "[flow]") {
    // The solver numbers links in an order of its own (flow_network.hpp, "Numbering"); what it
    // carried must come back to the topology's link. Two messages at once on disjoint links:
    // A, 18 MiB from GPU 2 to GPU 5 of server 0, striped over GPU 2's 18 NVLinks and the 18
    // into GPU 5 (1 MiB each); B, 3 MiB from GPU 0 of server 0 to GPU 1 of server 1, one queue
    // pair, over its one path (3 MiB on each of its links). Nothing else carries a byte.
    scenario::ClusterSpec c = packet_test::hgx(2);
    c.server.nic.qps_per_connection = 1;
    FlowModel m(c, true);
    Simulator sim(1);
    Sink sink;
    m.network.send(sim, msg(0, 2, 5, 18_MiB), sink);
    m.network.send(sim, msg(1, 0, 9, 3_MiB), sink);
    sim.run();
    REQUIRE(sink.at.size() == 2);
    const auto b_path = m.routing.path(RankId{0}, RankId{9});
    const auto name = [&](fabric::NodeId n) { return m.topology.node(n).name; };
    const fabric::NodeId gpu2 = m.topology.rank(RankId{2}).gpu, gpu5 = m.topology.rank(RankId{5}).gpu;
    std::map<std::pair<std::string, std::string>, std::vector<std::int64_t>> expected;
    std::size_t carrying = 0;
    for (std::uint32_t i = 0; i < m.topology.directed_link_count(); ++i) {
        const auto d = fabric::DirectedLink::from_index(i);
        const bool on_a = m.topology.link(d.link).type == fabric::LinkType::nvlink &&
                          (m.topology.source(d) == gpu2 || m.topology.target(d) == gpu5);
        const bool on_b = std::find(b_path.begin(), b_path.end(), d) != b_path.end();
        const double bytes = on_a ? 1024.0 * 1024 : on_b ? 3 * 1024.0 * 1024 : 0.0;
        CHECK(m.network.bytes_carried(d) == Approx(bytes).margin(1e-6));
        if (bytes > 0) {
            expected[{name(m.topology.source(d)), name(m.topology.target(d))}].push_back(
                static_cast<std::int64_t>(bytes));
            ++carrying;
        }
    }
    CHECK(carrying == 36 + b_path.size());
    std::map<std::pair<std::string, std::string>, std::vector<std::int64_t>> reported;
    for (const PortReport& p : m.network.port_reports()) reported[{p.from, p.to}].push_back(p.bytes.count());
    CHECK(reported == expected);
    m.network.check_invariants(sim.now());
}
