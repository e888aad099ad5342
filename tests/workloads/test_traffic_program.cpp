// A traffic entry as a program (traffic_program.hpp) against the same entry built whole
// (add_traffic): every flow is the same flow, issued and delivered at the same picosecond, on
// the ideal network; and what the program holds while it runs.
#include <catch2/catch.hpp>

#include "workload_fixtures.hpp"

#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "scenario/flow_size_cdf.hpp"
#include "workloads/executor.hpp"
#include "workloads/traffic.hpp"
#include "workloads/traffic_program.hpp"

#include <algorithm>
#include <memory>
#include <utility>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace workload_test;
using scenario::TrafficPattern;
using scenario::TrafficSpec;
using workloads::TrafficProgram;

namespace {

constexpr std::uint64_t kSeed = 5;

struct Whole {
    workloads::OpGraph graph;
    std::vector<workloads::OpTiming> timings;
};

Whole run_whole(const scenario::ClusterSpec& cluster, const TrafficSpec& spec) {
    Whole w;
    const auto e = w.graph.add_entry("t");
    workloads::add_traffic(w.graph, e, spec, cluster, kSeed);
    Simulator sim(kSeed);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{kAlpha});
    workloads::Executor ex(w.graph, net);
    ex.start(sim);
    sim.run();
    REQUIRE(ex.ops_done() == ex.ops_total());
    w.timings = ex.op_timings();
    return w;
}

struct Streamed {
    std::vector<workloads::TrafficFlow> flows;
    std::vector<workloads::OpTiming> timings;
    std::size_t peak_live = 0;
    std::uint64_t total = 0;
};

Streamed run_program(const scenario::ClusterSpec& cluster, const TrafficSpec& spec) {
    workloads::OpGraph g;
    const auto e = g.add_entry("t");
    Simulator sim(kSeed);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{kAlpha});
    workloads::Executor ex(g, net);
    ex.set_program(e, std::make_unique<TrafficProgram>(spec, cluster, kSeed, "t", e));
    ex.start(sim);
    sim.run();
    REQUIRE(ex.ops_done() == ex.ops_total());
    const auto& p = dynamic_cast<const TrafficProgram&>(*ex.program(e));
    Streamed s;
    s.total = ex.ops_total();
    for (std::uint64_t i = 0; i < p.flows().count(); ++i) {
        s.flows.push_back(p.flows()[i]);
        s.timings.push_back(p.timing(i));
    }
    s.peak_live = ex.peak_live();
    return s;
}

// Program and whole graph: the same flows in the same order, at the same times.
Streamed same_as_whole(const scenario::ClusterSpec& cluster, const TrafficSpec& spec) {
    const Whole w = run_whole(cluster, spec);
    Streamed s = run_program(cluster, spec);
    REQUIRE(s.total == w.graph.ops().size());
    REQUIRE(s.flows.size() == w.graph.ops().size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < s.flows.size(); ++i) {
        const auto& op = w.graph.ops()[i];
        const auto& f = s.flows[i];
        const bool same = op.src == f.src && op.dst == f.dst && op.size == f.size && op.not_before == f.not_before &&
                          w.timings[i].start == s.timings[i].start && w.timings[i].finish == s.timings[i].finish;
        if (!same) ++differ;
    }
    CHECK(differ == 0);
    return s;
}

TrafficSpec pattern(TrafficPattern p, Bytes size) {
    TrafficSpec s;
    s.pattern = p;
    s.size = size;
    s.start = 3_us;  // issued by events, not at release
    return s;
}

}  // namespace

TEST_CASE("traffic programs run the whole graph's flows: incast, permutation, all_to_all, storage",
          "[traffic][program]") {
    // Incast and all-to-all load shared NICs, so delivery order depends on issue order.
    const auto incast = same_as_whole(hgx(2), pattern(TrafficPattern::incast, 1_MiB));
    // Every flow is released as the entry opens, as in the whole graph: all 15 at once.
    CHECK(incast.peak_live == 15);
    same_as_whole(hgx(4), pattern(TrafficPattern::permutation, 256_KiB));
    const auto a2a = same_as_whole(hgx(2), pattern(TrafficPattern::all_to_all, 64_KiB));
    CHECK(a2a.flows.size() == 16 * 15);
    auto cluster = hosts(4);
    cluster.storage.nodes = 2;
    cluster.storage.nics_per_node = 2;
    cluster.storage.nic.line_rate = 200_Gbps;
    for (auto op : {scenario::StorageOperation::read, scenario::StorageOperation::write}) {
        auto spec = pattern(TrafficPattern::storage, 8_MiB);
        spec.operation = op;
        same_as_whole(cluster, spec);
    }
}

TEST_CASE("a poisson program runs the whole graph's arrivals, one pending per sender", "[traffic][program][poisson]") {
    TrafficSpec spec;
    spec.pattern = TrafficPattern::poisson;
    spec.load = 0.5;
    spec.cdf = "fb_hadoop";
    spec.sizes = *scenario::builtin_flow_size_cdf(spec.cdf);
    spec.start = 10_us;
    spec.duration = 2_ms;
    const auto s = same_as_whole(hgx(4), spec);
    // The whole graph releases every arrival of the window at the start. The program holds,
    // per sender, its next arrival (released when the one before is issued) and its flows in
    // flight: at most the flows in flight at once (from the timings; a start before a finish
    // at the same instant) plus the 32 senders.
    std::vector<std::pair<Time, int>> steps;
    for (const auto& t : s.timings) {
        steps.emplace_back(t.start, 0);  // at the same time, starts first: the larger count
        steps.emplace_back(t.finish, 1);
    }
    std::sort(steps.begin(), steps.end());
    std::size_t in_flight = 0, most = 0;
    for (const auto& [t, finish] : steps) {
        in_flight = finish == 1 ? in_flight - 1 : in_flight + 1;
        most = std::max(most, in_flight);
    }
    INFO(s.flows.size() << " flows, " << most << " in flight at most, " << s.peak_live << " held");
    REQUIRE(s.flows.size() > 2000);
    CHECK(s.peak_live <= most + 32);
    CHECK(s.peak_live < s.flows.size());
}

TEST_CASE("a gpu_pool program runs the whole graph's calls, one call's flows in flight per chain",
          "[traffic][program][gpu_pool]") {
    auto cluster = hgx(2);
    cluster.clients.nodes = 2;
    cluster.clients.nic.line_rate = 200_Gbps;
    TrafficSpec spec;
    spec.pattern = TrafficPattern::gpu_pool;
    spec.calls = 6;
    spec.concurrency = 3;
    spec.copy = 4_MiB;
    spec.copy_back = 1_MiB;
    spec.interval = 50_us;  // later calls wait for their start as well as for the call before
    spec.ranks = {RankId{0}, RankId{9}};
    const auto s = same_as_whole(cluster, spec);
    // 2 clients x 3 chains x 6 calls x 4 flows.
    CHECK(s.flows.size() == 144);
    // A chain runs one phase of one call at a time, two flows: 6 chains, at most 12.
    CHECK(s.peak_live <= 12);
    spec.copy_back = Bytes::zero();  // three flows a call
    CHECK(same_as_whole(cluster, spec).flows.size() == 108);
}
