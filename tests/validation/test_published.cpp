// The packet model against published measurements (issue 7; docs/VALIDATION.md, "Published
// measurements"): the shipped scenarios under scenarios/validation/ run by the real binary,
// their result.json read back. Every network figure comes from the link classes' rates and
// efficiencies (docs/models/links.md); none is fitted to the measurement it is checked against.
// The training case has one calibrated input, the GPU's sustained fraction of peak, solved on
// one published point and held for the others.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

using namespace fabricsim::test;
using Json = nlohmann::json;

namespace {

// Runs a shipped scenario and returns its result.json.
Json run_scenario(const std::string& file, const std::string& tag) {
    TempDir out(tag);
    const auto r = run_fabricsim("run " + file + " --quiet --out " + out.path().string());
    REQUIRE(r.exit_code == 0);
    return Json::parse(read_file(out.path() / "result.json"));
}

// A variant's collective entry by name.
const Json& collective(const Json& variant, const std::string& name) {
    const Json& all = variant["collectives"];
    const auto it = std::find_if(all.begin(), all.end(), [&](const Json& c) { return c["name"] == name; });
    REQUIRE(it != all.end());
    return *it;
}

}  // namespace

TEST_CASE("one HGX H100: ring all-reduce busbw, NVSwitch copy and NVLS against nccl-tests", "[validation]") {
    const Json r = run_scenario("scenarios/validation/hgx-h100-nvlink.yaml", "val-hgx");
    const Json& v = r["variants"][0];
    // nccl-tests, 8 x H100 SXM, NCCL_ALGO=RING, 1 GiB and up: busbw about 370 GB/s.
    const double ring = collective(v, "ring")["busbw_GBps"].get<double>();
    CHECK(ring == Approx(370.0).epsilon(0.10));
    CHECK(ring == Approx(359.74).epsilon(0.001));  // the figure recorded in VALIDATION.md
    // NVSwitch peer-to-peer copy, 1 GiB: about 380 GB/s per direction.
    const Json& copy = v["transfers"][0];
    const double copy_GBps = 1073741824.0 / copy["fct_s"].get<double>() / 1e9;
    CHECK(copy_GBps == Approx(380.0).epsilon(0.10));
    CHECK(copy_GBps == Approx(359.29).epsilon(0.001));
    // NVLS: measured busbw about 480 GB/s (nccl-tests issue 212). The model moves S(1+1/8) per
    // GPU each way at NCCL's nvlsEfficiency 0.85 of the links' 360 GB/s payload rate:
    // busbw = 1.75 / 1.125 x 306 = 476.0 GB/s, less a little for latency.
    const double nvls = collective(v, "nvls")["busbw_GBps"].get<double>();
    CHECK(nvls == Approx(480.0).epsilon(0.02));
    CHECK(nvls <= 1.75 / 1.125 * 306);
    CHECK(nvls == Approx(475.87).epsilon(0.001));  // the figure recorded in VALIDATION.md
}

TEST_CASE("2 and 4 HGX H100 servers, rail-aligned ring all-reduce: 46 to 49 GB/s busbw per NIC on NDR and RoCE",
          "[validation]") {
    const Json r = run_scenario("scenarios/validation/rail-allreduce-ndr-roce.yaml", "val-rail");
    std::map<std::string, double> per_nic;
    for (const Json& v : r["variants"]) per_nic[v["name"]] = collective(v, "ring")["busbw_GBps"].get<double>() / 8;
    REQUIRE(per_nic.size() == 4);
    for (const auto& [variant, gbps] : per_nic) {
        INFO(variant << ": " << gbps << " GB/s per NIC");
        CHECK(gbps >= 46.0);
        CHECK(gbps <= 49.0);
    }
    // The figures recorded in VALIDATION.md.
    CHECK(per_nic["roce-2"] == Approx(47.62).epsilon(0.001));
    CHECK(per_nic["ib-2"] == Approx(48.24).epsilon(0.001));
    CHECK(per_nic["roce-4"] == Approx(47.79).epsilon(0.001));
    CHECK(per_nic["ib-4"] == Approx(48.28).epsilon(0.001));
}

TEST_CASE("SHARP on Quantum-2, 4 HGX H100: the busbw recorded in VALIDATION.md beside the ring", "[validation]") {
    // No published H100/NDR SHARP figure was found; the case checks the model's prediction
    // against its own derivation and records it.
    // NVIDIA's rule (nccl issue 320): with SHARP the fabric carries S/8 per NIC each way, so
    // busbw may pass the NICs' ring limit of 8 × 49 GB/s; NVLink becomes the bottleneck.
    const Json r = run_scenario("scenarios/sharp-allreduce.yaml", "val-sharp");
    const Json& v = r["variants"][0];
    const double sharp = collective(v, "sharp")["busbw_GBps"].get<double>();
    const double ring = collective(v, "ring")["busbw_GBps"].get<double>();
    CHECK(sharp > 8 * 49.0);
    CHECK(ring < 8 * 49.0);
    // SHARP's time, derived: NCCL's NVLS chunk for 256 MiB on 16 channels x 8 heads is 64 KiB
    // (256 MiB < 64 x 128 x 128 KiB), so 32 pieces of P = 8 MiB go through three stages in order.
    // Each GPU's NVLink carries P + P/8 per piece each way (one piece's reduce-scatter beside
    // another's all-gather) at 0.85 x 360 = 306 GB/s, the slowest stage (a rail's P/8 at the
    // NDR payload rate 49.69 GB/s takes 21.1 us against 30.8); the fill is piece 0's
    // reduce-scatter and aggregation:
    //   T0 = P/306 + (P/8)/49.69 + 1.125 S/306 = 27.4 + 21.1 + 986.9 = 1035.4 us.
    // Each piece ends with its last 64-KiB segment, which may trail the others on one link by
    // up to 65536 B / (20 GB/s x 0.85) = 3.9 us: T <= T0 + 32 x 3.9 us = 1158.8 us.
    // busbw = 2 x 31/32 x S / T: between 448.8 and 502.3 GB/s.
    CHECK(sharp < 502.3);
    CHECK(sharp > 448.8);
    CHECK(sharp == Approx(473.09).epsilon(0.001));  // the figures recorded in VALIDATION.md
    CHECK(ring == Approx(388.3).epsilon(0.001));
}

namespace {

// Megatron-LM's FLOPs per iteration with full recomputation (Narayanan et al. SC'21, eq. 3).
double megatron_flops(double batch, double layers, double hidden) {
    const double s = 2048, V = 51200;
    return 96 * batch * s * layers * hidden * hidden * (1 + s / (6 * hidden) + V / (16 * layers * hidden));
}

}  // namespace

TEST_CASE("Megatron-LM on Selene: GPT iteration times against SC'21 Tables 1 and 2", "[validation][training]") {
    const Json r = run_scenario("scenarios/validation/megatron-gpt3-a100.yaml", "val-megatron");
    // Published: TFLOP/s per GPU; measured iteration time = eq. 3 FLOPs / (GPUs × TFLOP/s).
    struct Point {
        double flops, gpus, tflops;
    };
    const double gpt175 = megatron_flops(1536, 96, 12288);
    const std::map<std::string, Point> published{{"ptdp-384", {gpt175, 384, 153}},
                                                 {"ptdp-768", {gpt175, 768, 149}},
                                                 {"ptdp-1536", {gpt175, 1536, 141}},
                                                 {"table1-146b", {megatron_flops(2304, 80, 12288), 1536, 148}}};
    std::map<std::string, double> error, achieved;
    for (const Json& v : r["variants"]) {
        const Point& p = published.at(v["name"]);
        const double simulated = v["training"]["jobs"][0]["iteration_time_s"].get<double>();
        error[v["name"]] = simulated / (p.flops / (p.gpus * p.tflops * 1e12)) - 1;
        achieved[v["name"]] = p.flops / (p.gpus * simulated) / 1e12;
        // result.json's own TFLOP/s per GPU counts 4·(2·P + 4·L·s·h) per token, within 0.2 % of eq. 3.
        CHECK(v["training"]["jobs"][0]["tflops_per_gpu"].get<double>() == Approx(achieved[v["name"]]).epsilon(0.002));
    }
    REQUIRE(error.size() == 4);
    std::string errors;
    for (const auto& [variant, e] : error) errors += variant + ": " + std::to_string(100 * e) + " %  ";
    INFO(errors);
    // ptdp-384 is the calibration point: mfu was solved on it (the paper gives 3 digits).
    CHECK(std::abs(error["ptdp-384"]) < 0.001);
    // Predictions: more data parallelism at a fixed batch leaves fewer micro-batches per
    // pipeline, so the 1F1B bubble (p−1)/m grows: the paper's 153 → 149 → 141.
    CHECK(std::abs(error["ptdp-768"]) < 0.01);
    CHECK(std::abs(error["ptdp-1536"]) < 0.015);
    CHECK(achieved["ptdp-768"] / achieved["ptdp-384"] == Approx(149.0 / 153).epsilon(0.01));
    CHECK(achieved["ptdp-1536"] / achieved["ptdp-384"] == Approx(141.0 / 153).epsilon(0.01));
    // Another model on the same GPUs and fabric: Table 1's 145.6B row.
    CHECK(std::abs(error["table1-146b"]) < 0.03);
    // The figures recorded in VALIDATION.md.
    CHECK(error["ptdp-768"] == Approx(0.0047).margin(0.0005));
    CHECK(error["ptdp-1536"] == Approx(0.0089).margin(0.0005));
    CHECK(error["table1-146b"] == Approx(0.0197).margin(0.0005));
}
