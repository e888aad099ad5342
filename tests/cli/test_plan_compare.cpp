// `fabricsim plan` and `fabricsim compare` end to end: the plan's JSON against the shipped
// topology scenario's closed forms (its header derives them) with a price table written here,
// growth with --gpus, and compare's table, Markdown and self-contained HTML.
#include <catch2/catch.hpp>

#include "cli/plan_command.hpp"
#include "cli_harness.hpp"
#include "core/errors.hpp"

#include <nlohmann/json.hpp>

using namespace fabricsim;
using namespace fabricsim::test;
using Json = nlohmann::json;

namespace {

constexpr const char* kPrices = R"(servers:
  hgx-h100: { price: 200000, power_w: 10000, date: test, source: test }
switches:
  spectrum-4: { price: 20000, power_w: 1000, date: test, source: test }
transceivers:
  400G-SR: { price: 1000, power_w: 10, date: test, source: test }
cables:
  dac-400G: { price: 100, power_w: 0, date: test, source: test }
  fiber-400G: { price: 10, power_w: 0, date: test, source: test }
)";

const Json* design(const Json& plan, const std::string& variant, int gpus) {
    for (const Json& d : plan["designs"])
        if (d["variant"] == variant && d["gpus"] == gpus) return &d;
    return nullptr;
}

int bom_switches(const Json& d, const std::string& tier) {
    int n = 0;
    for (const Json& g : d["bill_of_materials"]["switches"])
        if (g["tier"] == tier) n += g["count"].get<int>();
    return n;
}

}  // namespace

TEST_CASE("plan --json: 32 HGX H100 on a 128-port leaf-spine - BOM, cost, power and the ideal run from closed forms",
          "[cli][plan]") {
    TempDir dir("plan");
    write_file(dir.path() / "prices.yaml", kPrices);
    cli::PlanArgs a;
    a.scenario.file = "scenarios/topology-h100-leaf-spine.yaml";
    a.prices = (dir.path() / "prices.yaml").string();
    a.model = "ideal";  // the closed forms below are the ideal model's
    a.json = true;
    a.quiet = true;
    const Json j = Json::parse(cli::plan_output(a));
    REQUIRE(j["designs"].size() == 3);
    const Json* d = design(j, "leaf-spine", 256);
    REQUIRE(d != nullptr);
    // 256 NICs, 128-port Spectrum-4 at 1:1 (64 down / 64 up): ceil(256 / 64) = 4 leaves; 4 x 64
    // uplinks with the largest p | 64 and 4p <= 128, p = 32: 64 / 32 = 2 spines.
    CHECK(bom_switches(*d, "leaf") == 4);
    CHECK(bom_switches(*d, "spine") == 2);
    CHECK((*d)["bill_of_materials"]["transceiver_total"] == 512);  // 256 optical uplinks x 2 ends
    CHECK((*d)["bill_of_materials"]["cable_total"] == 512);        // 256 NIC + 256 uplink cables
    // 32 x 200000 + 6 x 20000 + 512 x 1000 + 256 x 100 (3 m DAC) + 256 x 10 (fiber).
    CHECK((*d)["cost"]["total_price"].get<double>() == Approx(6'400'000 + 120'000 + 512'000 + 25'600 + 2'560));
    CHECK((*d)["cost"]["network_price"].get<double>() == Approx(120'000 + 512'000 + 25'600 + 2'560));
    // 32 x 10 kW + 6 x 1 kW + 512 x 10 W.
    CHECK((*d)["cost"]["total_power_w"].get<double>() == Approx(320'000 + 6'000 + 5'120));
    CHECK((*d)["cost"]["unpriced"].empty());
    // The ideal model: 1 GiB then 256 MiB, each at the 400G payload rate after the header's 2 us.
    const Json& p = (*d)["performance"];
    CHECK(p["ran"] == true);
    CHECK(p["model"] == "ideal");
    CHECK(p["makespan_s"].get<double>() == Approx((1073741824.0 + 268435456.0) * 8 / 400e9).epsilon(0.02));
    // Oversubscribed 2:1 leaves 42 up of 128: fewer optics than 1:1.
    const Json* over = design(j, "oversubscribed", 256);
    REQUIRE(over != nullptr);
    CHECK((*over)["bill_of_materials"]["transceiver_total"].get<int>() < 512);
}

TEST_CASE("plan --gpus: the same variants at each size, leaves and spines growing as the closed form says",
          "[cli][plan]") {
    TempDir dir("plan-gpus");
    write_file(dir.path() / "prices.yaml", kPrices);
    cli::PlanArgs a;
    a.scenario.file = "scenarios/topology-h100-leaf-spine.yaml";
    a.prices = (dir.path() / "prices.yaml").string();
    a.variants = {"leaf-spine"};
    a.gpus = "256,1024";
    a.model = "none";
    a.json = true;
    const Json j = Json::parse(cli::plan_output(a));
    REQUIRE(j["designs"].size() == 2);
    const Json* big = design(j, "leaf-spine", 1024);
    REQUIRE(big != nullptr);
    // 1024 NICs / 64 down = 16 leaves; 16 x 64 uplinks, p = 8 (16p <= 128): 64 / 8 = 8 spines.
    CHECK(bom_switches(*big, "leaf") == 16);
    CHECK(bom_switches(*big, "spine") == 8);
    CHECK((*big)["performance"]["ran"] == false);
    CHECK((*big)["performance"]["note"] == "not run (--model none)");

    a.gpus = "100";
    try {
        (void)cli::plan_output(a);
        FAIL("no error");
    } catch (const ConfigError& e) {
        CHECK(e.issues().at(0).str() == "--gpus: 100 GPUs is not a whole number of 8-GPU servers");
    }
}

TEST_CASE("plan: text names each design, its cost lines and the side-by-side table, bad --model is exit 2",
          "[cli][plan]") {
    const auto r = run_fabricsim("plan scenarios/topology-h100-leaf-spine.yaml --variant rail-optimized -q");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("design rail-optimized — 256 GPUs (32 servers)") != std::string::npos);
    CHECK(r.output.find("bill of materials") != std::string::npos);
    CHECK(r.output.find("cross-rail bandwidth") != std::string::npos);
    CHECK(r.output.find("side by side") != std::string::npos);
    CHECK(r.output.find("estimate") != std::string::npos);
    const auto bad = run_fabricsim("plan scenarios/topology-h100-leaf-spine.yaml --model fast");
    CHECK(bad.exit_code == 2);
    CHECK(bad.output.find("--model: expected flow, ideal, packet or none, found \"fast\"") != std::string::npos);
}

// The plan's default model sees the fabric. Four hosts of one leaf each send 64 MiB to the host
// across at once; routing by destination (D-mod-K) gives the four flows four uplinks at 1:1, and
// two flows each of the two uplinks at 2:1, so the 2:1 design takes twice as long on the flow
// model, and the same time on the ideal one, which has no fabric.
TEST_CASE("plan: its default, the flow model, gives an oversubscribed design its time, and the ideal model does not",
          "[cli][plan]") {
    TempDir dir("plan-flow");
    write_file(dir.path() / "prices.yaml", kPrices);
    write_file(dir.path() / "oversub.yaml", R"(name: plan-oversubscription
cluster:
  servers: 8
  server: { preset: host-1nic, nic: { preset: connectx-7, line_rate: 100Gbps } }
  fabric:
    topology: leaf-spine
    routing: static
    switch: { preset: spectrum-4, port_speed: 100Gbps, radix: 8 }
workload:
  - { transfer: { from: 0, to: 4, size: 64MiB }, name: t0 }
  - { transfer: { from: 1, to: 5, size: 64MiB }, name: t1 }
  - { transfer: { from: 2, to: 6, size: 64MiB }, name: t2 }
  - { transfer: { from: 3, to: 7, size: 64MiB }, name: t3 }
variants:
  full: {}
  half: { cluster.fabric.oversubscription: "2:1", cluster.fabric.switch.radix: 6 }
)");
    cli::PlanArgs a;
    a.scenario.file = (dir.path() / "oversub.yaml").string();
    a.prices = (dir.path() / "prices.yaml").string();
    a.json = true;
    a.quiet = true;
    const auto makespans = [&](const char* model) {
        const Json j = Json::parse(cli::plan_output(a));
        const Json* full = design(j, "full", 0);
        const Json* half = design(j, "half", 0);
        REQUIRE(full != nullptr);
        REQUIRE(half != nullptr);
        CHECK((*full)["performance"]["model"] == model);
        return std::pair{(*full)["performance"]["makespan_s"].get<double>(),
                         (*half)["performance"]["makespan_s"].get<double>()};
    };
    const double line = 64.0 * 1024 * 1024 * 8 / 100e9;  // 5.369 ms at the line rate
    const auto [full, half] = makespans("flow");         // a.model as it defaults
    // Payload after frame overhead (about 2 % at a 4 KiB MTU) and a few µs of latency.
    CHECK(full > line);
    CHECK(full < line * 1.03);
    CHECK(half / full == Approx(2.0).epsilon(0.01));
    a.model = "ideal";
    const auto [ideal_full, ideal_half] = makespans("ideal");
    CHECK(ideal_half == ideal_full);
    CHECK(ideal_full == Approx(line).epsilon(0.01));
}

TEST_CASE("compare: RoCE, InfiniBand and iWARP in one table, Markdown and a self-contained HTML report naming each",
          "[cli][compare]") {
    TempDir dir("compare");
    const auto md = dir.path() / "t.md", html = dir.path() / "t.html";
    const auto r = run_fabricsim("compare scenarios/incast-roce-vs-ib.yaml --markdown " + md.string() + " --html " +
                                 html.string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    // PFC's rows beside the credit stalls, ECN/CNP beside FECN/BECN; each row empty for the other.
    const auto pauses = r.output.find("PFC pauses sent"), stall = r.output.find("credit stall time");
    REQUIRE(pauses != std::string::npos);
    REQUIRE(stall != std::string::npos);
    CHECK(r.output.find("congestion", pauses) > stall);
    CHECK(r.output.find("ECN marks") < r.output.find("FECN marks"));
    CHECK(r.output.find("FECN marks") < r.output.find("CNPs"));
    CHECK(r.output.find("better") != std::string::npos);
    CHECK(r.output.find("KiB") != std::string::npos);  // queue depths in binary units with 3 digits
    const std::string m = read_file(md);
    CHECK(m.rfind("| metric | roce | infiniband | iwarp | better |\n|---|---:|---:|---:|---:|\n", 0) == 0);
    const std::string h = read_file(html);
    for (const char* v : {"roce", "infiniband", "iwarp"})
        CHECK(h.find(std::string("<span class=\"variant\">") + v + "</span>") != std::string::npos);
    for (const char* id : {"plot-fct-cdf", "plot-slowdown", "plot-utilisation"})
        CHECK(h.find(std::string("<figure id=\"") + id + "\"") != std::string::npos);
    // Self-contained: no script, style or image fetched from anywhere.
    CHECK(h.find("src=\"http") == std::string::npos);
    CHECK(h.find("<link") == std::string::npos);
    CHECK(h.find("<script src") == std::string::npos);
}

TEST_CASE("compare of a training run: no flow rows (no 'flows 0'), the iteration and its breakdown instead",
          "[cli][compare]") {
    const auto r = run_fabricsim("compare scenarios/training-llama70b.yaml");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("FCT") == std::string::npos);
    CHECK(r.output.find("flows") == std::string::npos);
    CHECK(r.output.find("llama70b iteration") != std::string::npos);
    CHECK(r.output.find("llama70b compute") != std::string::npos);
    // The ideal model has no queues or flow control: those rows apply to no variant and are left out.
    CHECK(r.output.find("PFC") == std::string::npos);
    CHECK(r.output.find("queue") == std::string::npos);
    // And run's own table no longer prints flow rows for it either.
    TempDir dir("train");
    const auto run = run_fabricsim("run scenarios/training-llama70b.yaml --out " + dir.path().string());
    REQUIRE(run.exit_code == 0);
    CHECK(run.output.find("FCT p50") == std::string::npos);
    CHECK(run.output.find("\nflows ") == std::string::npos);
}

// The loader's unread-key warnings are for the model the plan runs, not the one the scenario
// names, and come once however many sizes the plan loads. The scenario names the ideal model
// and sets routing (read by the flow and packet models) and an ECN threshold (packet only).
TEST_CASE("plan: its warnings name the keys its model does not read, once", "[cli][plan]") {
    TempDir dir("plan-warn");
    const std::string file = (dir.path() / "w.yaml").string();
    write_file(file, R"(name: w
cluster:
  server: hgx-h100
  servers: 2
  fabric: { topology: leaf-spine, routing: ecmp }
  roce: { ecn: { kmin: 100KB } }
simulation: { model: ideal }
workload:
  - transfer: { from: 0, to: 8, size: 1MiB }
)");
    const auto warnings = [&](const std::string& options) {
        const auto r = run_fabricsim("plan " + file + " -q " + options);
        INFO(r.output);
        CHECK(r.exit_code == 0);
        std::vector<std::string> out;
        std::size_t at = 0;
        while ((at = r.output.find("fabricsim: warning: ", at)) != std::string::npos) {
            const std::size_t end = r.output.find('\n', at);
            out.push_back(r.output.substr(at, end - at));
            at = end;
        }
        return out;
    };
    const std::string ecn = "fabricsim: warning: " + file +
                            ":6:11: cluster.roce.ecn: the {} model does not read this key; it has no effect";
    const std::string routing = "fabricsim: warning: " + file +
                                ":5:35: cluster.fabric.routing: the ideal model does not read this key; it has "
                                "no effect";
    const auto named = [&](const std::string& model) {
        std::string s = ecn;
        return s.replace(s.find("{}"), 2, model);
    };
    CHECK(warnings("--gpus 16,32,64") == std::vector<std::string>{named("flow")});
    CHECK(warnings("--model ideal") == std::vector<std::string>{routing, named("ideal")});
    CHECK(warnings("--model packet").empty());
}
