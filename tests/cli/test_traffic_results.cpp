// A traffic scenario through the whole run: the per-entry results (docs/models/traffic.md,
// "Results") against the ideal network's closed forms.
#include <catch2/catch.hpp>

#include "cli/run_variant.hpp"
#include "scenario/loader.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;

namespace {
const report::TrafficResult& entry(const report::VariantResult& r, const std::string& name) {
    for (const auto& t : r.traffic)
        if (t.name == name) return t;
    FAIL("no traffic entry " << name);
    return r.traffic.front();
}
}  // namespace

TEST_CASE("traffic results: incast time, gpu_pool latency and throughput, poisson load", "[traffic][cli]") {
    const std::string yaml = R"(name: t
seed: 4
simulation: { model: ideal, ideal: { latency: 2us } }
cluster:
  servers: 4
  server: { gpus: 0, nics: 1, nic: { line_rate: 400Gbps } }
  clients: { nodes: 2, nic: { line_rate: 400Gbps } }
workload:
  - traffic: incast
    name: in
    size: 1MiB
    receiver: 0
  - traffic: gpu_pool
    name: pool
    after: in
    ranks: [1, 2]
    calls: 10
    request: 1KiB
    copy: 4MiB
    response: 1KiB
  - traffic: poisson
    name: p
    start: 1s
    load: 0.5
    cdf: fb_hadoop
    duration: 20ms
)";
    const auto loaded = scenario::load_scenario_text(yaml, "t.yaml", {});
    REQUIRE(loaded.variants.size() == 1);
    const auto r = cli::run_variant(loaded.variants.front());
    REQUIRE(r.unfinished_ops == 0);

    const auto& in = entry(r, "in");
    CHECK(in.pattern == "incast");
    CHECK(in.flows == 3);
    CHECK(in.finish == 2_us + transmit_time(1_MiB, 400_Gbps) * 3);

    const auto& pool = entry(r, "pool");
    const Time call = 2 * 2_us + transmit_time(1_KiB, 400_Gbps) * 2 + transmit_time(4_MiB, 400_Gbps);
    CHECK(pool.gpu_pool);
    CHECK(pool.calls == 20);
    CHECK(pool.flows == 60);
    CHECK(pool.added_latency_mean == call);
    CHECK(pool.added_latency_p99 == call);
    // Two clients on two GPUs, ten calls each back to back: 2 / call calls per second.
    CHECK(pool.calls_per_s == Approx(2.0 / call.seconds()));
    CHECK(pool.bytes_per_s == Approx(2.0 * (4_MiB + 2_KiB).count() / call.seconds()));

    const auto& p = entry(r, "p");
    CHECK(p.has_load);
    CHECK(p.offered_load == 0.5);
    CHECK(p.achieved_load == Approx(0.5).epsilon(0.1));  // ~16k flows of a heavy-tailed CDF
    CHECK_FALSE(in.has_load);
}
