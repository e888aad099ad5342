#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "workloads/executor.hpp"
#include "workloads/workload_graph.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;
using workloads::Executor;
using workloads::OpGraph;

namespace {
scenario::ClusterSpec two_hosts() {
    scenario::ClusterSpec c;
    c.servers = 2;
    c.server.gpus = 0;
    c.server.nics = 1;
    c.server.nic.line_rate = 400_Gbps;
    return c;
}
scenario::IdealNetworkSpec latency(Time t) { return scenario::IdealNetworkSpec{t}; }
}  // namespace

TEST_CASE("ideal network: a transfer takes latency + size / rate, exactly", "[executor][ideal]") {
    Simulator sim(1);
    fabric::IdealNetwork net(two_hosts(), latency(2_us));
    OpGraph g;
    const auto e = g.add_entry("a");
    g.add_send(e, RankId{0}, RankId{1}, 1_GiB);
    Executor ex(std::move(g), net);
    ex.start(sim);
    sim.run();
    // 2^30 B * 8 / 400e9 bit/s = 21.47483648 ms, exactly.
    CHECK(ex.op_timings()[0].finish == 2_us + Time::ps(21'474'836'480));
    CHECK(ex.ops_done() == 1);
}

TEST_CASE("ideal network: GPUs inside a server talk at NVLink speed and share NICs across servers", "[ideal]") {
    scenario::ClusterSpec c;
    c.servers = 2;
    c.server.gpus = 8;
    c.server.nics = 4;
    c.server.nic.line_rate = 400_Gbps;
    c.server.nvlink.links_per_gpu = 18;
    c.server.nvlink.link_bandwidth = 25_GBps;
    fabric::IdealNetwork net(c, latency(0_ns));
    CHECK(net.intra_server_bandwidth() == 450_GBps);
    Message inside{MessageId{0}, RankId{0}, RankId{1}, 450_MB};
    CHECK(net.unloaded_time(inside) == 1_ms);
    Message across{MessageId{1}, RankId{0}, RankId{8}, 50_MB};  // 400 Gb/s = 50 GB/s
    CHECK(net.unloaded_time(across) == 1_ms);
}

TEST_CASE("ideal network: sends that share a port serialise on it and nothing else slows them", "[executor][ideal]") {
    scenario::ClusterSpec c = two_hosts();
    c.servers = 3;
    Simulator sim(1);
    fabric::IdealNetwork net(c, latency(1_us));
    OpGraph g;
    const auto e = g.add_entry("pair");
    g.add_send(e, RankId{0}, RankId{1}, 1_MB);
    g.add_send(e, RankId{0}, RankId{1}, 1_MB);  // same NICs: waits for the first
    g.add_send(e, RankId{2}, RankId{0}, 1_MB);  // other NICs (rank 0 receives): unaffected
    Executor ex(std::move(g), net);
    ex.start(sim);
    sim.run();
    const Time tx = transmit_time(1_MB, 400_Gbps);  // 20 us
    CHECK(ex.op_timings()[0].finish == 1_us + tx);
    CHECK(ex.op_timings()[1].finish == 1_us + 2 * tx);
    CHECK(ex.op_timings()[2].finish == 1_us + tx);
    const auto entries = ex.entry_timings();
    CHECK(entries[0].bytes == 3_MB);  // bytes conserved
    CHECK(net.nic_bytes_sent()[0] == 2_MB);
    CHECK(net.nic_bytes_received()[0] == 1_MB);
}

TEST_CASE("an entry with after: starts when the named entry's last op finishes", "[executor]") {
    Simulator sim(1);
    fabric::IdealNetwork net(two_hosts(), latency(1_us));
    OpGraph g;
    const auto a = g.add_entry("a");
    const auto b = g.add_entry("b");
    g.set_after(b, a);
    g.add_send(a, RankId{0}, RankId{1}, 4_KiB);
    g.add_send(a, RankId{1}, RankId{0}, 8_KiB, 5_us);  // starts late: a ends with this one
    g.add_send(b, RankId{0}, RankId{1}, 4_KiB);
    Executor ex(std::move(g), net);
    ex.start(sim);
    sim.run();
    const Time a_end = 5_us + 1_us + transmit_time(8_KiB, 400_Gbps);
    CHECK(ex.op_timings()[1].start == 5_us);
    CHECK(ex.op_timings()[1].finish == a_end);
    CHECK(ex.op_timings()[2].start == a_end);
    CHECK(ex.op_timings()[2].finish == a_end + 1_us + transmit_time(4_KiB, 400_Gbps));
}

TEST_CASE("an entry's start times count from when its after: entry finished", "[executor]") {
    Simulator sim(1);
    fabric::IdealNetwork net(two_hosts(), latency(1_us));
    OpGraph g;
    const auto a = g.add_entry("a");
    const auto b = g.add_entry("b");
    g.set_after(b, a);
    g.add_send(a, RankId{0}, RankId{1}, 4_KiB, 10_us);
    g.add_send(b, RankId{0}, RankId{1}, 4_KiB, 3_us);  // 3 us after a has finished, not at 3 us
    Executor ex(std::move(g), net);
    ex.start(sim);
    sim.run();
    const Time a_end = 10_us + 1_us + transmit_time(4_KiB, 400_Gbps);
    CHECK(ex.op_timings()[0].finish == a_end);
    CHECK(ex.op_timings()[1].start == a_end + 3_us);
}

TEST_CASE("op dependencies: a send after a compute starts when the compute ends", "[executor]") {
    Simulator sim(1);
    fabric::IdealNetwork net(two_hosts(), latency(1_us));
    OpGraph g;
    const auto e = g.add_entry("step");
    const OpId c = g.add_compute(e, RankId{0}, 10_us, 2_us);
    const OpId s = g.add_send(e, RankId{0}, RankId{1}, 1_KB);
    g.add_dependency(c, s);
    CHECK_THROWS_AS(g.add_dependency(s, c), InternalError);  // backwards: would allow cycles
    Executor ex(std::move(g), net);
    ex.start(sim);
    sim.run();
    CHECK(ex.op_timings()[0].start == 2_us);
    CHECK(ex.op_timings()[0].finish == 12_us);
    CHECK(ex.op_timings()[1].start == 12_us);
    CHECK(ex.op_timings()[1].finish == 13_us + 20_ns);  // 1000 B at 400 Gb/s = 20 ns
}

TEST_CASE("the ideal network refuses an in-network operation its servers and switches lack and says so", "[ideal]") {
    Simulator sim(1);
    fabric::IdealNetwork net(two_hosts(), latency(1_us));
    const RankId ranks[] = {RankId{0}, RankId{1}};
    CHECK_FALSE(net.offers(Offload::nvswitch_reduce, ranks));
    struct Sink final : DeliveryListener {
        void on_delivered(Simulator&, MessageId) override {}
    } sink;
    GroupOperation op{MessageId{0}, Offload::switch_aggregation, ranks, 1_MB, 1_MB, 1_MB, -1};
    try {
        net.start_group(sim, op, sink);
        FAIL("start_group should throw");
    } catch (const ModelError& e) {
        CHECK(std::string(e.what()) == "the ideal network model does not offer switch_aggregation over these 2 ranks");
    }
}
