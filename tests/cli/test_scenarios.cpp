// Every scenario shipped in scenarios/ runs, in-process, and obeys the invariants every run
// must: all ops finish, bytes are conserved, no transfer beats the idle network, no lossless
// drop.
#include <catch2/catch.hpp>

#include "cli/commands.hpp"
#include "cli/run_variant.hpp"
#include "scenario/loader.hpp"

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
