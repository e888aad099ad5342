// Every scenario shipped in scenarios/ runs, in-process, and obeys the invariants every run
// must: all ops finish, bytes are conserved, no transfer beats the idle network, no lossless
// drop.
#include <catch2/catch.hpp>

#include "cli/commands.hpp"
#include "cli_harness.hpp"
#include "cli/run_variant.hpp"
#include "scenario/loader.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <string>

using namespace fabricsim;

TEST_CASE("every shipped scenario runs and keeps the run invariants", "[scenarios]") {
    const std::filesystem::path dir = std::filesystem::path(FABRICSIM_SOURCE_DIR) / "scenarios";
    scenario::LoadOptions options;
    for (const auto& d : cli::config_dirs()) options.config_dirs.emplace_back(d);
    int scenarios = 0;
    for (const auto& file : std::filesystem::directory_iterator(dir)) {
        if (file.path().extension() != ".yaml") continue;
        ++scenarios;
        const auto loaded = scenario::load_scenario(file.path(), options);
        for (const auto& variant : loaded.variants) {
            INFO(file.path().filename().string() << " variant " << variant.name);
            const auto result = cli::run_variant(variant);
            for (const auto& problem : result.problems) FAIL_CHECK(problem);
            CHECK(result.complete());
            CHECK(result.unfinished_ops == 0);
            CHECK(result.fabric.lossless_drops == 0);
            std::int64_t asked = 0, delivered = 0;
            for (const auto& entry : variant.spec.workload)
                if (const auto* t = std::get_if<scenario::TransferSpec>(&entry.kind)) asked += t->size.count();
            std::set<std::string> transfer_entries;  // traffic entries' flows are transfers too
            for (const auto& entry : variant.spec.workload)
                if (std::holds_alternative<scenario::TransferSpec>(entry.kind)) transfer_entries.insert(entry.name);
            for (const auto& t : result.transfers) {
                CHECK(t.finished());
                if (!t.finished()) continue;
                if (transfer_entries.count(t.name) == 1) delivered += t.bytes.count();
                CHECK(t.fct() >= t.unloaded);
            }
            CHECK(delivered == asked);
        }
    }
    CHECK(scenarios >= 1);
}

TEST_CASE("faults-leaf-spine.yaml: each fault's damage in result.json, and the slowdown against --baseline",
          "[scenarios][faults]") {
    test::TempDir out("faults");
    const auto r = test::run_fabricsim("run scenarios/faults-leaf-spine.yaml --baseline --out " + out.path().string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("faults in variant uplink-down:") != std::string::npos);
    const auto j = nlohmann::json::parse(test::read_file(out.path() / "result.json"));
    REQUIRE(j["variants"].size() == 3);
    const auto& down = j["variants"][0];
    REQUIRE(down["faults"].size() == 1);
    const auto& f = down["faults"][0];
    CHECK(f["kind"] == "link_down");
    CHECK(f["target"] == "leaf0 - spine0");
    CHECK(f["at_s"].get<double>() == Approx(200e-6));
    CHECK(f["time_to_reconverge_s"].get<double>() == Approx(20e-6));  // the scenario's reconverge
    CHECK(f["packets_lost"].get<std::int64_t>() > 0);  // the link carried traffic when it failed
    CHECK(down["fabric"]["retransmitted_packets"].get<std::int64_t>() > 0);
    CHECK(down["fabric"]["lossless_drops"] == 0);
    // From 200 us on, leaf0 has half its uplinks: the all-reduce's cross-leaf rounds take
    // twice as long, so it must be slower than without the fault (the bound is loose: the
    // failure comes after the first 200 us).
    const auto& rows = down["baseline"];
    REQUIRE(rows.size() == 2);
    CHECK(rows[0]["what"] == "collective ar 16MiB");
    CHECK(rows[0]["slowdown"].get<double>() > 1.2);
    CHECK(rows[1]["what"] == "makespan");
    const auto& flap = j["variants"][1];
    CHECK(flap["faults"][0]["times_down"] == 5);  // flaps at 50, 250, 450, 650, 850 us (±10 us)
    const auto& storm = j["variants"][2];
    CHECK(storm["fabric"]["pfc_watchdog_triggers"].get<std::int64_t>() > 0);
    CHECK(storm["fabric"]["lossless_drops"] == 0);
    CHECK(storm["unfinished_ops"] == 0);
}
