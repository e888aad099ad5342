// The memory estimate `fabricsim run` checks before building anything (cli/memory_estimate.hpp):
// its op counts against the op graphs the workload builder really makes, its reading of
// /proc/meminfo, and the refusal it turns into (a ConfigError, exit 2).
#include <catch2/catch.hpp>

#include "cli/commands.hpp"
#include "cli/memory_estimate.hpp"
#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/ideal/ideal_network.hpp"
#include "scenario/loader.hpp"
#include "workloads/executor.hpp"
#include "workloads/workload_graph.hpp"

#include <filesystem>
#include <string>

using namespace fabricsim;

namespace {

scenario::ScenarioSpec spec_of(const std::string& text) {
    scenario::LoadOptions o;
    o.config_dirs = {std::filesystem::path(FABRICSIM_SOURCE_DIR) / "configs"};
    const auto loaded = scenario::load_scenario_text(text, "m.yaml", o);
    REQUIRE(loaded.variants.size() == 1);
    return loaded.variants.front().spec;
}

// Ops the workload builder makes for `spec`.
double built_ops(const scenario::ScenarioSpec& spec) {
    fabric::IdealNetwork network(spec.cluster, spec.simulation.ideal);
    return static_cast<double>(workloads::ops_total(workloads::build_workload(spec, network)));
}

std::string collective(const std::string& servers, const std::string& lines) {
    return "name: m\ncluster: { servers: " + servers + ", server: hgx-h100 }\nworkload:\n  - collective: " + lines;
}

}  // namespace

TEST_CASE("the estimated op count of a ring all-reduce is the builder's, by the closed form", "[memory]") {
    // 2 servers x 8 GPUs: 16 ranks over 2 servers take 2 x 8 NICs = 16 channels. A 1GiB
    // all-reduce: each channel's 64MiB goes in loops of 16 x 512KiB = 8MiB, 8 loops; each loop
    // is 2(n-1) = 30 rounds of 16 sends. 16 x 8 x 30 x 16 = 61440 sends, and one zero-time
    // barrier closes the run: 61441 ops.
    const auto spec = spec_of(collective("2", "all_reduce\n    algorithm: ring\n    size: 1GiB\n"));
    CHECK(cli::collective_ops(std::get<scenario::CollectiveSpec>(spec.workload[0].kind), spec.cluster) == 61441);
    CHECK(built_ops(spec) == 61441);
}

TEST_CASE("the estimated op counts of tree, pairwise and halving-doubling collectives are the builder's", "[memory]") {
    // Tree all-reduce of 64MiB on 16 ranks in 16 channels: each channel's 4MiB in 8 messages of
    // 512KiB, each up and down the tree's 15 edges: 16 x 8 x 30 = 3840 sends + 1 barrier.
    const auto tree = spec_of(collective("2", "all_reduce\n    algorithm: tree\n    size: 64MiB\n"));
    CHECK(cli::collective_ops(std::get<scenario::CollectiveSpec>(tree.workload[0].kind), tree.cluster) == 3841);
    CHECK(built_ops(tree) == 3841);
    // Pairwise all-to-all on 16 ranks in 16 channels: 16 x 16 x 15 = 3840 sends + 1 barrier.
    const auto a2a = spec_of(collective("2", "all_to_all\n    algorithm: pairwise\n    size: 64MiB\n"));
    CHECK(cli::collective_ops(std::get<scenario::CollectiveSpec>(a2a.workload[0].kind), a2a.cluster) == 3841);
    CHECK(built_ops(a2a) == 3841);
    // Halving-doubling all-reduce on 16 ranks in 16 channels: 2 log2(16) = 8 rounds of 16
    // sends per channel: 16 x 16 x 8 = 2048 sends + 1 barrier.
    const auto hd = spec_of(collective("2", "all_reduce\n    algorithm: halving_doubling\n    size: 64MiB\n"));
    CHECK(cli::collective_ops(std::get<scenario::CollectiveSpec>(hd.workload[0].kind), hd.cluster) == 2049);
    CHECK(built_ops(hd) == 2049);
}

TEST_CASE("iterations and sweep sizes multiply the estimated ops", "[memory]") {
    // Ring all-reduce on one server (8 ranks, min(16, 8) = 8 channels), 1MiB: one loop of
    // 2 x 7 rounds of 8 sends per channel = 896 sends + 1 barrier; 3 iterations of 2 sizes
    // (1MiB and 2MiB, the latter still one loop of 8 x 512KiB per channel).
    const auto spec = spec_of(collective("1", "all_reduce\n    algorithm: ring\n    sizes: [1MiB, 2MiB]\n"
                                              "    iterations: 3\n"));
    CHECK(cli::collective_ops(std::get<scenario::CollectiveSpec>(spec.workload[0].kind), spec.cluster) == 6 * 897);
    CHECK(built_ops(spec) == 6 * 897);
}

TEST_CASE("MemAvailable is read from /proc/meminfo's text in KiB", "[memory]") {
    const std::string meminfo = "MemTotal:       32768000 kB\nMemFree:         1000 kB\nMemAvailable:   16384 kB\n";
    REQUIRE(cli::mem_available(meminfo).has_value());
    CHECK(*cli::mem_available(meminfo) == Bytes{16384 * 1024});
    CHECK_FALSE(cli::mem_available("MemTotal: 1 kB\n").has_value());
    CHECK_FALSE(cli::mem_available("MemAvailable: lots\n").has_value());
}

TEST_CASE("a streaming ring holds the same ops whatever its iterations, and a run estimated above the limit is refused",
          "[memory]") {
    // 10000 iterations of the 61441-op all-reduce above: 6.1e8 ops run, but a ring run streams
    // and holds only its flight: kWindow = 8 sends on each of c·n = 16 x 16 connections, a
    // counter byte (1/64 op) per send of two loops of 2(n-1) = 30 rounds, and the join:
    // 256 x (8 + 60/64) + 1 = 2289 ops, as for one iteration.
    const auto ring =
        spec_of(collective("2", "all_reduce\n    algorithm: ring\n    size: 1GiB\n    iterations: 10000\n"));
    const auto streamed = cli::estimate_memory(ring);
    CHECK(streamed.ops == 614410000);
    CHECK(streamed.held_ops == 2289);
    CHECK(streamed.op_graph < Bytes{std::int64_t{1} << 20});
    // A tree all-reduce of 1TiB runs 16 channels x 2 trees x 2(n-1) = 30 sends x 64Ki messages
    // of 512KiB (32GiB per tree) = 62914560 sends, but is replayed from its first 17 messages
    // per tree and its last (workloads/periodic_run.hpp): 16 x 2 x 30 x 18 = 17280 held, about
    // 2.6MiB at 160 bytes an op, above a limit of 1MiB.
    const auto tree = spec_of(collective("2", "all_reduce\n    algorithm: tree\n    size: 1TiB\n"));
    const auto estimate = cli::estimate_memory(tree);
    CHECK(estimate.ops == 62914561);
    CHECK(estimate.held_ops == 17280);
    CHECK(estimate.total() > Bytes{std::int64_t{1} << 20});
    try {
        cli::check_memory(estimate, Bytes{std::int64_t{1} << 20}, "--max-memory", "m.yaml", "");
        FAIL("no error");
    } catch (const ConfigError& e) {
        REQUIRE(e.issues().size() == 1);
        const std::string text = e.issues().front().str();
        CHECK(text.starts_with("m.yaml: this run would need about "));
        CHECK(text.find("(62914561 ops, 17280 held at once)") != std::string::npos);
        CHECK(text.find("the limit is 1.0MiB (--max-memory)") != std::string::npos);
    }
    // The same run within a limit above its estimate passes.
    CHECK_NOTHROW(cli::check_memory(estimate, estimate.total(), "--max-memory", "m.yaml", ""));
}

TEST_CASE("the estimate of a training job's ops is an upper bound within a factor of four", "[memory]") {
    // The shipped Llama-70B job (64 GPUs, 32 micro-batches, 2 iterations): the estimate counts
    // every GPU's compute, pipeline sends, joins and two TP ring all-reduces per micro-batch,
    // and the DP reduction as a ring across servers in 8 buckets.
    scenario::LoadOptions o;
    o.config_dirs = {std::filesystem::path(FABRICSIM_SOURCE_DIR) / "configs"};
    const auto loaded =
        scenario::load_scenario(std::filesystem::path(FABRICSIM_SOURCE_DIR) / "scenarios/training-llama70b.yaml", o);
    const auto& spec = loaded.variants.front().spec;
    const double estimated = cli::estimate_memory(spec).ops;
    const double built = built_ops(spec);
    INFO("estimated " << estimated << " built " << built);
    CHECK(estimated >= built);
    CHECK(estimated <= 4 * built);
}

namespace {

// What a training job's program held at its peaks when run on the ideal network: ops made and
// not done plus ops between release and finish (the executor's slots: the rings' sends in
// flight), and records.
struct HeldPeaks {
    double ops = 0;
    double records = 0;
};
HeldPeaks run_training(const scenario::ScenarioSpec& spec) {
    fabric::IdealNetwork network(spec.cluster, spec.simulation.ideal);
    auto workload = workloads::build_workload(spec, network);
    workloads::Executor executor(std::move(workload.graph), network);
    workloads::attach_programs(workload, executor);
    Simulator sim(spec.seed);
    executor.start(sim);
    sim.run();
    REQUIRE(executor.ops_done() == executor.ops_total());
    const auto* job = workload.training_jobs.front().program;
    return {static_cast<double>(job->peak_ops() + executor.peak_live()), static_cast<double>(job->peak_records())};
}

}  // namespace

TEST_CASE("a training job's estimate follows its program: held ops and records against a run's peaks",
          "[memory][training]") {
    // The estimate is an upper bound on what the program held at once: within a factor of two
    // for the records (one iteration's ops but the rings' sends), of eight for the ops (it
    // counts a send on every connection of every DP bucket's ring at once, which small rings
    // never reach). The shipped Llama-70B job: 64 GPUs, TP 8 x PP 4 x DP 2, 32 micro-batches,
    // 2 iterations.
    scenario::LoadOptions o;
    o.config_dirs = {std::filesystem::path(FABRICSIM_SOURCE_DIR) / "configs"};
    const auto dense =
        scenario::load_scenario(std::filesystem::path(FABRICSIM_SOURCE_DIR) / "scenarios/training-llama70b.yaml", o)
            .variants.front()
            .spec;
    // A mixture of experts: TP 2 x EP 2 on 8 GPUs of two servers, its all-to-alls as streams.
    const auto moe = spec_of(R"(name: m
cluster: { servers: 2, server: hgx-h100 }
workload:
  - name: moe
    training:
      model: { parameters: 46.7B, layers: 32, hidden: 4096, sequence: 4096, experts: 8, top_k: 2 }
      batch: { global: 16, micro: 1 }
      gpu: { peak: 1.979PFLOPS, mfu: 0.35 }
      parallelism: { tp: 2, pp: 2, ep: 2 }
      ranks: [0, 1, 2, 3, 8, 9, 10, 11]
      iterations: 2
)");
    for (const auto* spec : {&dense, &moe}) {
        const auto& job = std::get<scenario::TrainingSpec>(spec->workload.front().kind);
        const HeldPeaks measured = run_training(*spec);
        const cli::TrainingHeld estimated = cli::training_held(job, spec->cluster);
        INFO(spec->name << ": held " << measured.ops << " estimated " << estimated.ops << ", records "
                        << measured.records << " estimated " << estimated.records);
        CHECK(estimated.ops >= measured.ops);
        CHECK(estimated.ops <= 8 * measured.ops);
        CHECK(estimated.records >= measured.records);
        CHECK(estimated.records <= 2 * measured.records);
        CHECK(estimated.ranks == job.gpus());
    }
}

TEST_CASE("a traffic entry's estimate: its flows in flight and a timing per flow", "[memory][traffic]") {
    // 2 HGX servers, 16 ranks. An all-to-all releases its 16 x 15 = 240 flows at once, and
    // keeps a 16-byte timing (0.4 record) per flow; a gpu_pool of 2 clients x 3 chains holds one
    // call's two flows per chain: 12, of 2 x 3 x 5 calls x 4 flows = 120.
    const auto a2a = spec_of("name: m\ncluster: { servers: 2, server: hgx-h100 }\nworkload:\n"
                             "  - traffic: all_to_all\n    size: 1MiB\n");
    const auto e = cli::estimate_memory(a2a);
    CHECK(e.ops == 240);
    CHECK(e.held_ops == 240);
    CHECK(e.records == Approx(96));
    const auto pool = spec_of("name: m\ncluster: { servers: 2, server: hgx-h100, clients: { nodes: 2 } }\n"
                              "workload:\n  - traffic: gpu_pool\n    calls: 5\n    concurrency: 3\n"
                              "    copy: 1MiB\n    copy_back: 1MiB\n");
    const auto p = cli::estimate_memory(pool);
    CHECK(p.ops == 120);
    CHECK(p.held_ops == 12);
}

TEST_CASE("run --max-memory refuses a run above it before building, and a limit that is not a size", "[memory][cli]") {
    cli::RunArgs args;
    args.scenario.file = std::string(FABRICSIM_SOURCE_DIR) + "/scenarios/ideal-transfers.yaml";
    args.quiet = true;
    args.max_memory = "1KiB";  // below any topology's estimate
    try {
        cli::run_command(args);
        FAIL("no error");
    } catch (const ConfigError& e) {
        const std::string text = e.issues().front().str();
        INFO(text);
        CHECK(text.find("/scenarios/ideal-transfers.yaml: variant \"") != std::string::npos);
        CHECK(text.find("this run would need about ") != std::string::npos);
        CHECK(text.find("the limit is 1.0KiB (--max-memory)") != std::string::npos);
    }
    args.max_memory = "lots";
    try {
        cli::run_command(args);
        FAIL("no error");
    } catch (const ConfigError& e) {
        CHECK(e.issues().front().str() == "--max-memory: expected a size (e.g. 4KiB, 1MB), found \"lots\"");
    }
}

TEST_CASE("host staging and PXN hand every chunk of a message to the network at once: the estimate counts them",
          "[memory]") {
    // HGX H100: one NIC per GPU, PXN on. A send across servers to another rail is relayed
    // through the NVLink peer on the destination's rail in staging_chunk pieces of 512 KiB,
    // all handed over at once: 1 GiB + 1 B is 2049 chunks, 96 B each on the ideal model. A
    // send to the same rail passes through (GPUDirect RDMA), and one inside a server goes over
    // NVLink (GPUDirect P2P): no chunks.
    const auto hgx = spec_of("name: m\ncluster: { servers: 2, server: hgx-h100 }\nworkload:\n"
                             "  - transfer: { from: 0, to: 9, size: 1073741825B }\n"
                             "  - transfer: { from: 0, to: 8, size: 1TiB }\n"
                             "  - transfer: { from: 0, to: 1, size: 1TiB }\n");
    const auto e = cli::estimate_memory(hgx);
    CHECK(e.staged_chunks == 2049);
    CHECK(e.host_staging == Bytes{2049 * 96});
    CHECK(e.describe().find(", host staging 192.1KiB (2049 chunks at once)") != std::string::npos);
    // Without PXN nothing is relayed.
    const auto no_pxn =
        spec_of("name: m\ncluster: { servers: 2, server: { preset: hgx-h100, gpudirect: { pxn: false } } }\n"
                "workload:\n  - transfer: { from: 0, to: 9, size: 1TiB }\n");
    CHECK(cli::estimate_memory(no_pxn).host_staging == Bytes::zero());
}
