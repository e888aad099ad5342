// Queues in wire bytes, their time integral and the queue sampler (queue_sampler.hpp), and the
// per-packet header bytes (cluster.roce.header_bytes, cluster.infiniband.header_bytes) in the
// time a transfer takes (docs/models/packet.md, "Queue time series" and "Units").
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using fabricsim::fabric::DirectedLink;
using namespace packet_test;

namespace {

constexpr std::int64_t kMtu = 4096;

// What a buffer holds for a packet beside its payload when H bytes go on the wire with it: the
// frame, without the 8 bytes of preamble and start delimiter and the 12 of inter-frame gap,
// which are line time only (IEEE 802.3 §3.1.1, §4.4.2): 82 on the wire is 62 in a queue.
constexpr std::int64_t held(std::int64_t header) { return header > 20 ? header - 20 : 0; }

// Hosts on one switch with RoCE PFC alone (nothing marks or paces), H header bytes per packet
// in the cluster (the topology's efficiency) and the model (queue depths) alike.
struct Incast : Model {
    static scenario::ClusterSpec cluster(int n, std::int64_t header) {
        scenario::ClusterSpec c = hosts(n);
        c.roce.header_bytes = header;
        return c;
    }
    static fabric::PacketModelSpec spec(int n, std::int64_t header, const scenario::QueueOutputSpec& queues) {
        scenario::RoceSpec roce = pfc_only();
        roce.header_bytes = header;
        fabric::PacketModelSpec s = model_spec(cluster(n, header), roce);
        s.queues = queues;
        return s;
    }
    Incast(int n, std::int64_t header, const scenario::QueueOutputSpec& queues = {})
        : Model(cluster(n, header), spec(n, header, queues)) {}
    // The switch's port toward host 2, where a 0,1 -> 2 incast queues.
    DirectedLink down() const { return routing.path(RankId{0}, RankId{2})[2]; }
    // One MTU packet's time on a 100G fabric link: (M + H) x 8 / 100 Gb/s.
    Time tau() const { return transmit_time(Bytes{kMtu}, topology.link(down().link).payload_bandwidth()); }
};

// Hosts 0 and 1 each send n MTU packets to host 2 at once.
void incast(Incast& m, Simulator& sim, std::int64_t n) {
    Sink sink;
    two_to_one(m, sim, sink, Bytes{n * kMtu});
    REQUIRE(sink.at.size() == 2);
}

double queue_area(const Incast& m, DirectedLink port) {
    const std::string from = m.topology.node(m.topology.source(port)).name;
    const std::string to = m.topology.node(m.topology.target(port)).name;
    double area = 0;
    for (const PortReport& r : m.network.port_reports())
        if (r.from == from && r.to == to) area += r.queue_area;
    return area;
}

}  // namespace

// Two identical senders deliver a packet each to the switch every τ = (M + H)/rate; its port
// to host 2 sends one per τ. After the arrivals at t_k (k = 1..n) it holds k packets, so the
// deepest queue is n frames of M + H - 20 bytes: the payload alone would be n x M, the whole
// line time n x (M + H).
TEST_CASE("queue depths count frames: a 2-to-1 incast's port holds n packets of MTU + headers - preamble and gap",
          "[packet][queues]") {
    const std::int64_t n = 16;
    for (const std::int64_t header : {std::int64_t{82}, std::int64_t{0}, std::int64_t{500}}) {
        Incast m(3, header);
        Simulator sim(1);
        incast(m, sim, n);
        CAPTURE(header);
        CHECK(m.network.max_queued(m.down()) == Bytes{n * (kMtu + held(header))});
    }
}

// The port serves the 2n packets in arrival order, one per τ from t_1: the j-th (from 0)
// arrived at t_1 + floor(j/2) τ and starts at t_1 + j τ, so it waits ceil(j/2) τ. The queue's
// integral is Σ_j F ceil(j/2) τ = F τ Σ_{k<n} (k + (k + 1)) = F τ n², F = M + H - 20 the frame.
TEST_CASE("the time integral of a 2-to-1 incast's queue is (M + H - 20) tau n^2", "[packet][queues]") {
    const std::int64_t n = 16, header = 82;
    Incast m(3, header);
    Simulator sim(1);
    incast(m, sim, n);
    const double expected = static_cast<double>((kMtu + held(header)) * n * n) * m.tau().seconds();
    CHECK(queue_area(m, m.down()) == Approx(expected).epsilon(1e-12));
    // Nothing else queued: the senders' NICs pace from their QPs, and host 2 drains at PCIe speed.
    double elsewhere = 0;
    for (const PortReport& r : m.network.port_reports()) elsewhere += r.queue_area;
    CHECK(elsewhere == Approx(expected).epsilon(1e-12));
}

// Sampling every τ/2: some sample falls in [t_n, t_n + τ), where the port holds n packets;
// every sample is a whole number of wire packets, and after the run the network is idle, so
// the last sample (taken when it fell idle) is empty.
TEST_CASE("the queue sampler follows a named port: whole wire packets, n at the deepest, empty at the end",
          "[packet][queues]") {
    const std::int64_t n = 16, header = 82;
    const Incast probe(3, header);
    const std::string name = probe.topology.node(probe.topology.source(probe.down())).name + "->" +
                             probe.topology.node(probe.topology.target(probe.down())).name;
    scenario::QueueOutputSpec queues;
    queues.ports = {name};
    queues.interval = probe.tau() / 2;
    Incast m(3, header, queues);
    Simulator sim(1);
    incast(m, sim, n);
    const auto series = m.network.queue_series();
    REQUIRE(series.size() == 1);
    CHECK(series[0].port == name);
    const auto& samples = series[0].samples;
    REQUIRE(samples.size() > 2 * n);
    Bytes deepest = Bytes::zero();
    for (std::size_t i = 0; i < samples.size(); ++i) {
        CHECK(samples[i].queued.count() % (kMtu + held(header)) == 0);
        CHECK_FALSE(samples[i].paused);  // 16 packets are far below XOFF
        CHECK_FALSE(samples[i].credit_stalled);
        if (i > 0) CHECK(samples[i].at > samples[i - 1].at);
        if (i + 1 < samples.size()) CHECK(samples[i].at.picoseconds() % queues.interval.picoseconds() == 0);
        deepest = std::max(deepest, samples[i].queued);
    }
    CHECK(deepest == Bytes{n * (kMtu + held(header))});
    CHECK(samples.back().queued == Bytes::zero());
    CHECK(m.network.warnings().empty());
}

// top: 1 picks the port whose sampled queue got deepest, which is the incast's; top: 5 lists
// only ports that ever held something, deepest first.
TEST_CASE("the queue sampler's top N is the deepest port, chosen in one run", "[packet][queues]") {
    const Incast probe(3, 82);
    const std::string name = probe.topology.node(probe.topology.source(probe.down())).name + "->" +
                             probe.topology.node(probe.topology.target(probe.down())).name;
    scenario::QueueOutputSpec queues;
    queues.top = 5;
    queues.interval = probe.tau() / 2;
    Incast m(3, 82, queues);
    Simulator sim(1);
    incast(m, sim, 16);
    const auto series = m.network.queue_series();
    REQUIRE_FALSE(series.empty());
    CHECK(series.size() <= 5);
    CHECK(series[0].port == name);
    const auto deepest = [](const QueueSeries& s) {
        Bytes d = Bytes::zero();
        for (const auto& x : s.samples) d = std::max(d, x.queued);
        return d;
    };
    CHECK(deepest(series[0]) == Bytes{16 * (kMtu + held(82))});
    for (std::size_t i = 1; i < series.size(); ++i) CHECK(deepest(series[i]) <= deepest(series[i - 1]));
}

// Without outputs.queues there is no sampler: no event of its own, so the same run takes the
// same number of events, and no series.
TEST_CASE("without outputs.queues nothing is sampled and the run's events are the same", "[packet][queues]") {
    scenario::QueueOutputSpec queues;
    queues.top = 3;
    queues.interval = Time::us(1);
    Incast plain(3, 82), sampled(3, 82, queues);
    Simulator a(1), b(1);
    incast(plain, a, 16);
    incast(sampled, b, 16);
    CHECK(plain.network.queue_series().empty());
    CHECK(a.cost().events < b.cost().events);
    // Sampling reads and never changes what happens.
    CHECK(plain.network.counters().packet_hops == sampled.network.counters().packet_hops);
    CHECK(plain.network.max_queued(plain.down()) == sampled.network.max_queued(sampled.down()));
}

// A transfer of P = S / M full packets, alone: store and forward pipelines it, each packet
// crossing each hop l in τ_l plus the hop's delay d_l, and the fabric links (the slowest) set
// the pace: T = Σ_l (τ_l + d_l) + (P - 1) τ_fabric. With H header bytes per packet τ_fabric is
// (M + H) x 8 / line rate, so T = P (M + H) / line rate + L, the latency L = Σ_l (τ_l + d_l) -
// τ_fabric not depending on P.
TEST_CASE("header_bytes H: a transfer of P packets takes P (MTU + H) / line rate + latency, RoCE and InfiniBand",
          "[packet][headers]") {
    const std::int64_t packets = 64;
    const Bandwidth line = 100_Gbps;
    for (const auto technology : {scenario::Technology::roce, scenario::Technology::infiniband})
        for (const std::int64_t header : {std::int64_t{0}, std::int64_t{26}, std::int64_t{82}, std::int64_t{600}}) {
            scenario::ClusterSpec c = hosts(2, line);
            c.fabric.technology = technology;
            c.roce.header_bytes = header;
            c.infiniband.header_bytes = header;
            scenario::RoceSpec roce = pfc_only();
            roce.header_bytes = header;
            Model m(c, roce);
            CAPTURE(header, technology == scenario::Technology::roce);
            const Time at = run_alone(m, msg(0, 0, 1, Bytes{packets * kMtu}));
            const auto path = m.routing.path(RankId{0}, RankId{1});
            Time one = Time::zero(), slowest = Time::zero();
            for (const DirectedLink d : path) {
                const auto& l = m.topology.link(d.link);
                const Time tau = transmit_time(Bytes{kMtu}, l.payload_bandwidth());
                one += tau + l.propagation + m.topology.node(m.topology.target(d)).forwarding_latency;
                slowest = std::max(slowest, tau);
            }
            // The fabric hop's packet time is (M + H) x 8 / line rate (rounded up to 1 ps, and the
            // payload rate down to 1 bit/s).
            const double wire_ps =
                static_cast<double>((kMtu + header) * 8) * 1e12 / static_cast<double>(line.bits_per_second());
            CHECK(static_cast<double>(slowest.picoseconds()) == Approx(wire_ps).margin(1.5));
            CHECK(at == one + slowest * (packets - 1));
            const Time latency = one - slowest;
            CHECK(static_cast<double>((at - latency).picoseconds()) == Approx(packets * wire_ps).margin(1.5 * packets));
        }
}

// The memory bound, made small: a top-N sampler that fills up keeps the N ports deepest so far
// (the incast's, deepest once its first packet is in) and samples only them, stopping if it
// fills up again; a ports sampler stops. Each says so in a warning, and neither holds more
// rows than the bound.
TEST_CASE("the queue sampler's memory bound: top N narrows to the deepest ports, ports stops, each with a warning",
          "[packet][queues]") {
    const Incast probe(3, 82);
    const std::string name = probe.topology.node(probe.topology.source(probe.down())).name + "->" +
                             probe.topology.node(probe.topology.target(probe.down())).name;
    const std::size_t bound = 40;  // about 20 packet times: past the first packets at the switch, short of the run
    for (const bool top : {true, false}) {
        CAPTURE(top);
        Incast m(3, 82);
        scenario::QueueOutputSpec spec;
        spec.interval = m.tau() / 2;
        if (top)
            spec.top = 1;
        else
            spec.ports = {name};
        fabric::QueueSampler sampler(m.network, m.topology, spec, bound);
        Simulator sim(1);
        Sink sink;
        m.network.send(sim, msg(0, 0, 2, Bytes{16 * kMtu}), sink);
        m.network.send(sim, msg(1, 1, 2, Bytes{16 * kMtu}), sink);
        sampler.arm(sim);
        sim.run();
        REQUIRE(sink.at.size() == 2);
        const auto series = sampler.series();
        REQUIRE(series.size() == 1);
        CHECK(series[0].port == name);
        CHECK(sampler.rows() <= bound);
        REQUIRE_FALSE(sampler.warnings().empty());
        CHECK(sampler.warnings()[0].find(top ? "the series are of the 1 ports deepest until then"
                                             : "sampling stopped at") != std::string::npos);
        if (!top) CHECK(series[0].samples.size() == bound);  // one row per sample, up to the bound
    }
}
