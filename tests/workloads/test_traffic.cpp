// Synthetic traffic (docs/models/traffic.md) on the ideal network, against closed forms:
// α = the network's latency, B = the NIC line rate; and the Poisson generator against its
// target load and flow-size CDF.
#include <catch2/catch.hpp>

#include "workload_fixtures.hpp"

#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "scenario/flow_size_cdf.hpp"
#include "workloads/executor.hpp"
#include "workloads/traffic.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace workload_test;
using scenario::TrafficPattern;
using scenario::TrafficSpec;
using workloads::Executor;
using workloads::OpGraph;

namespace {

struct Run {
    OpGraph graph;  // as built (the executor keeps its own copy)
    workloads::TrafficPlan plan;
    std::vector<workloads::OpTiming> timings;
    std::vector<Bytes> nic_sent, nic_received;
    std::vector<std::size_t> ports;  // filled by the caller's probe
};

OpGraph build(const scenario::ClusterSpec& cluster, const TrafficSpec& spec, std::uint64_t seed,
              workloads::TrafficPlan* plan = nullptr) {
    OpGraph g;
    const auto e = g.add_entry("t");
    auto p = workloads::add_traffic(g, e, spec, cluster, seed);
    if (plan) *plan = p;
    return g;
}

Run run(const scenario::ClusterSpec& cluster, const TrafficSpec& spec, std::uint64_t seed = 1) {
    Run r;
    r.graph = build(cluster, spec, seed, &r.plan);
    Simulator sim(seed);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{kAlpha});
    Executor ex(r.graph, net);
    ex.start(sim);
    sim.run();
    REQUIRE(ex.ops_done() == ex.ops_total());
    r.timings = ex.op_timings();
    r.nic_sent = net.nic_bytes_sent();
    r.nic_received = net.nic_bytes_received();
    return r;
}

Time last_finish(const Run& r) {
    Time t = Time::zero();
    for (const auto& x : r.timings) t = std::max(t, x.finish);
    return t;
}

TrafficSpec pattern(TrafficPattern p, Bytes size) {
    TrafficSpec s;
    s.pattern = p;
    s.size = size;
    return s;
}

TrafficSpec poisson(double load, const std::string& cdf, Time duration) {
    TrafficSpec s;
    s.pattern = TrafficPattern::poisson;
    s.load = load;
    s.cdf = cdf;
    s.sizes = *scenario::builtin_flow_size_cdf(cdf);
    s.duration = duration;
    return s;
}

}  // namespace

TEST_CASE("incast: N senders of S bytes into one receiver finish at latency + N S / B exactly", "[traffic][ideal]") {
    for (int n : {1, 3, 7}) {
        auto spec = pattern(TrafficPattern::incast, 1_MiB);
        spec.receiver = RankId{1};
        const auto r = run(hosts(n + 1), spec);
        CHECK(r.graph.ops().size() == static_cast<std::size_t>(n));
        for (const auto& op : r.graph.ops()) CHECK(op.dst == RankId{1});
        // The receiver's port serialises: one S/B after another.
        CHECK(last_finish(r) == kAlpha + transmit_time(1_MiB, kB) * n);
        CHECK(r.nic_received[1] == 1_MiB * n);
    }
}

TEST_CASE("permutation: a derangement of the senders, the same for the same seed", "[traffic]") {
    for (int n : {2, 5, 64}) {
        const auto g = build(hgx(n), pattern(TrafficPattern::permutation, 64_KiB), 7);
        const int ranks = 8 * n;
        REQUIRE(g.ops().size() == static_cast<std::size_t>(ranks));
        std::set<std::uint32_t> senders, receivers;
        for (const auto& op : g.ops()) {
            CHECK(op.src != op.dst);
            senders.insert(op.src.value());
            receivers.insert(op.dst.value());
        }
        CHECK(senders.size() == static_cast<std::size_t>(ranks));
        CHECK(receivers.size() == static_cast<std::size_t>(ranks));  // each receives once
    }
    const auto a = build(hgx(4), pattern(TrafficPattern::permutation, 64_KiB), 7);
    const auto b = build(hgx(4), pattern(TrafficPattern::permutation, 64_KiB), 7);
    const auto c = build(hgx(4), pattern(TrafficPattern::permutation, 64_KiB), 8);
    bool same = true, differs = false;
    for (std::size_t i = 0; i < a.ops().size(); ++i) {
        same = same && a.ops()[i].dst == b.ops()[i].dst;
        differs = differs || a.ops()[i].dst != c.ops()[i].dst;
    }
    CHECK(same);
    CHECK(differs);
}

TEST_CASE("permutation of a listed subset stays inside it", "[traffic]") {
    auto spec = pattern(TrafficPattern::permutation, 1_KiB);
    spec.senders = {RankId{3}, RankId{9}, RankId{12}};
    const auto g = build(hgx(2), spec, 1);
    const std::set<std::uint32_t> members{3, 9, 12};
    REQUIRE(g.ops().size() == 3);
    for (const auto& op : g.ops()) {
        CHECK(members.count(op.src.value()) == 1);
        CHECK(members.count(op.dst.value()) == 1);
        CHECK(op.src != op.dst);
    }
}

TEST_CASE("all_to_all sends n(n-1) flows, one per ordered pair", "[traffic]") {
    for (int servers : {1, 2, 4}) {
        const auto g = build(hgx(servers), pattern(TrafficPattern::all_to_all, 4_KiB), 1);
        const std::size_t n = 8 * static_cast<std::size_t>(servers);
        CHECK(g.ops().size() == n * (n - 1));
        std::set<std::pair<std::uint32_t, std::uint32_t>> pairs;
        for (const auto& op : g.ops()) pairs.insert({op.src.value(), op.dst.value()});
        CHECK(pairs.size() == n * (n - 1));
    }
    // On hosts, each NIC sends and receives (n-1)·S: done at α + (n-1)S/B exactly.
    const auto r = run(hosts(5), pattern(TrafficPattern::all_to_all, 1_MiB));
    CHECK(last_finish(r) == kAlpha + transmit_time(1_MiB, kB) * 4);
}

TEST_CASE("poisson traffic reaches the requested load within 2 percent over a long run", "[traffic][poisson]") {
    struct Case {
        std::string cdf;
        double load;
        Time duration;
    };
    // About 230k (websearch) and 800k (fb_hadoop) flows: the relative error of the bytes
    // offered is about sqrt((1 + CV^2) / flows) = 0.5% and 0.6% (CV 2.3 and 5.6).
    for (const auto& c : {Case{"websearch", 0.7, 700_ms}, Case{"fb_hadoop", 0.3, 400_ms}}) {
        INFO(c.cdf);
        const auto cluster = hosts(16);
        workloads::TrafficPlan plan;
        const auto t0 = std::chrono::steady_clock::now();
        const auto g = build(cluster, poisson(c.load, c.cdf, c.duration), 3, &plan);
        const double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        Bytes bytes;
        for (const auto& op : g.ops()) {
            bytes += op.size;
            CHECK(op.not_before < c.duration);
            CHECK(op.src != op.dst);
        }
        const double achieved =
            static_cast<double>(bytes.count()) / (16.0 * kB.bytes_per_second() * c.duration.seconds());
        WARN(c.cdf << ": " << g.ops().size() << " flows, achieved load " << achieved << " for " << c.load
                   << ", generated at " << static_cast<double>(g.ops().size()) / gen_s << " flows/s");
        CHECK(plan.offered_load == c.load);
        CHECK(plan.senders == 16);
        CHECK(g.ops().size() > 200'000);
        CHECK(achieved == Approx(c.load).epsilon(0.02));
    }
}

TEST_CASE("poisson destinations are uniform over the ranks of other servers", "[traffic][poisson]") {
    const auto g = build(hgx(4), poisson(0.5, "fb_hadoop", 200_us), 1);
    std::vector<int> received(32, 0);
    for (const auto& op : g.ops()) {
        CHECK(op.src.value() / 8 != op.dst.value() / 8);
        ++received[op.dst.value()];
    }
    const double mean = static_cast<double>(g.ops().size()) / 32.0;
    for (int count : received) CHECK(std::abs(count - mean) < 5 * std::sqrt(mean));
}

TEST_CASE("sampled flow sizes follow the CDF: Kolmogorov-Smirnov below the 1 percent critical value",
          "[traffic][poisson]") {
    for (const std::string name : {"websearch", "fb_hadoop"}) {
        const auto cdf = *scenario::builtin_flow_size_cdf(name);
        Rng rng(11, "ks/" + name);
        const std::size_t n = 100'000;
        std::vector<std::int64_t> x(n);
        for (auto& v : x) v = workloads::sample_flow_size(cdf, rng).count();
        std::sort(x.begin(), x.end());
        // Sizes are rounded to whole bytes, so compare with the rounded distribution's CDF,
        // G(k) = F(k + 1/2); both step functions only change at integers, so the supremum is
        // at a sample value or just before the next one.
        const auto G = [&](std::int64_t k) { return cdf.cdf(static_cast<double>(k) + 0.5); };
        double d = G(x.front() - 1);
        for (std::size_t i = 0; i < n;) {
            std::size_t j = i;
            while (j < n && x[j] == x[i]) ++j;
            const double fn = static_cast<double>(j) / static_cast<double>(n);
            d = std::max(d, std::abs(fn - G(x[i])));
            if (j < n) d = std::max(d, std::abs(fn - G(x[j] - 1)));
            i = j;
        }
        const double critical = 1.63 / std::sqrt(static_cast<double>(n));
        WARN(name << ": KS D = " << d << ", critical " << critical << " (n = " << n << ")");
        CHECK(d < critical);
    }
}

TEST_CASE("the built-in CDFs are the points of data/flow-size", "[traffic][cdf]") {
    for (const std::string name : {"websearch", "fb_hadoop"}) {
        std::ifstream in(std::string(FABRICSIM_SOURCE_DIR) + "/data/flow-size/" + name + ".cdf");
        REQUIRE(in);
        std::stringstream text;
        text << in.rdbuf();
        std::string error;
        const auto parsed = scenario::parse_flow_size_cdf(text.str(), error);
        REQUIRE(parsed);
        CHECK(*parsed == *scenario::builtin_flow_size_cdf(name));
    }
    const auto w = *scenario::builtin_flow_size_cdf("websearch");
    CHECK(w.mean() == Approx(1'711'250.0));  // HPCC's getAvg over the same points
    CHECK(w.quantile(0.15) == 10000.0);
    CHECK(w.quantile(0.175) == Approx(15000.0));
    CHECK(w.cdf(15000.0) == Approx(0.175));
    std::string error;
    CHECK_FALSE(scenario::parse_flow_size_cdf("0 0\n100 50\n", error));
    CHECK(error == "expected at least two points, the last at 100 percent");
    CHECK_FALSE(scenario::parse_flow_size_cdf("0 0\n100 50\n50 100\n", error));
    CHECK(error == "line 3: sizes and percents must not decrease, found \"50 100\" after \"100 50\"");
}

TEST_CASE("poisson: same seed, same flows, and another seed, other flows", "[traffic][poisson]") {
    const auto a = build(hgx(2), poisson(0.4, "websearch", 2_ms), 5);
    const auto b = build(hgx(2), poisson(0.4, "websearch", 2_ms), 5);
    const auto c = build(hgx(2), poisson(0.4, "websearch", 2_ms), 6);
    REQUIRE(a.ops().size() == b.ops().size());
    bool same = true;
    for (std::size_t i = 0; i < a.ops().size(); ++i)
        same = same && a.ops()[i].src == b.ops()[i].src && a.ops()[i].dst == b.ops()[i].dst &&
               a.ops()[i].size == b.ops()[i].size && a.ops()[i].not_before == b.ops()[i].not_before;
    CHECK(same);
    bool differs = a.ops().size() != c.ops().size();
    for (std::size_t i = 0; !differs && i < a.ops().size(); ++i) differs = a.ops()[i].size != c.ops()[i].size;
    CHECK(differs);
}

TEST_CASE("storage on the compute fabric: reads and writes go through the storage node's NIC", "[traffic][storage]") {
    // 4 hosts, one storage node with one 200G NIC: its port serialises, 4 S / 200G.
    auto cluster = hosts(4);
    cluster.storage.nodes = 1;
    cluster.storage.nic.line_rate = 200_Gbps;
    auto spec = pattern(TrafficPattern::storage, 8_MiB);
    const auto read = run(cluster, spec);
    CHECK(read.graph.ops().size() == 4);
    CHECK(last_finish(read) == kAlpha + transmit_time(8_MiB, 200_Gbps) * 4);
    fabric::IdealNetwork probe(cluster, scenario::IdealNetworkSpec{kAlpha});
    CHECK(read.nic_sent[probe.storage_node_nic(0, 0)] == 8_MiB * 4);
    for (int h = 0; h < 4; ++h) CHECK(read.nic_received[static_cast<std::size_t>(h)] == 8_MiB);

    spec.operation = scenario::StorageOperation::write;
    const auto write = run(cluster, spec);
    CHECK(last_finish(write) == kAlpha + transmit_time(8_MiB, 200_Gbps) * 4);
    CHECK(write.nic_received[probe.storage_node_nic(0, 0)] == 8_MiB * 4);

    // Two storage nodes with two NICs each: rank j uses node j mod 2, NIC (j mod 2): each
    // node NIC carries one S.
    cluster.storage.nodes = 2;
    cluster.storage.nics_per_node = 2;
    spec.operation = scenario::StorageOperation::read;
    const auto spread = run(cluster, spec);
    fabric::IdealNetwork probe2(cluster, scenario::IdealNetworkSpec{kAlpha});
    CHECK(last_finish(spread) == kAlpha + transmit_time(8_MiB, 200_Gbps) * 2);
    CHECK(spread.nic_sent[probe2.storage_node_nic(0, 0)] == 8_MiB * 2);
    CHECK(spread.nic_sent[probe2.storage_node_nic(1, 1)] == 8_MiB * 2);
}

TEST_CASE("storage fabric vs compute fabric: the server side uses its storage NICs", "[traffic][storage]") {
    // One HGX server reads 8 x 64 MiB from a storage node with one 400G NIC.
    auto compute = hgx(1);
    compute.storage.nodes = 1;
    compute.storage.nic.line_rate = 400_Gbps;
    auto spec = pattern(TrafficPattern::storage, 64_MiB);
    const auto a = run(compute, spec);
    // The storage NIC sends one S after another at 400G; each GPU's own NIC takes one.
    CHECK(last_finish(a) == kAlpha + transmit_time(64_MiB, 400_Gbps) * 8);

    // On a storage fabric the server has one 200G storage NIC: it receives all eight.
    auto storage = hgx(1);
    storage.server.storage_nics = 1;
    storage.server.storage_nic.line_rate = 200_Gbps;
    storage.storage_fabric.enabled = true;
    storage.storage_fabric.storage_nodes = 1;
    storage.storage_fabric.storage_node_nic.line_rate = 400_Gbps;
    const auto b = run(storage, spec);
    CHECK(last_finish(b) == kAlpha + transmit_time(64_MiB, 200_Gbps) * 8);
    fabric::IdealNetwork probe(storage, scenario::IdealNetworkSpec{kAlpha});
    CHECK(b.nic_received[probe.server_storage_nic(0, 0)] == 64_MiB * 8);
    for (int nic = 0; nic < 8; ++nic) CHECK(b.nic_received[static_cast<std::size_t>(nic)] == Bytes::zero());
}

namespace {
TrafficSpec pool(int calls, Bytes copy, Bytes copy_back = Bytes::zero()) {
    TrafficSpec s;
    s.pattern = TrafficPattern::gpu_pool;
    s.calls = calls;
    s.copy = copy;
    s.copy_back = copy_back;
    s.request = 512_B;
    s.response = 256_B;
    return s;
}

std::vector<Time> call_latencies(const Run& r) {
    std::vector<Time> out;
    for (std::size_t c = 0; c + 1 < r.plan.call_first.size(); ++c) {
        Time begin = Time::max(), end = Time::zero();
        for (auto i = r.plan.call_first[c]; i < r.plan.call_first[c + 1]; ++i) {
            begin = std::min(begin, r.timings[i].start);
            end = std::max(end, r.timings[i].finish);
        }
        out.push_back(end - begin);
    }
    return out;
}
}  // namespace

TEST_CASE("gpu_pool: one client's call adds two RPC latencies plus the transfer times", "[traffic][gpu_pool]") {
    auto cluster = hgx(2);
    cluster.clients.nodes = 1;
    cluster.clients.nic.line_rate = 200_Gbps;  // slower than the GPU's NIC: it sets the pace
    const auto r = run(cluster, pool(10, 16_MiB, 4_MiB));
    REQUIRE(r.plan.call_first.size() == 11);
    CHECK(r.graph.ops().size() == 40);
    // Request then copy leave back to back; response after copy_back: 2α + Σ S_i / B.
    const Time expected = 2 * kAlpha + transmit_time(512_B, 200_Gbps) + transmit_time(16_MiB, 200_Gbps) +
                          transmit_time(4_MiB, 200_Gbps) + transmit_time(256_B, 200_Gbps);
    for (Time t : call_latencies(r)) CHECK(t == expected);
    CHECK(last_finish(r) == expected * 10);  // the calls of a chain run one after another
}

TEST_CASE("gpu_pool throughput: k clients on their own GPUs scale k-fold, and on one GPU its NIC caps them",
          "[traffic][gpu_pool]") {
    const Time one = 2 * kAlpha + transmit_time(512_B, kB) + transmit_time(16_MiB, kB) + transmit_time(256_B, kB);
    for (int k : {1, 4, 8}) {
        auto cluster = hgx(2);
        cluster.clients.nodes = k;
        cluster.clients.nic.line_rate = kB;
        const auto r = run(cluster, pool(20, 16_MiB));
        // Client k uses GPU k (its own NIC): nothing is shared.
        CHECK(last_finish(r) == one * 20);
        const double calls_per_s = 20.0 * k / last_finish(r).seconds();
        CHECK(calls_per_s == Approx(k / one.seconds()));

        auto shared = pool(20, 16_MiB);
        shared.ranks = {RankId{0}};
        const auto s = run(cluster, shared);
        // All copies enter GPU 0's NIC: at most B, and with k clients' requests in flight the
        // time is bounded below by the copies' serialisation.
        const double bytes = 20.0 * k * static_cast<double>((512_B + 16_MiB).count());
        const double copy_rate = bytes / last_finish(s).seconds();
        CHECK(copy_rate <= kB.bytes_per_second() * 1.0000001);
        CHECK(last_finish(s) >= transmit_time(16_MiB, kB) * (20 * k));
        if (k == 8) CHECK(copy_rate > 0.95 * kB.bytes_per_second());
    }
}

TEST_CASE("gpu_pool with concurrency keeps several calls of a client in flight", "[traffic][gpu_pool]") {
    auto cluster = hgx(2);
    cluster.clients.nodes = 1;
    cluster.clients.nic.line_rate = kB;
    auto spec = pool(5, 1_MiB);
    spec.concurrency = 4;
    const auto r = run(cluster, spec);
    CHECK(r.plan.call_first.size() == 21);
    // Four chains to four GPUs share the client's NIC (egress for requests and copies).
    std::set<std::uint32_t> gpus;
    for (const auto& op : r.graph.ops())
        if (op.src.value() < 16) gpus.insert(op.src.value());
    CHECK(gpus.size() == 4);
    const Time serial =
        (2 * kAlpha + transmit_time(512_B, kB) + transmit_time(1_MiB, kB) + transmit_time(256_B, kB)) * 20;
    CHECK(last_finish(r) < serial);
}
