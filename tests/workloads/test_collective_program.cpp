// A collective entry as a program (collective_program.hpp) against the same entry as a whole
// graph (add_collective): the program must release every op at the same moment and in the
// same order, so every event, every time and every byte is the same — and it must hold no
// more than what is in flight.
#include <catch2/catch.hpp>

#include "workload_fixtures.hpp"

#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "workloads/collective.hpp"
#include "workloads/collective_program.hpp"
#include "workloads/executor.hpp"

#include <memory>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace workload_test;
using scenario::CollectiveAlgorithm;
using scenario::CollectiveOp;
using workloads::Executor;
using workloads::OpGraph;

namespace {

struct Outcome {
    std::vector<workloads::CollectiveMeasurement> measured;
    std::vector<Bytes> nic_sent;
    std::uint64_t events = 0;
    std::size_t ops = 0;
    Time last = Time::zero();
    std::size_t peak_live = 0;
    std::uint64_t peak_counters = 0;  // a periodic run's (CollectiveProgram::peak_counters)
};

Outcome whole_graph(const scenario::ClusterSpec& cluster, const scenario::CollectiveSpec& spec,
                    Bytes message = workloads::kMessageBytes) {
    Simulator sim(1);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{kAlpha});
    OpGraph g;
    const auto e = g.add_entry("c");
    const auto plan = workloads::add_collective(g, e, spec, workloads::RankLayout(cluster), &net, message);
    Executor ex(std::move(g), net);
    ex.start(sim);
    sim.run();
    REQUIRE(ex.ops_done() == ex.ops_total());
    return {workloads::measure(plan, ex.op_timings()),
            net.nic_bytes_sent(),
            sim.cost().events,
            ex.ops_done(),
            ex.last_finish(),
            0};
}

Outcome streamed(const scenario::ClusterSpec& cluster, const scenario::CollectiveSpec& spec,
                 Bytes message = workloads::kMessageBytes) {
    Simulator sim(1);
    fabric::IdealNetwork net(cluster, scenario::IdealNetworkSpec{kAlpha});
    OpGraph g;
    const auto e = g.add_entry("c");
    auto program = std::make_unique<workloads::CollectiveProgram>(spec, workloads::RankLayout(cluster), &net, message);
    const workloads::CollectiveProgram& p = *program;
    Executor ex(std::move(g), net);
    ex.set_program(e, std::move(program));
    ex.start(sim);
    sim.run();
    REQUIRE(ex.ops_done() == ex.ops_total());
    REQUIRE(p.done());
    return {workloads::measure(p.plan(), p.spans()),
            net.nic_bytes_sent(),
            sim.cost().events,
            ex.ops_done(),
            ex.last_finish(),
            ex.peak_live(),
            p.peak_counters()};
}

void same(const Outcome& a, const Outcome& b) {
    REQUIRE(a.measured.size() == b.measured.size());
    for (std::size_t i = 0; i < a.measured.size(); ++i) {
        CHECK(a.measured[i].time == b.measured[i].time);
        CHECK(a.measured[i].algorithm == b.measured[i].algorithm);
        CHECK(a.measured[i].channels == b.measured[i].channels);
    }
    CHECK(a.nic_sent == b.nic_sent);
    CHECK(a.events == b.events);
    CHECK(a.ops == b.ops);
    CHECK(a.last == b.last);
}

}  // namespace

TEST_CASE("a streamed ring collective runs event for event as its whole graph", "[collective][stream]") {
    // steps = 2(n-1) or n-1 rounds per loop: n = 2, 3 and 5 put the window of kWindow = 8
    // sends beyond, at and inside a loop (n = 5 all-reduce: steps = 8, where the window and
    // the next loop are the same dependency, held twice); several loops per channel; uneven
    // channel shares; two sizes of two iterations each.
    for (int n : {2, 3, 5, 8})
        for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather})
            for (int channels : {1, 3}) {
                auto spec = spec_of(op, CollectiveAlgorithm::ring, 8_MiB, channels);
                spec.sizes = {Bytes{5 * 1024 * 1024 + 7}, 1_KiB};
                spec.iterations = 2;
                INFO("n " << n << " op " << workloads::to_string(op) << " channels " << channels);
                same(whole_graph(hosts(n), spec), streamed(hosts(n), spec));
            }
}

TEST_CASE("a streamed collective replays the other algorithms' runs as their graphs", "[collective][stream]") {
    struct Case {
        CollectiveOp op;
        CollectiveAlgorithm algorithm;
    };
    for (const Case c : {Case{CollectiveOp::all_reduce, CollectiveAlgorithm::tree},
                         Case{CollectiveOp::all_reduce, CollectiveAlgorithm::halving_doubling},
                         Case{CollectiveOp::all_to_all, CollectiveAlgorithm::pairwise},
                         Case{CollectiveOp::broadcast, CollectiveAlgorithm::ring},
                         Case{CollectiveOp::send_recv, CollectiveAlgorithm::ring}}) {
        auto spec = spec_of(c.op, c.algorithm, 3_MiB, 2);
        spec.iterations = 2;
        INFO(workloads::to_string(c.op) << " " << workloads::to_string(c.algorithm));
        same(whole_graph(hosts(4), spec), streamed(hosts(4), spec));
    }
    // NVLS and hierarchical on two HGX servers: group operations among sends.
    auto spec = spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::hierarchical, 16_MiB, 0);
    same(whole_graph(hgx(2), spec), streamed(hgx(2), spec));
    spec = spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::nvls, 16_MiB, 0);
    same(whole_graph(hgx(1), spec), streamed(hgx(1), spec));
}

// `algorithm: auto` runs each candidate as a program with the message size its caller gives
// (collective_tuner.cpp; a training job's is not kMessageBytes): the program must cut the bytes
// as the whole graph does at that size. 3 MiB + 5 B on 4 ranks in 64 KiB messages: loops of
// 4 x 64 KiB, so 12 full ones and a 13th of 5 bytes.
TEST_CASE("a streamed collective with another message size runs event for event as its whole graph",
          "[collective][stream]") {
    for (CollectiveAlgorithm a : {CollectiveAlgorithm::ring, CollectiveAlgorithm::tree})
        for (Bytes message : {64_KiB, 2_MiB}) {
            auto spec = spec_of(CollectiveOp::all_reduce, a, Bytes{3 * 1024 * 1024 + 5}, 1);
            INFO(workloads::to_string(a) << " message " << message.count());
            const Outcome whole = whole_graph(hosts(4), spec, message);
            same(whole, streamed(hosts(4), spec, message));
            if (a == CollectiveAlgorithm::ring && message == 64_KiB)  // 13 loops of 2(4-1) rounds of 4 sends
                CHECK(whole.ops == 13 * 6 * 4 + 1);                   // and the run's join
        }
}

TEST_CASE("a streamed ring all-reduce holds no more ops than are in flight, whatever its size",
          "[collective][stream]") {
    // SendChain lets at most kWindow sends be in flight per connection, and a ring channel has
    // n connections: c·n·kWindow sends at once, plus the run's join. The ops the executor holds
    // must not grow with the bytes moved: 4 MiB and 256 MiB peak at the same bound.
    const int n = 4, channels = 2;
    const std::size_t bound = static_cast<std::size_t>(channels) * n * workloads::kWindow + 1;
    const auto small =
        streamed(hosts(n), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 4_MiB, channels));
    const auto large =
        streamed(hosts(n), spec_of(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 256_MiB, channels));
    CHECK(small.peak_live <= bound);
    CHECK(large.peak_live <= bound);
    // 256 MiB: 2 channels of 128 MiB, each 64 loops of n·512 KiB = 2 MiB, of 2(n-1) = 6
    // rounds of n = 4 sends, plus the join.
    CHECK(large.ops == std::size_t{2 * 64 * 6 * 4 + 1});
}

namespace {

struct Cut {
    const char* name;
    scenario::ClusterSpec cluster;
    CollectiveOp op;
    CollectiveAlgorithm algorithm;
    int channels;
};

// The algorithms that cut a run's bytes into units, each at a size of more units per segment
// than PeriodicRun::kTemplateUnits = 17 (so that it is replayed from its head), by their unit:
// a tree's and a broadcast's messages of 512 KiB per channel (and per tree), a hierarchical
// all-reduce's pieces of g·512 KiB = 4 MiB, NVLS with SHARP's of 16 channels × g × 64 KiB =
// 8 MiB (NCCL's chunk for a buffer of 64 MiB to 1 GiB).
std::vector<Cut> cut_cases() {
    scenario::ClusterSpec nvlink3 = hgx(2);
    nvlink3.server.nvlink.generation = "nvlink3";  // no NVLS inside: rings
    return {
        {"tree, 2 channels × 2 trees × 21 messages", hosts(4), CollectiveOp::all_reduce, CollectiveAlgorithm::tree, 2},
        {"broadcast, 2 channels × 21 messages", hosts(4), CollectiveOp::broadcast, CollectiveAlgorithm::ring, 2},
        {"send-recv, 2 channels × 21 messages", hosts(4), CollectiveOp::send_recv, CollectiveAlgorithm::ring, 2},
        {"hierarchical with NVLS inside, 21 pieces", hgx(2), CollectiveOp::all_reduce,
         CollectiveAlgorithm::hierarchical, 0},
        {"hierarchical with rings inside, 21 pieces", nvlink3, CollectiveOp::all_reduce,
         CollectiveAlgorithm::hierarchical, 0},
        {"NVLS with SHARP, 21 pieces", hgx(4, true), CollectiveOp::all_reduce, CollectiveAlgorithm::sharp, 0},
    };
}

// Bytes for `units` units per segment of the case (3 bytes short: units of two sizes).
Bytes cut_size(const Cut& c, std::int64_t units) {
    const std::int64_t message = 512 * 1024;
    switch (c.algorithm) {
        case CollectiveAlgorithm::tree: return Bytes{2 * c.channels * units * message - 3};
        case CollectiveAlgorithm::hierarchical: return Bytes{8 * units * message - 3};
        case CollectiveAlgorithm::sharp: return Bytes{units * 16 * 8 * 64 * 1024 - 3};
        default: return Bytes{c.channels * units * message - 3};
    }
}

const Bytes kTiB{std::int64_t{1} << 40};

std::size_t held_ops(const Cut& c, Bytes size) {
    fabric::IdealNetwork net(c.cluster, scenario::IdealNetworkSpec{kAlpha});
    return workloads::CollectiveProgram(spec_of(c.op, c.algorithm, size, c.channels), workloads::RankLayout(c.cluster),
                                        &net)
        .held_ops();
}

}  // namespace

TEST_CASE("a collective cut into more units than its head replays event for event as its whole graph",
          "[collective][stream]") {
    // 21 units per segment: 17 in the head, 4 made from it, the last ones one byte smaller;
    // two iterations, so the second run starts its head afresh.
    for (const Cut& c : cut_cases()) {
        auto spec = spec_of(c.op, c.algorithm, cut_size(c, 21), c.channels);
        spec.iterations = 2;
        INFO(c.name);
        same(whole_graph(c.cluster, spec), streamed(c.cluster, spec));
        // It was replayed from its head, not built whole.
        fabric::IdealNetwork net(c.cluster, scenario::IdealNetworkSpec{kAlpha});
        const workloads::CollectiveProgram p(spec, workloads::RankLayout(c.cluster), &net);
        CHECK(p.held_ops() < p.ops_total() / 2);
    }
}

TEST_CASE("every collective algorithm holds as many ops for 1 TiB as for a few MiB", "[collective][stream]") {
    // What a collective program keeps to replay a run (its graph, or its head and tail) and the
    // most ops the executor ever held in flight must not depend on the bytes moved: a run of
    // 48 and one of 192 units per segment peak at the same number of live ops (once the
    // pipeline is full: a tree on 4 hosts fills it within 48 messages, not 24), and the program
    // made for 1 TiB keeps exactly the ops of the one made for 24 units (built, not run).
    for (const Cut& c : cut_cases()) {
        INFO(c.name);
        const auto small = streamed(c.cluster, spec_of(c.op, c.algorithm, cut_size(c, 48), c.channels));
        const auto large = streamed(c.cluster, spec_of(c.op, c.algorithm, cut_size(c, 192), c.channels));
        CHECK(small.peak_live == large.peak_live);
        CHECK(small.peak_counters == large.peak_counters);
        CHECK(held_ops(c, cut_size(c, 24)) == held_ops(c, kTiB));
    }
    // Algorithms whose graph does not grow with the bytes at all: a rank's sends are one per
    // peer and round, whatever their size.
    struct Fixed {
        scenario::ClusterSpec cluster;
        CollectiveOp op;
        CollectiveAlgorithm algorithm;
    };
    for (const Fixed& f : {Fixed{hosts(8), CollectiveOp::all_reduce, CollectiveAlgorithm::halving_doubling},
                           Fixed{hosts(8), CollectiveOp::all_to_all, CollectiveAlgorithm::pairwise},
                           Fixed{hgx(1), CollectiveOp::all_reduce, CollectiveAlgorithm::nvls}}) {
        INFO(workloads::to_string(f.algorithm));
        const Cut c{"", f.cluster, f.op, f.algorithm, 1};
        const auto small = streamed(f.cluster, spec_of(f.op, f.algorithm, 16_MiB, 1));
        const auto large = streamed(f.cluster, spec_of(f.op, f.algorithm, 64_MiB, 1));
        CHECK(small.peak_live == large.peak_live);
        CHECK(held_ops(c, 16_MiB) == held_ops(c, kTiB));
    }
}

TEST_CASE("a tree and a broadcast hold as many op counters for 16 times the bytes", "[collective][stream]") {
    // A periodic run keeps a counter per op from a segment's oldest op not yet released to its
    // newest one touched. Every hop of a tree or a broadcast waits for its receiver to have
    // forwarded the message kWindow before (SendChain::forward: a slot is free once its message
    // is consumed), so a leaf's send of message m needs the root's of about m − kWindow·depth and
    // the root's the whole broadcast of m − kWindow·depth: the span is a fixed number of units,
    // and once the pipeline is full (192 messages per tree) the most counters held is the same at
    // 16 times the messages. On 2 HGX servers a chain's NVLink hops outrun the NIC hop; when a
    // slot was free on arrival the reduction ran ahead of the broadcast and the counters grew
    // with the run (19,724 at 192 messages, 74,026 at 768).
    const auto cluster = hgx(2);
    const auto cut = [&](CollectiveOp op, std::int64_t units) {
        const std::int64_t per_channel = (op == CollectiveOp::all_reduce ? 2 : 1) * units * 512 * 1024;
        const auto algorithm = op == CollectiveOp::all_reduce ? CollectiveAlgorithm::tree : CollectiveAlgorithm::ring;
        return streamed(cluster, spec_of(op, algorithm, Bytes{2 * per_channel - 3}, 2));
    };
    for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::broadcast}) {
        INFO(workloads::to_string(op));
        const auto small = cut(op, 192);
        const auto large = cut(op, 16 * 192);
        CHECK(small.peak_counters > 0);
        CHECK(small.peak_counters == large.peak_counters);
    }
}
