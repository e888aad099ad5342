// Traces replayed on the ideal model against times derived by hand (docs/models/ideal.md: a
// message of S bytes alone takes α + S/B; a ring all-reduce over n ranks with one channel and
// blocks of at most 512 KiB is 2(n−1) steps of one block of S/n each: 2(n−1)(α + S/(nB))).
#include <catch2/catch.hpp>

#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "trace_fixtures.hpp"
#include "workloads/executor.hpp"
#include "workloads/trace_program.hpp"

using namespace trace_test;

namespace {

const report::TraceResult& only_trace(const report::VariantResult& r) {
    REQUIRE(r.problems.empty());
    REQUIRE(r.traces.size() == 1);
    return r.traces.front();
}

Time exposed(const report::TraceResult& t, const std::string& what) {
    for (const auto& [name, time] : t.exposed)
        if (name == what) return time;
    FAIL("no exposed time for " << what);
    return Time::zero();
}

void compute_all_reduce_compute(int n) {
    // Every rank: 10 us of compute, an all-reduce of S = 1 MiB over all ranks, 20 us of compute.
    // The all-reduce starts when the last rank reaches it (all at 10 us) and takes
    // 2(n−1)(α + S/(nB)); the iteration is 10 us + that + 20 us, and on the critical rank that
    // is 30 us of compute and the all-reduce exposed.
    test::TempDir dir("trace-ar");
    const std::int64_t s = 1 << 20;
    for (int r = 0; r < n; ++r)
        write_trace(dir.path() / fmt::format("job.{}.et", r),
                    {compute(1, 10), all_reduce(2, s, {1}), compute(3, 20, {2})});
    const auto result = replay(scenario_text(dir.path(), n, ", algorithm: ring, channels: 1"));
    const auto& t = only_trace(result);
    const Time ar = Time::ps(2 * (n - 1) * (kAlpha + wire(s / n)).picoseconds());
    CHECK(t.time == Time::us(30) + ar);
    CHECK(t.compute == Time::us(30));
    CHECK(exposed(t, "group (all)") == ar);
    CHECK(t.idle == Time::zero());
    REQUIRE(t.collectives.size() == 1);
    const auto& c = t.collectives.front();
    CHECK(c.op == "all_reduce");
    CHECK(c.ranks == n);
    CHECK(c.count == 1);
    CHECK(c.bytes.count() == s);
    CHECK(c.time == ar);
    // nccl-tests: busbw = S/t × 2(n−1)/n.
    CHECK(c.busbw_GBps == Approx(static_cast<double>(s) / ar.seconds() / 1e9 * 2.0 * (n - 1) / n));
}

}  // namespace

TEST_CASE("trace: compute, all-reduce, compute on 2 ranks takes c1 + 2(alpha + S/2B) + c2", "[trace]") {
    compute_all_reduce_compute(2);
}

TEST_CASE("trace: compute, all-reduce, compute on 8 ranks takes c1 + 14(alpha + S/8B) + c2", "[trace]") {
    compute_all_reduce_compute(8);
}

TEST_CASE("trace: a send/recv pipeline over 3 ranks takes 3c + 2(alpha + S/B)", "[trace]") {
    // Rank 0 computes c, sends S to rank 1; rank 1 receives, computes c, sends S to rank 2; rank
    // 2 receives and computes c. Each message is alone on its ports: α + S/B. The critical rank
    // is 2: c of compute, and the wait for its receive (2c + 2(α + S/B)) is exposed p2p.
    test::TempDir dir("trace-p2p");
    const std::int64_t s = 256 * 1024;
    const Time c = Time::us(50), hop = kAlpha + wire(s);
    write_trace(dir.path() / "job.0.et", {compute(1, 50), send(2, 1, s, {1})});
    write_trace(dir.path() / "job.1.et", {recv(1, 0, s), compute(2, 50, {1}), send(3, 2, s, {2})});
    write_trace(dir.path() / "job.2.et", {recv(1, 1, s), compute(2, 50, {1})});
    const auto result = replay(scenario_text(dir.path(), 3));
    const auto& t = only_trace(result);
    CHECK(t.time == c + hop + c + hop + c);
    CHECK(t.critical_rank == 2);
    CHECK(t.compute == c);
    CHECK(exposed(t, "p2p") == c + hop + c + hop);
    CHECK(t.idle == Time::zero());
    CHECK(t.collectives.empty());
}

TEST_CASE("trace: a compute that depends across a collective overlaps it", "[trace]") {
    // Each of 2 ranks: A (10 us); an all-reduce after A; B (5 us) after A only, so it runs
    // beside the all-reduce; C (20 us) after both. The all-reduce of S = 1 MiB takes
    // ar = 2(α + S/2B) ≈ 9.2 us > 5 us, so C starts at 10 us + ar, and B hides 5 us of it:
    // time = 10 + ar + 20 us, compute = 35 us, exposed = ar − 5 us.
    test::TempDir dir("trace-overlap");
    const std::int64_t s = 1 << 20;
    for (int r = 0; r < 2; ++r)
        write_trace(dir.path() / fmt::format("job.{}.et", r),
                    {compute(1, 10), all_reduce(2, s, {1}, "dp"), compute(3, 5, {1}), compute(4, 20, {2, 3})});
    const auto result = replay(scenario_text(dir.path(), 2, ", algorithm: ring, channels: 1"));
    const auto& t = only_trace(result);
    const Time ar = Time::ps(2 * (kAlpha + wire(s / 2)).picoseconds());
    REQUIRE(ar > Time::us(5));
    CHECK(t.time == Time::us(30) + ar);
    CHECK(t.compute == Time::us(35));
    CHECK(exposed(t, "group dp") == ar - Time::us(5));
    CHECK(t.idle == Time::zero());
    REQUIRE(t.collectives.size() == 1);
    CHECK(t.collectives.front().group == "dp");
}

TEST_CASE("trace: a rank holds at most its window of nodes, however long its trace", "[trace]") {
    // 3 windows' worth of compute nodes in one chain on each of 2 ranks, the first of each rank
    // 1 us and every other node waiting only for the node before: every node is read,
    // replayed and forgotten, the time is their sum, and no more than a window of a rank's
    // nodes is ever held at once.
    test::TempDir dir("trace-window");
    const std::size_t count = 3 * workloads::TraceProgram::kWindow;
    std::vector<pb::Node> nodes;
    for (std::uint64_t i = 1; i <= count; ++i) nodes.push_back(i == 1 ? compute(i, 1) : compute(i, 1, {i - 1}));
    write_trace(dir.path() / "job.0.et", nodes);
    write_trace(dir.path() / "job.1.et", nodes);

    scenario::ClusterSpec cluster;
    cluster.servers = 2;
    cluster.server.gpus = 0;
    cluster.server.nics = 1;
    fabric::IdealNetwork network(cluster, scenario::IdealNetworkSpec{});
    scenario::TraceSpec spec;
    spec.path = (dir.path() / "job.%d.et").string();
    auto program = std::make_unique<workloads::TraceProgram>(
        workloads::index_trace(spec, "workload[0].trace", cluster, network), cluster, network, false);
    const workloads::TraceProgram& view = *program;
    workloads::OpGraph graph;
    graph.add_entry("job");
    workloads::Executor executor(std::move(graph), network);
    executor.set_program(0, std::move(program));
    Simulator sim(1);
    executor.start(sim);
    sim.run();
    CHECK(view.done());
    CHECK(executor.ops_done() == 2 * count);
    CHECK(view.breakdown().time == Time::us(static_cast<std::int64_t>(count)));
    CHECK(view.peak_nodes() <= 2 * workloads::TraceProgram::kWindow);
    CHECK(view.peak_nodes() >= workloads::TraceProgram::kWindow);  // the window is used: read ahead
}
