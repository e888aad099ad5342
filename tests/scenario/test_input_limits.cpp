// The limits of scenario/input_limits.hpp: a value exactly at its limit loads, one base unit
// more is an error that states the limit; the checks across keys (a message's time at the
// slowest rate, PFC headroom against the switch buffer, a gpu_pool chain's last call, a
// training job's compute) agree with their closed forms; files that are not regular are
// refused unread. tests/scenario/bad/limits.yaml and friends hold the exact messages.
#include "core/errors.hpp"
#include "scenario/input_limits.hpp"
#include "scenario/loader.hpp"
#include "scenario/source_files.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::scenario;

namespace {

LoadOptions shipped_presets() {
    LoadOptions o;
    o.config_dirs = {std::filesystem::path(FABRICSIM_SOURCE_DIR) / "configs"};
    return o;
}

// Each problem the loader reports, as printed; empty when the text loads.
std::vector<std::string> issues_of(const std::string& text) {
    try {
        load_scenario_text(text, "l.yaml", shipped_presets());
    } catch (const ConfigError& e) {
        std::vector<std::string> out;
        for (const auto& i : e.issues()) out.push_back(i.str());
        return out;
    }
    return {};
}

std::string two_hosts(const std::string& simulation, const std::string& cluster_extra, const std::string& workload) {
    return "name: l\nsimulation: " + simulation + "\ncluster:\n  servers: 2\n  server: host-1nic\n" + cluster_extra +
           "workload:\n" + workload;
}

}  // namespace

TEST_CASE("every value exactly at its limit loads", "[loader][limits]") {
    // InfiniBand: credits, no PFC headroom for the 1000km cable to outgrow.
    const std::string text = two_hosts(
        "{ stop_time: 1000000s, ideal: { latency: 1s } }",
        "  fabric: { technology: infiniband, switch: quantum-2, cable_length: 1000km, uplink_cable_length: 1000km }\n",
        "  - transfer: { from: 0, to: 1, size: 1PiB, start: 1000000s }\n");
    CHECK(issues_of(text).empty());
    const auto loaded = load_scenario_text(text, "l.yaml", shipped_presets());
    const ScenarioSpec& s = loaded.variants.front().spec;
    CHECK(s.simulation.stop_time == kMaxTime);
    CHECK(s.simulation.ideal.latency == kMaxDelay);
    CHECK(s.cluster.fabric.cable_length == kMaxLength);
    CHECK(std::get<TransferSpec>(s.workload[0].kind).size == kMaxBytes);
    CHECK(kMaxBandwidth == Bandwidth::bps(1'000'000'000'000'000));
}

TEST_CASE("the limits keep sums of the engine inside int64", "[limits]") {
    constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
    // A start, a duration and a stop time at the limit, and a million per-hop delays, add up
    // to less than the clock's range.
    CHECK(3 * kMaxTime.picoseconds() + 1'000'000 * kMaxDelay.picoseconds() < kInt64Max);
    // The largest size, as bits, times 10^12 ps/s fits 128 bits; summed 1000 times it still
    // fits a 64-bit byte counter.
    CHECK(static_cast<double>(kMaxBytes.count()) * 8 * 1e12 < 1.7e38);
    CHECK(kMaxBytes.count() < kInt64Max / 1000);
    // Propagation over the longest cable (5 ps/mm) is 5 ms.
    CHECK(propagation_delay(kMaxLength) == Time::ms(5));
}

TEST_CASE("a message is refused when it alone takes longer than a run can simulate", "[loader][limits]") {
    // 1GiB at 1000bps: 2^30 x 8 / 1000 = 8589934.592 s > 1000000 s. At 10kbps: 858993.4592 s,
    // which fits.
    const auto slow = [](const std::string& rate) {
        return two_hosts("{ model: ideal }", "  fabric: { link_speed: " + rate + " }\n",
                         "  - transfer: { from: 0, to: 1, size: 1GiB }\n");
    };
    const auto refused = issues_of(slow("1000bps"));
    REQUIRE(refused.size() == 1);
    CHECK(refused[0] == "l.yaml:8:5: workload[0]: a message of 1GiB at 1Kbps (cluster.fabric.link_speed) takes "
                        "8.59e+06s; a run can simulate at most 1000000s (simulated time is int64 picoseconds): send "
                        "less or use faster links");
    CHECK(issues_of(slow("10Kbps")).empty());
}

TEST_CASE("gpu_pool calls are refused when the last would start beyond the clock's limit", "[loader][limits]") {
    // 1000001 calls would start the last at 1000000 x 1s; the limit is 1000 calls at 1000s:
    // 999 x 1000s = 999000s fits, 1001 calls (1000000s) fits exactly, 1002 does not.
    const auto pool = [](int calls) {
        return "name: l\ncluster:\n  servers: 2\n  server: host-1nic\n  clients: { nodes: 1 }\nworkload:\n"
               "  - traffic: gpu_pool\n    calls: " +
               std::to_string(calls) + "\n    copy: 1MiB\n    interval: 1000s\n";
    };
    CHECK(issues_of(pool(1001)).empty());
    const auto refused = issues_of(pool(1002));
    REQUIRE(refused.size() == 1);
    CHECK(refused[0] == "l.yaml:10:15: workload[0].interval: the last of 1002 calls would start after 0ps + 1001 x "
                        "1000s, beyond the 1000000s a run can simulate; use fewer calls or a shorter interval");
}

TEST_CASE("a training job whose compute alone outlasts the clock's limit is refused", "[loader][limits]") {
    // 6 x (1e9 + 2 x 1 x 1000 x 1000) x 1000 x 1000 tokens / 2 GPUs / (1000 FLOPS x 0.5)
    // = 6 x 1.002e9 x 1e6 / 2 / 500 = 6.012e12 s per iteration.
    const std::string text = "name: l\ncluster: { servers: 1, server: hgx-h100 }\nworkload:\n  - training:\n"
                             "      model: { parameters: 1e9, layers: 1, hidden: 1000, sequence: 1000 }\n"
                             "      batch: { global: 1000, micro: 1 }\n      gpu: { peak: 1KFLOPS, mfu: 0.5 }\n"
                             "      parallelism: { tp: 1, pp: 1, dp: 2 }\n";
    const auto refused = issues_of(text);
    INFO((refused.empty() ? std::string() : refused[0]));
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].find("workload[0]: 1 iteration of this job compute for 6.012e+12s on each GPU") !=
          std::string::npos);
}

TEST_CASE("files that are not regular, or kernel pseudo files, are refused unread", "[loader][limits]") {
    CHECK(is_kernel_pseudo_file("/proc/self/status"));
    CHECK_FALSE(is_kernel_pseudo_file(std::filesystem::path(FABRICSIM_SOURCE_DIR) / "scenarios/quickstart.yaml"));
    SourceFiles files;
    Issues issues;
    CHECK_FALSE(files.read("/dev/null", SourceLocation{"s.yaml", 1, 1}, "include", issues).has_value());
    CHECK_FALSE(files.read("/proc/self/status", SourceLocation{"s.yaml", 2, 1}, "include", issues).has_value());
    REQUIRE(issues.size() == 2);
    CHECK(issues.list()[0].str() == "s.yaml:1:1: include: cannot read \"/dev/null\": not a regular file");
    CHECK(issues.list()[1].str() ==
          "s.yaml:2:1: include: cannot read \"/proc/self/status\": a kernel pseudo file (/proc, /sys), not a scenario");
}
