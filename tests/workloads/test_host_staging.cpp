// GPUDirect off (docs/models/gpudirect.md): messages staged through host memory, on the ideal
// network, against closed forms derived here. A staged message of k chunks of c bytes through
// stages of rates B_1..B_m, with L between stages, takes
//   T = Σ c/B_i + Σ L + (k - 1)·c / min B_i          (host_staging.hpp)
#include <catch2/catch.hpp>

#include "workload_fixtures.hpp"

#include "core/simulator.hpp"
#include "fabric/host_staging.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "fabric/link_classes.hpp"
#include "workloads/collective.hpp"
#include "workloads/executor.hpp"

#include <memory>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::literals;
using namespace workload_test;

namespace {

constexpr Bandwidth kNic = 100_Gbps;  // 12.5 GB/s
constexpr Time kStaging = 2_us;
constexpr Bytes kChunk = 512_KiB;

// `servers` servers of one GPU and one 100G NIC under one PCIe switch; GPUDirect RDMA as given.
scenario::ClusterSpec pcie_servers(int servers, bool rdma, Bandwidth copy, int generation = 4, int lanes = 16) {
    scenario::ClusterSpec c;
    c.servers = servers;
    c.server.gpus = 1;
    c.server.nics = 1;
    c.server.nic.line_rate = kNic;
    c.server.pcie.generation = generation;
    c.server.pcie.lanes = lanes;
    c.server.pcie.switches = 1;
    c.server.gpudirect.rdma = rdma;
    c.server.host.memory_copy = copy;
    c.server.host.staging_latency = kStaging;
    c.server.host.staging_chunk = kChunk;
    return c;
}

struct Sink final : DeliveryListener {
    std::vector<Time> at;
    void on_delivered(Simulator& sim, MessageId id) override {
        if (at.size() <= id.value()) at.resize(id.value() + 1, Time::max());
        at[id.value()] = sim.now();
    }
};

// The ideal model (alpha kAlpha) wrapped for the host data paths `c` sets.
auto staged(const scenario::ClusterSpec& c) {
    return fabric::with_host_staging(std::make_unique<fabric::IdealNetwork>(c, scenario::IdealNetworkSpec{kAlpha}), c);
}

// One message of `size` from rank `from` to rank `to`, alone: when it is delivered.
Time one_message(const scenario::ClusterSpec& c, Bytes size, std::uint32_t to = 1, std::uint32_t from = 0) {
    Simulator sim(1);
    auto net = staged(c);
    Sink sink;
    Message m;
    m.id = MessageId{0};
    m.src = RankId{from};
    m.dst = RankId{to};
    m.size = size;
    net->send(sim, m, sink);
    sim.run();
    REQUIRE(sink.at.size() == 1);
    return sink.at[0];
}

Time all_reduce(const scenario::ClusterSpec& c, Bytes size) {
    Simulator sim(1);
    auto net = staged(c);
    workloads::OpGraph g;
    const auto e = g.add_entry("ar");
    const auto spec = spec_of(scenario::CollectiveOp::all_reduce, scenario::CollectiveAlgorithm::ring, size);
    const auto plan = workloads::add_collective(g, e, spec, workloads::RankLayout(c), net.get());
    workloads::Executor ex(std::move(g), *net);
    ex.start(sim);
    sim.run();
    REQUIRE(ex.ops_done() == ex.ops_total());
    return workloads::measure(plan, ex.op_timings()).at(0).time;
}

// PCIe Gen3..5 line rate in bytes/s: GT/s x lanes x 128/130 / 8.
double pcie_line_Bps(double gts, int lanes) { return gts * 1e9 * lanes * 128.0 / 130.0 / 8.0; }

// The PCIe bytes a chunk of c puts on an uplink (docs/models/gpudirect.md, "PCIe transactions"):
// a write is c plus 24 bytes per 256-byte TLP; a read's requests are 24 bytes per 512 bytes.
constexpr double kChunkBytes = 512.0 * 1024;
constexpr double kWrite = kChunkBytes + kChunkBytes / 256 * 24;  // 573,440
constexpr double kRequests = kChunkBytes / 512 * 24;             // 24,576

}  // namespace

TEST_CASE("GDR off: a stream runs at the memory copy rate when that is the slowest, and waits at each staging side",
          "[host-staging]") {
    // Copy 10 GB/s < NIC 12.5 GB/s < PCIe Gen4 x16 (31.5 GB/s on the wire, of which a stream's
    // writes and read requests take 1.14 bytes per byte: 27.6 GB/s). Both servers stage (the servers
    // are alike). Stages: S1 GPU -> host (min(PCIe, copy) = 10), the send with the NIC's read
    // and the remote NIC's write alongside (min(copy, PCIe) = 10 against the NIC's 12.5 + α
    // per chunk: c/10 GB/s = 52.4 µs > c/12.5 GB/s + α = 43.9 µs), R2 host -> GPU (10), two
    // waits L: T = 3c/B + 2L + (k - 1)c/B = (k + 2)c/B + 2L with B = 10 GB/s.
    const Bytes size = 64_MiB;
    const std::int64_t k = size.count() / kChunk.count();  // 128
    const Bandwidth b = Bandwidth::GBps(10);
    const Time t = one_message(pcie_servers(2, false, b), size);
    CHECK(t == transmit_time(kChunk, b) * (k + 2) + kStaging * 2);
    // With GPUDirect RDMA the same message takes α + S / NIC.
    CHECK(one_message(pcie_servers(2, true, b), size) == kAlpha + transmit_time(size, kNic));
    // Its rate over the pipeline: min(NIC, PCIe, copy) = the copy rate.
    const double rate = static_cast<double>(size.count()) / (t - kStaging * 2 - transmit_time(kChunk, b) * 2).seconds();
    CHECK(rate / 1e9 == Approx(10.0).epsilon(1e-6));
}

TEST_CASE("GDR off: the PCIe switch uplink bounds the stream, its upward direction carrying writes and read requests",
          "[host-staging]") {
    // PCIe Gen3 x4: 8 GT/s x 4 x 128/130 / 8 = 3.94 GB/s on the wire, below the NIC's 12.5 GB/s
    // and the copy's 100 GB/s. On the sending server the uplink's upward direction carries the
    // GPU's writes into host memory (S1) and the NIC's read requests for them (S2), whose
    // completions come down; on the receiving server the NIC's writes (R1) and the GPU's read
    // requests (R2). Both upward directions are the busiest resources: W + Q = 598,016 bytes per
    // 512 KiB chunk, so each chunk more adds (W + Q) / B_wire once the pipeline is full:
    //   T(2S) - T(S) = k (W + Q) / B_wire, with k = S / c more chunks.
    const Bytes size = 32_MiB;
    const double k = static_cast<double>(size.count()) / kChunkBytes;
    const auto c = pcie_servers(2, false, Bandwidth::GBps(100), 3, 4);
    const Time t1 = one_message(c, size);
    const Time t2 = one_message(c, size * 2);
    CHECK((t2 - t1).seconds() == Approx(k * (kWrite + kRequests) / pcie_line_Bps(8, 4)).epsilon(1e-6));
    // That is 1.14 wire bytes per byte: the stream runs at 3.45 GB/s; counting the writes alone
    // (256/280 of the wire) would give 3.60 GB/s.
    CHECK(kChunkBytes * k / (t2 - t1).seconds() / 1e9 == Approx(3.453).epsilon(1e-3));
    // The ideal model alone does not see PCIe: with GDR the NIC is the bound.
    CHECK(one_message(pcie_servers(2, true, Bandwidth::GBps(100), 3, 4), size) == kAlpha + transmit_time(size, kNic));
}

TEST_CASE("GDR off: a ring all-reduce through a slow uplink puts both staging sides' writes and requests on it",
          "[host-staging]") {
    // Two servers, Gen3 x4 uplinks (3.94 GB/s on the wire), copy 100 GB/s, NIC 12.5 GB/s. In each
    // of the ring's two steps both ranks send S/2 at once, so each server's uplink carries, per
    // chunk, upwards: the GPU's write (S1), the NIC's write (R1) and two read requests (S2, R2);
    // downwards: two sets of completions (S2, R2), 2 x 565,248 bytes, less. Each chunk more per
    // step adds 2 (W + Q) / B_wire once full: T(2S) - T(S) = 2 steps x (S/2c) x 2 (W + Q) / B_wire.
    const auto c = pcie_servers(2, false, Bandwidth::GBps(100), 3, 4);
    const Bytes size = 32_MiB;
    const Time t1 = all_reduce(c, size);
    const Time t2 = all_reduce(c, size * 2);
    const double per_step = static_cast<double>(size.count()) / 2 / kChunkBytes;
    CHECK((t2 - t1).seconds() == Approx(2 * per_step * 2 * (kWrite + kRequests) / pcie_line_Bps(8, 4)).epsilon(1e-3));
}

TEST_CASE("GDR off: a ring all-reduce across 2 servers takes twice as long when host memory is as fast as the NIC",
          "[host-staging]") {
    // Two ranks, one per server, ring all-reduce of S: two rounds, in each both ranks send S/2
    // to each other at once. With GDR: 2α + S/B (the α–β form, B = NIC).
    // Without: each server's memory takes in what its GPU sends (S1) and what its NIC receives
    // (R1), and gives out what its NIC sends (S2) and its GPU receives (R2): two streams share
    // it, each at B_copy/2. With B_copy = B each round moves S/2 in S/B: 2S/B in all, twice
    // the GDR time; the chunk fills (3c/B + 2L per round) add under 2 % at S = 128 MiB.
    const Bytes size = 128_MiB;
    const Time on = all_reduce(pcie_servers(2, true, kNic), size);
    CHECK(on.seconds() == Approx(2 * kAlpha.seconds() + transmit_time(size, kNic).seconds()).epsilon(0.01));
    const Time off = all_reduce(pcie_servers(2, false, kNic), size);
    CHECK(off.seconds() / (2 * transmit_time(size, kNic).seconds()) == Approx(1.0).epsilon(0.03));
}

TEST_CASE("P2P off: two GPUs of a server exchange through host memory (NCCL SHM)", "[host-staging]") {
    // Two GPUs on one PCIe switch, P2P off: S1 = GPU link up, uplink up, memory in; R2 = memory
    // out, uplink down, GPU link down; one wait L. With copy 10 GB/s the slowest of each stage:
    // T = 2c/B + L + (k - 1)c/B = (k + 1)c/B + L.
    scenario::ClusterSpec c = pcie_servers(1, true, Bandwidth::GBps(10));
    c.server.gpus = 2;
    c.server.gpudirect.p2p = false;
    const Bytes size = 16_MiB;
    const std::int64_t k = size.count() / kChunk.count();
    const Bandwidth b = Bandwidth::GBps(10);
    CHECK(one_message(c, size) == transmit_time(kChunk, b) * (k + 1) + kStaging);
}

TEST_CASE(
    "two sockets: staging and SHM cross the socket link when GPU and NIC, or two GPUs, sit under different sockets",
    "[host-staging][sockets]") {
    // Each server: 2 GPUs on 2 PCIe Gen4 x16 switches, one per socket, and 1 NIC under switch 0
    // (socket 0); socket link 5 GB/s, slower than the copy (100 GB/s), the NIC (12.5 GB/s) and the
    // uplinks (31.5 GB/s on the wire). GPU 1 (socket 1) uses NIC 0 (socket 0).
    const auto two_sockets = [](int servers) {
        scenario::ClusterSpec c = pcie_servers(servers, false, Bandwidth::GBps(100));
        c.server.gpus = 2;
        c.server.pcie.switches = 2;
        c.server.host.sockets = 2;
        c.server.host.socket_link = Bandwidth::GBps(5);
        return c;
    };
    const Bandwidth wire = fabric::pcie_line_rate(4, 16);
    const Bandwidth link = Bandwidth::GBps(5);
    const Bytes size = 16_MiB;
    const std::int64_t k = size.count() / kChunk.count();
    const Bytes write{static_cast<std::int64_t>(kWrite)};
    const Bytes completions{kChunk.count() + kChunk.count() / 256 * 20};
    // GDR off, s0.gpu1 -> s1.gpu1: S1 writes host memory of socket 1 through switch 1's uplink
    // (W / wire); then, alongside the send, NIC 0 reads it across the socket link (cpu1 -> cpu0)
    // and the far NIC writes it across the far socket link (cpu0 -> cpu1): c / 5 GB/s per chunk,
    // the slowest stage; then R2 reads it through switch 1 (completions / wire). The stages use
    // different resources, so the pipeline closed form holds:
    //   T = W/wire + L + k c/link + L + completions/wire.
    CHECK(one_message(two_sockets(2), size, 3) == transmit_time(write, wire) + kStaging * 2 +
                                                      transmit_time(kChunk, link) * k +
                                                      transmit_time(completions, wire));
    // P2P off, GPU 0 -> GPU 1 of one server (NCCL SHM): S1 into socket 0's memory (the GPU's link
    // and switch 0's uplink, W / wire each), L, then R2 across the socket link to GPU 1, c / 5 GB/s
    // per chunk, the slowest: T = W/wire + L + k c/link.
    scenario::ClusterSpec shm = two_sockets(1);
    shm.server.gpudirect.rdma = true;
    shm.server.gpudirect.p2p = false;
    CHECK(one_message(shm, size, 1) == transmit_time(write, wire) + kStaging + transmit_time(kChunk, link) * k);
}

TEST_CASE("storage off: a storage read is staged on the GPU side only", "[host-staging]") {
    // A storage node (endpoint 2, after the 2 ranks) sends to rank 0 with GPUDirect Storage off
    // and RDMA on: only R1 (alongside) and R2 stage, one wait: T = (S + c)/B + L when the copy
    // (10 GB/s) is the slowest and the leg alongside it is paced by R1 at the same rate.
    scenario::ClusterSpec c = pcie_servers(2, true, Bandwidth::GBps(10));
    c.server.gpudirect.storage = false;
    c.storage.nodes = 1;
    c.storage.nic.line_rate = kNic;
    const Time t = one_message(c, 8_MiB, 0, 2);  // storage node (rank 2) to GPU 0
    // All 16 chunks are handed to the NIC at once; R1 (memory in, 10 GB/s) paces them, the
    // NIC's 12.5 GB/s keeps ahead, so chunk j leaves R1 at (j + 1)c/B; R2 follows at the same
    // rate after L: T = k·c/B + L + c/B.
    const Bandwidth b = Bandwidth::GBps(10);
    CHECK(t == transmit_time(kChunk, b) * 17 + kStaging);
}

TEST_CASE("nothing stages with every GPUDirect path on: the model is returned unwrapped", "[host-staging]") {
    const scenario::ClusterSpec c = pcie_servers(2, true, Bandwidth::GBps(10));
    CHECK_FALSE(fabric::stages_through_host(c));
    auto inner = std::make_unique<fabric::IdealNetwork>(c, scenario::IdealNetworkSpec{kAlpha});
    const Network* raw = inner.get();
    CHECK(fabric::with_host_staging(std::move(inner), c).get() == raw);
}

TEST_CASE("a staging server refuses a ring channel as one operation (its messages must stage)", "[host-staging]") {
    // A wrapped model that offers every group operation: the wrapper passes NVLS and SHARP on
    // as asked, but a ring channel carried as one operation would skip the host stages.
    struct OffersAll final : Network {
        std::string_view model_name() const override { return "all"; }
        void send(Simulator&, const Message&, DeliveryListener&) override {}
        Time unloaded_time(const Message&) const override { return Time::zero(); }
        bool offers(Offload, std::span<const RankId>) const override { return true; }
    };
    const std::vector<RankId> ranks{RankId{0}, RankId{1}};
    auto staging =
        fabric::with_host_staging(std::make_unique<OffersAll>(), pcie_servers(2, false, Bandwidth::GBps(10)));
    CHECK_FALSE(staging->offers(Offload::ring_channel, ranks));
    CHECK(staging->offers(Offload::switch_aggregation, ranks));
}

TEST_CASE("the pipeline closed form: k chunks through m stages", "[host-staging]") {
    // 4 chunks of 1 MB through 1 GB/s and 2 GB/s with 1 µs between: 1 ms + 0.5 ms + 1 µs for the
    // first chunk, then 3 more at the slowest stage's 1 ms each.
    const std::vector<Bandwidth> rates{Bandwidth::GBps(1), Bandwidth::GBps(2)};
    CHECK(fabric::pipeline_time(4_MB, 1_MB, rates, 1_us) == 1_ms + 500_us + 1_us + 3_ms);
}

namespace {

// Two HGX-like servers (8 GPUs, 18 NVLink4 links each: 450 GB/s, 8 NICs at B = 400 Gb/s).
struct PxnRun {
    Time delivered;
    std::vector<Bytes> nic_sent;
};
PxnRun pxn_message(bool pxn, std::int16_t rail, Bytes size) {
    scenario::ClusterSpec c = hgx(2);
    c.server.gpudirect.pxn = pxn;
    c.server.host.staging_chunk = kChunk;
    Simulator sim(1);
    auto ideal = std::make_unique<fabric::IdealNetwork>(c, scenario::IdealNetworkSpec{kAlpha});
    const fabric::IdealNetwork* raw = ideal.get();
    auto net = fabric::with_host_staging(std::move(ideal), c);
    Sink sink;
    Message m;
    m.id = MessageId{0};
    m.src = RankId{0};  // s0.gpu0, rail 0
    m.dst = RankId{9};  // s1.gpu1, rail 1
    m.size = size;
    m.rail = rail;
    net->send(sim, m, sink);
    sim.run();
    REQUIRE(sink.at.size() == 1);
    return {sink.at[0], raw->nic_bytes_sent()};
}

}  // namespace

TEST_CASE("PXN: a message to another rail crosses NVLink to that rail's GPU and leaves by its NIC",
          "[host-staging][pxn]") {
    // Chunk j reaches s0.gpu1 over NVLink at (j + 1)c/450 GB/s + α, far ahead of the NIC, which
    // then sends back to back from c/450 GB/s + α: T = c/450 GB/s + 2α + S/B.
    const Bytes size = 64_MiB;
    const PxnRun on = pxn_message(true, -1, size);
    CHECK(on.delivered == transmit_time(kChunk, Bandwidth::GBps(450)) + kAlpha * 2 + transmit_time(size, kB));
    CHECK(on.nic_sent[1] == size);  // server 0's NIC 1: the destination's rail
    CHECK(on.nic_sent[0] == Bytes::zero());
    // Off: the rank's own NIC, α + S/B.
    const PxnRun off = pxn_message(false, -1, size);
    CHECK(off.delivered == kAlpha + transmit_time(size, kB));
    CHECK(off.nic_sent[0] == size);
    // A rail-aligned ring's message already leaves by the ring's NIC: not relayed.
    CHECK(pxn_message(true, 0, size).delivered == kAlpha + transmit_time(size, kB));
}
