// The DCQCN fluid model (src/flow/dcqcn_fluid.hpp): its fixed point against the one derived
// here by hand from the papers' equations, conservation at the bottleneck, fairness, and an
// incast against the packet model's DCQCN.
#include <catch2/catch.hpp>

#include "flow/dcqcn_events.hpp"
#include "flow/dcqcn_fluid.hpp"
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

constexpr double kC = 100e9 / 8;  // the bottleneck: 100 Gb/s of payload, in bytes/s

FluidParams nic_params() { return fluid_params(congestion::DcqcnParams::nic(100_Gbps), Bytes{4096}, 100_Gbps); }
FluidParams paper_params() { return fluid_params(congestion::DcqcnParams::paper(), Bytes{4096}, 100_Gbps); }

double jain(const std::vector<double>& x) {
    double sum = 0, sq = 0;
    for (double r : x) {
        sum += r;
        sq += r * r;
    }
    return sum * sum / (static_cast<double>(x.size()) * sq);
}

// Flow i of n starts at (i+1)/n of the line, so fairness is earned, not given.
std::vector<double> unequal(int n) {
    std::vector<double> start;
    for (int i = 0; i < n; ++i) start.push_back(kC * (i + 1) / n);
    return start;
}

// n flows, each over its own 100G NIC link (q_max 0: never a bottleneck for one flow) into
// one shared 100G link with the NIC-style RED thresholds at 100G (Kmin 400 KB, Kmax 1.6 MB,
// Pmax 0.2). Flow i starts at rate start[i].
DcqcnFluid one_bottleneck(const FluidParams& p, const std::vector<double>& start, Time delay, Time step) {
    DcqcnFluid m(p, step, delay);
    const std::uint32_t shared = m.add_link({100_Gbps, congestion::RedParams::nic(100_Gbps)});
    for (double r : start) {
        const std::uint32_t nic = m.add_link({100_Gbps, {Bytes::zero(), Bytes::zero(), 0.0}, Bytes::zero()});
        m.add_flow(100_Gbps, kEndless, delay, Bandwidth::bps(static_cast<std::int64_t>(r * 8)),
                   {{nic, 1.0}, {shared, 1.0}});
    }
    m.start();
    return m;
}

struct Averages {
    double queue = 0, mark = 0, total = 0;
    std::vector<double> rate;  // per flow: bytes sent / time
};

// Runs `warm` steps, then averages over `steps` more.
Averages average(DcqcnFluid& m, std::uint64_t warm, std::uint64_t steps) {
    m.run(warm);
    Averages a;
    a.rate.assign(m.flows(), 0.0);
    for (std::uint64_t i = 0; i < steps; ++i) {
        m.run(1);
        a.queue += m.queue(0);
        a.mark += m.mark(0);
        for (std::uint32_t f = 0; f < m.flows(); ++f) a.rate[f] += m.sending(f);
    }
    a.queue /= static_cast<double>(steps);
    a.mark /= static_cast<double>(steps);
    for (double& r : a.rate) {
        r /= static_cast<double>(steps);
        a.total += r;
    }
    return a;
}

// The fixed point of N flows on one bottleneck, derived by hand from the fluid model's
// equations (Zhu et al., CoNEXT'16, §3, equations 1-5; dcqcn_fluid_rules.hpp), not from the
// code under test. At a fixed point nothing moves, so (2) gives Σ R_C = C and by symmetry
// R_C = C/N for every flow: x = C/(N·mtu) packets/s. With u(n) = (1−p)^n:
//   (3) = 0:  α = 1 − u(τ'x)
//   (5) = 0:  R_C·α/(2τ)·(1 − u(τx)) = (R_T − R_C)/2 · E,   E = Σ_c ev_c
//   (4) = 0:  (R_T − R_C)/τ·(1 − u(τx)) = Σ_c ev_c·[R_AI·(u(F·n_c) − u((F+1)·n_max)) + R_HAI·u((F+1)·n_max)]
// Eliminating R_T − R_C = R_C·α·(1 − u(τx))/(τ·E) leaves one equation in p:
//   G(p) = R_C·α·(1 − u(τx))² − τ²·E·Σ_c ev_c·[...] = 0,
// with G < 0 as p → 0 (its left term vanishes, the right tends to τ²·(1/T)²·R_HAI) and G > 0
// once cuts come every period. Bisection finds the root p*; RED (1) inverted gives the queue
// q* = Kmin + p*·(Kmax − Kmin)/Pmax for p* ≤ Pmax. Without a byte counter (the NIC preset)
// only the timer counter counts: n_timer = T·x, ev = x·p/(u(−n_timer) − 1).
double fixed_point_marking(const FluidParams& P, int n) {
    const double x = kC / n / P.mtu;
    const double rc = kC / n;
    auto G = [&](double p) {
        const double lu = std::log(1 - p);
        auto u = [&](double k) { return std::exp(k * lu); };
        const double alpha = 1 - u(P.tau_alpha * x);
        const double cut = 1 - u(P.tau * x);
        const double nt = P.timer * x, nb = P.byte_counter > 0 ? P.byte_counter / P.mtu : 0;
        const double past = u((P.fast_recovery + 1) * std::max(nt, nb));
        double e = 0, inc = 0;
        for (double k : {nt, nb}) {
            if (k <= 0) continue;
            const double ev = x * p / (std::exp(-k * lu) - 1);
            e += ev;
            inc += ev * (P.rate_ai * std::max(0.0, u(P.fast_recovery * k) - past) + P.rate_hai * past);
        }
        return rc * alpha * cut * cut - P.tau * P.tau * e * inc;
    };
    double lo = 1e-9, hi = 0.5;
    REQUIRE(G(lo) < 0);
    REQUIRE(G(hi) > 0);
    for (int i = 0; i < 200; ++i) {
        const double mid = std::sqrt(lo * hi);
        (G(mid) < 0 ? lo : hi) = mid;
    }
    return lo;
}

}  // namespace

TEST_CASE("DCQCN fluid rules: RED, the increase-event rate's limits, and rest at line rate with no marks",
          "[flow][dcqcn-fluid]") {
    // (1) at its corners: nothing at Kmin, Pmax at Kmax, everything above.
    CHECK(red_probability(100, 100, 500, 0.2) == 0.0);
    CHECK(red_probability(300, 100, 500, 0.2) == Approx(0.1));
    CHECK(red_probability(500, 100, 500, 0.2) == Approx(0.2));
    CHECK(red_probability(501, 100, 500, 0.2) == 1.0);
    // ev = x·p / ((1−p)^{−n} − 1) → x/n as p → 0 (one event per n packets: the timer alone),
    // and at small p ≈ x/n · (1 − (n+1)·p/2): (1−p)^{−n} − 1 = n·p·(1 + (n+1)·p/2 + O(n²p²)).
    const double x = 1e6, n = 50;
    CHECK(event_rate(x, 0.0, 0.0, n) == Approx(x / n));
    const double p = 1e-4;
    CHECK(event_rate(x, p, std::log1p(-p), n) == Approx(x / n * (1 - (n + 1) * p / 2)).epsilon(1e-5));
    CHECK(event_rate(x, 1.0, -INFINITY, n) == 0.0);
    // Unmarked at line rate with R_T = R_C: nothing moves but α, which decays at g/τ'.
    const FluidParams P = nic_params();
    const FluidRates r = dcqcn_derivatives(P, kC, kC, 0.5, 0.0, kC);
    CHECK(r.drc == 0.0);
    CHECK(r.drt == Approx(P.rate_hai / P.timer));  // past F at p = 0: hyper steps (capped at line later)
    CHECK(r.dalpha == Approx(-P.g / P.tau_alpha * 0.5));
}

TEST_CASE("DCQCN fluid: N flows on one bottleneck settle at the hand-derived fixed point, fill it and share it",
          "[flow][dcqcn-fluid]") {
    // The paper's parameters (SIGCOMM'15, CoNEXT'16: τ = 50 µs, τ' = T = 55 µs, B = 10 MB,
    // F = 5, g = 1/256, R_AI = 40 Mb/s): the system the CoNEXT'16 paper finds stable for these
    // N. α relaxes with time constant τ'/g = 14 ms, so 300 ms settles it (twenty time
    // constants); a step of 1 µs is 1/50 of the fastest period. At the fixed point the model
    // sits still, so its values match the derivation to the rounding of the integration.
    const FluidParams P = paper_params();
    const congestion::RedParams red = congestion::RedParams::nic(100_Gbps);
    const double kmin = static_cast<double>(red.kmin.count()), kmax = static_cast<double>(red.kmax.count());
    double previous = 0;
    for (int n : {2, 4, 8, 16}) {
        INFO(n << " flows");
        DcqcnFluid m = one_bottleneck(P, unequal(n), 4_us, 1_us);
        const Averages a = average(m, 300'000, 10'000);
        const double p_star = fixed_point_marking(P, n);
        REQUIRE(p_star < red.pmax);
        const double q_star = kmin + p_star * (kmax - kmin) / red.pmax;
        CHECK(a.mark == Approx(p_star).epsilon(1e-3));
        CHECK(a.queue == Approx(q_star).epsilon(1e-3));
        // The flow model's standing queue (dcqcn_standing_queue.hpp) solves the same balance.
        CHECK(dcqcn_standing_queue(P, red, kC, n) == Approx(q_star).epsilon(1e-6));
        CHECK(a.total == Approx(kC).epsilon(1e-3));                        // (2): Σ R = C
        for (double r : a.rate) CHECK(r == Approx(kC / n).epsilon(1e-3));  // R_C = C/N
        // The paper's observation: the standing queue grows with the number of flows.
        CHECK(q_star > previous);
        previous = q_star;
    }
}

TEST_CASE("DCQCN fluid: with the NIC preset the bottleneck stays nearly full and shared fairly (Jain >= 0.95)",
          "[flow][dcqcn-fluid]") {
    // The NIC preset (τ' = 1 µs, τ = 4 µs, T = 300 µs, no byte counter) does not settle at its
    // fixed point here: the queue cycles around Kmin and empties at times, so the link carries
    // a little under C. What must hold: unequal starts end fair, the link is at least 95 %
    // busy over 10 ms, and nothing runs above the line.
    const FluidParams P = nic_params();
    for (int n : {2, 8}) {
        INFO(n << " flows");
        DcqcnFluid m = one_bottleneck(P, unequal(n), 4_us, 100_ns);
        const Averages a = average(m, 300'000, 100'000);  // 30 ms, then 10 ms
        CHECK(jain(a.rate) >= 0.95);
        CHECK(a.total >= 0.95 * kC);
        CHECK(a.total <= kC * (1 + 1e-9) + 1e-9);  // a fluid queue serves at most C
        for (std::uint32_t f = 0; f < m.flows(); ++f) CHECK(m.current_rate(f) <= kC);
    }
}

TEST_CASE("DCQCN fluid: back-pressure holds the queue at its limit, keeps the link busy and loses no byte",
          "[flow][dcqcn-fluid]") {
    // No rate control (InfiniBand credits): four flows at line rate into one link that holds
    // 100 KB. The queue fills in 100 KB / (3·C) = 2.7 µs, then the link takes C/4 of each
    // (θ = C / 4C): the queue stays within one step's growth of the limit, and every byte sent
    // is either served (C per second) or queued.
    FluidParams P;
    P.react = false;
    const Time h = 10_ns;
    DcqcnFluid m(P, h, Time::zero());
    const std::uint32_t shared = m.add_link({100_Gbps, {Bytes::zero(), Bytes::zero(), 0.0}, Bytes{100'000}});
    for (int i = 0; i < 4; ++i) m.add_flow(100_Gbps, kEndless, Time::zero(), 100_Gbps, {{shared, 1.0}});
    m.start();
    double sent = 0;
    const double dt = 10e-9;
    for (int i = 0; i < 10'000; ++i) {  // 100 µs
        m.run(1);
        for (std::uint32_t f = 0; f < 4; ++f) sent += m.sending(f) * dt;
    }
    CHECK(m.queue(shared) >= 100'000.0);
    CHECK(m.queue(shared) <= 100'000.0 + 3 * kC * dt);
    // Sent by the flows = served (C·t: the link never idles, its queue is up from step 0) +
    // queued, up to the one step by which the queue lags the senders.
    const double served = kC * 100e-6;
    // Step k's queue takes the sends of step k − 1; before step 0 the flows sent at their
    // initial 4·C, and the last step's sends (4 · C/4) reach the queue only at the next:
    // sent = served + queued − 4C·dt + C·dt.
    CHECK(sent == Approx(served + m.queue(shared) - 4 * kC * dt + kC * dt).epsilon(1e-9));
    for (std::uint32_t f = 0; f < 4; ++f) CHECK(m.sending(f) == Approx(kC / 4).epsilon(1e-9));
}

TEST_CASE("DCQCN fluid: a flow alone sends its bytes at line rate and finishes within one step of S / line",
          "[flow][dcqcn-fluid]") {
    DcqcnFluid m(nic_params(), 100_ns, 1_us);
    const std::uint32_t l = m.add_link({100_Gbps, congestion::RedParams::nic(100_Gbps)});
    m.add_flow(100_Gbps, 1e6, 1_us, 100_Gbps, {{l, 1.0}});
    m.start();
    m.run(1000);  // 100 µs; 1 MB at 12.5 GB/s takes 80 µs
    REQUIRE(m.finished(0) != Time::max());
    const Time exact = Time::ns(80'000);
    CHECK(m.finished(0) >= exact);
    CHECK(m.finished(0) <= exact + 100_ns);
    CHECK(m.bytes_left(0) == 0.0);
    CHECK(m.queue(l) == 0.0);  // one flow at C builds nothing
}

TEST_CASE("DCQCN fluid vs the packet model: an 8-to-1 incast of 2 MB each on RoCE finishes within 5 percent",
          "[flow][dcqcn-fluid]") {
    // Eight hosts send 2 MB each to a ninth through one 100G switch, PFC, ECN and DCQCN at
    // their defaults, in both models. Max-min (no congestion control) would finish at the
    // bound 16 MB / C of the receiver's port plus a path's latency, 1.33 ms; DCQCN's first
    // cuts take the senders far below their fair share and the NIC preset's 300 µs timer
    // brings them back slowly, so the port idles and both models take longer. The fluid model
    // must reproduce that loss: within 5 % of the packet model, a tolerance for what it leaves
    // out (the packet model's first round trip, per-packet store and forward, the drain of the
    // last packets, CNPs per marked packet rather than a marking probability), each a few µs
    // to tens of µs of about 2 ms, while the bound differs from the packet model by a third.
    const scenario::ClusterSpec c = packet_test::hosts(9);
    const Bytes size{2'000'000};
    packet_test::Model pm(c, c.roce);
    Simulator sim(1);
    packet_test::Sink sink;
    for (std::uint32_t s = 0; s < 8; ++s) pm.network.send(sim, packet_test::msg(s, s, 8, size), sink);
    sim.run();
    REQUIRE(sink.at.size() == 8);
    const Time packet = *std::max_element(sink.at.begin(), sink.at.end());

    std::vector<FluidDemand> demands;
    for (std::uint32_t s = 0; s < 8; ++s) demands.push_back({RankId{s}, RankId{8}, static_cast<double>(size.count())});
    FluidFabric ff = fluid_fabric(pm.topology, pm.routing, c, 100_ns, demands);
    Time fluid = Time::zero();
    for (int chunk = 0; chunk < 100 && fluid == Time::zero(); ++chunk) {
        ff.model.run(1000);
        Time last = Time::zero();
        for (std::uint32_t f = 0; f < 8; ++f) last = std::max(last, ff.model.finished(f));
        if (last != Time::max()) fluid = last;
    }
    REQUIRE(fluid != Time::zero());
    // Sent is not delivered: add the one-way latency of a path (cables and the switch).
    Time latency = Time::zero();
    for (fabric::DirectedLink d : pm.routing.path(RankId{0}, RankId{8}))
        latency += pm.topology.link(d.link).propagation + pm.topology.node(pm.topology.target(d)).forwarding_latency;
    fluid += latency;
    double slowest = 1e300;
    for (fabric::DirectedLink d : pm.routing.path(RankId{0}, RankId{8}))
        slowest =
            std::min(slowest, static_cast<double>(pm.topology.link(d.link).payload_bandwidth().bits_per_second()) / 8);
    const double bound = 16e6 / slowest;
    INFO("packet " << packet.picoseconds() * 1e-12 << " s, fluid " << fluid.picoseconds() * 1e-12 << " s, bound "
                   << bound << " s");
    CHECK(static_cast<double>(fluid.picoseconds()) == Approx(static_cast<double>(packet.picoseconds())).epsilon(0.05));
    CHECK(static_cast<double>(fluid.picoseconds()) * 1e-12 >= bound);
    CHECK(static_cast<double>(packet.picoseconds()) * 1e-12 > 1.2 * bound);  // the loss is real in both
}

TEST_CASE(
    "flow model with flow_congestion dcqcn: a message starting at a saturated switch port waits DCQCN's standing queue",
    "[flow][dcqcn-fluid]") {
    // Hosts 0 and 1 stream into host 3, saturating the switch's port to it with two flows;
    // 10 µs later host 2 sends 4 KB to host 3. Without congestion control the flow model
    // charges half a packet at that port; with DCQCN, the standing queue q*(2) of the fixed
    // point over C. Everything else about the message (its path latency, its share) is the
    // same in both runs, so the two deliveries differ by exactly q*(2)/C − ½·4096 B/C (each
    // rounded up to a picosecond).
    const scenario::ClusterSpec c = packet_test::hosts(4);
    auto deliver = [&](bool dcqcn) {
        const fabric::Topology topology = fabric::build_topology(c);
        const fabric::Routing routing(topology, c.fabric.routing, c.fabric.technology, 1);
        FlowModelSpec spec = flow_test::flow_spec(c, true);
        spec.dcqcn = dcqcn;
        FlowNetwork net(topology, routing, spec, std::make_unique<CpuMaxMin>());
        Simulator sim(1);
        packet_test::Sink sink;
        net.send(sim, packet_test::msg(0, 0, 3, Bytes{100'000'000}), sink);
        net.send(sim, packet_test::msg(1, 1, 3, Bytes{100'000'000}), sink);
        sim.run(10_us);
        net.send(sim, packet_test::msg(2, 2, 3, Bytes{4096}), sink);
        sim.run(200_us);
        REQUIRE(sink.at.size() == 3);
        return sink.at[2];
    };
    const fabric::Topology topology = fabric::build_topology(c);
    const fabric::Routing routing(topology, c.fabric.routing, c.fabric.technology, 1);
    const fabric::DirectedLink port = routing.path(RankId{2}, RankId{3})[2];  // host, NIC, switch -> NIC
    REQUIRE(fabric::is_fabric_switch(topology.node(topology.source(port)).kind));
    const double cap = static_cast<double>(topology.link(port.link).payload_bandwidth().bits_per_second()) / 8;
    const congestion::RedParams red = congestion::RedParams::nic(topology.link(port.link).bandwidth);
    const double q = dcqcn_standing_queue(fluid_params_of(c), red, cap, 2);
    REQUIRE(q > static_cast<double>(red.kmin.count()));
    auto ps = [](double bytes, double rate) { return static_cast<std::int64_t>(std::ceil(bytes / rate * 1e12)); };
    const std::int64_t expected = ps(q, cap) - ps(2048, cap);
    const std::int64_t got = (deliver(true) - deliver(false)).picoseconds();
    CHECK(std::abs(got - expected) <= 2);
}

TEST_CASE("the NIC's reaction point: a crash to R_min keeps R_T at line and one timer event takes R_C halfway back",
          "[flow][dcqcn-fluid]") {
    // dcqcn_events.hpp with the NIC preset at 100 Gb/s (τ = 4 µs, τ' = 1 µs, T = 300 µs, F = 1,
    // R_min = 1 Gb/s, clamp_target_rate false). A CNP in every step for 200 µs: the first sets
    // α = 1 and R_T = R_C = line; α stays 1 (α(1 − g) + g), so each decrease period halves R_C
    // down to R_min. No increase event comes between cuts (T > τ), so no cut resets R_T: it
    // stays at line. Then no CNP: the last cut, at the first decrease period after the last
    // CNP, restarts the timer, and T later the first event (fast recovery, stage 0 < F) sets
    // R_C = (R_min + R_T)/2 = 50.5 Gb/s, as the packet model's QPs jump beside the incast.
    const FluidParams P = nic_params();
    const double line = 100e9 / 8, h = 100e-9;
    DcqcnEventState e;
    double rc = line, rt = line, alpha = 0;
    Rng rng(1, "test");
    double now = 0;
    for (; now < 200e-6; now += h) dcqcn_event_step(P, e, rc, rt, alpha, -INFINITY, rc * h, now, line, rng);
    CHECK(rc == P.min_rate);
    CHECK(rt == line);
    CHECK(alpha == 1);
    // The last cut is at the first decrease period after the last CNP; the timer is due T later.
    const double last_cnp = now - h;
    for (; now < last_cnp + 2 * P.tau; now += h) dcqcn_event_step(P, e, rc, rt, alpha, 0.0, rc * h, now, line, rng);
    const double last_cut = e.next_increase - P.timer;
    CHECK(last_cut > last_cnp);
    CHECK(last_cut <= last_cnp + P.tau);
    for (; now < e.next_increase - h / 2; now += h) dcqcn_event_step(P, e, rc, rt, alpha, 0.0, rc * h, now, line, rng);
    CHECK(rc == P.min_rate);  // no event yet
    dcqcn_event_step(P, e, rc, rt, alpha, 0.0, rc * h, now, line, rng);
    CHECK(rc == Approx((P.min_rate + line) / 2).epsilon(1e-12));
    CHECK(rc * 8 == Approx(50.5e9).epsilon(1e-12));
    CHECK(rt == line);
}

TEST_CASE("the NIC's reaction point: marks come back on whole packets, at most one CNP per packet",
          "[flow][dcqcn-fluid]") {
    // A quarter of a packet comes back in each step: the first whole one in step 4, then in
    // steps 8 and 12, so with every packet marked (p = 1) only those three steps can bring a
    // CNP, and with p = 1/2 each of them carries log(1/2).
    double partial = 0;
    std::vector<int> cnp_steps;
    for (int k = 1; k <= 12; ++k)
        if (unmarked_log_whole(partial, 0.25, 1.0) < 0) cnp_steps.push_back(k);
    CHECK(cnp_steps == std::vector<int>{4, 8, 12});
    partial = 0.75;
    CHECK(unmarked_log_whole(partial, 0.25, 0.5) == Approx(std::log(0.5)).epsilon(1e-12));
    CHECK(partial == 0);
    CHECK(unmarked_log_whole(partial, 0.0, 1.0) == 0);  // nothing came back
    // A QP at R_min = 1 Gb/s behind a queue above Kmax, steps of 100 ns, 4096-byte packets:
    // 1e9 / 8 · 1e-3 / 4096 = 30.5 packets in 1 ms, so 30 steps that can bring a CNP, where
    // drawing on fractions of a packet made all 10 000 of them certain.
    const double per_step = 1e9 / 8 * 100e-9 / 4096;
    partial = 0;
    int cnps = 0;
    for (int k = 0; k < 10'000; ++k) cnps += unmarked_log_whole(partial, per_step, 1.0) < 0 ? 1 : 0;
    CHECK(cnps == 30);
}
