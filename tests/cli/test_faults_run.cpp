// A straggler through the whole run path (loader, run_variant, the baseline comparison) on the
// ideal model: its training iteration against the same run without it, by the 1F1B closed form.
#include <catch2/catch.hpp>

#include "cli/run_variant.hpp"
#include "cli_harness.hpp"
#include "report/fault_figures.hpp"
#include "scenario/loader.hpp"

#include <filesystem>

using namespace fabricsim;

TEST_CASE("a straggler slows a 1F1B training iteration by (m·k + 1)/(m + 1) on the ideal model", "[faults][training]") {
    // Two pipeline stages on two GPUs of one server, m = 8 micro-batches, the last stage's GPU
    // (rank 1) k = 2 times slower all run long. With communication nearly free (zero latency;
    // 16 MiB of activations over NVLink take ~20 us against ~110 ms of compute per
    // micro-batch), tests/workloads/test_straggler.cpp derives (m + 1)(f + b) without and
    // m·k·(f + b) + (f + b) with it: a ratio of (8·2 + 1)/(8 + 1) = 17/9.
    const std::string text = R"(name: straggler
simulation: { model: ideal, ideal: { latency: 0s } }
cluster: { servers: 1, server: { preset: hgx-h100 } }
workload:
  - name: job
    training:
      model: { parameters: 7B, layers: 32, hidden: 4096, sequence: 2048 }
      batch: { global: 8, micro: 1 }
      gpu: { peak: 989TFLOPS, mfu: 0.4 }
      parallelism: { tp: 1, pp: 2, dp: 1 }
      ranks: [0, 1]
faults:
  - straggler: { rank: 1, at: 0s, slowdown: 2 }
)";
    scenario::LoadOptions options;
    options.config_dirs = {std::filesystem::path(FABRICSIM_SOURCE_DIR) / "configs"};
    const auto loaded = scenario::load_scenario_text(text, "straggler.yaml", options);
    const scenario::Variant& with = loaded.variants.front();
    scenario::Variant without = with;
    without.spec.faults.clear();
    const auto slow = cli::run_variant(with);
    const auto healthy = cli::run_variant(without);
    REQUIRE(slow.training.size() == 1);
    REQUIRE(healthy.training.size() == 1);
    CHECK(slow.training[0].iteration_time.seconds() / healthy.training[0].iteration_time.seconds() ==
          Approx(17.0 / 9.0).epsilon(1e-3));
    REQUIRE(slow.faults.size() == 1);
    CHECK(slow.faults[0].kind == "straggler");
    CHECK(slow.faults[0].target == "rank 1 (2x slower)");
    const auto rows = report::compare_with_baseline(slow, healthy);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].what == "training job iteration");
    CHECK(rows[0].slowdown() == Approx(17.0 / 9.0).epsilon(1e-3));
}

TEST_CASE("a fault naming a node the topology does not have is bad input, found before any variant runs",
          "[faults][cli]") {
    test::TempDir dir("faults-bad");
    test::write_file(dir.path() / "bad.yaml", "name: bad\n"
                                              "simulation: { model: packet }\n"
                                              "cluster: { servers: 2, server: { gpus: 0, nics: 1 } }\n"
                                              "workload: [{ transfer: { from: 0, to: 1, size: 1MiB } }]\n"
                                              "faults:\n"
                                              "  - link_down: { link: [leaf0, spine9], at: 0s }\n");
    const auto r =
        test::run_fabricsim("run " + (dir.path() / "bad.yaml").string() + " --out " + (dir.path() / "out").string());
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("bad.yaml:6:5: faults[0].link_down.link: no node is named \"spine9\"") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir.path() / "out" / "result.json"));
}

TEST_CASE("a degraded link must be slower than its line rate", "[faults][cli]") {
    const std::string text = "name: fast\n"
                             "simulation: { model: packet }\n"
                             "cluster: { servers: 2, server: { gpus: 0, nics: 1, nic: { line_rate: 100Gbps } } }\n"
                             "workload: [{ transfer: { from: 0, to: 1, size: 1MiB } }]\n"
                             "faults:\n"
                             "  - link_degraded: { link: [s0.nic0, leaf0], at: 0s, speed: 400Gbps }\n";
    const auto loaded = scenario::load_scenario_text(text, "fast.yaml", {});
    CHECK_THROWS_WITH(
        cli::run_variant(loaded.variants.front()),
        "fast.yaml:6:5: faults[0].link_degraded.speed: 400Gbps is not below the link's line rate, 100Gbps");
}
