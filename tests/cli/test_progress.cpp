// What a front end hears of a run's progress (cli/run_variant.hpp): a streamed collective's
// op total is known in closed form from the first report, before any op is built, and so is a
// training job's, whose steps are made as the run reaches them.
#include <catch2/catch.hpp>

#include "cli/commands.hpp"
#include "cli/run_variant.hpp"
#include "scenario/loader.hpp"

#include <filesystem>
#include <string>
#include <vector>

using namespace fabricsim;

namespace {

scenario::Variant variant_of(const std::string& text) {
    scenario::LoadOptions o;
    o.config_dirs = {std::filesystem::path(FABRICSIM_SOURCE_DIR) / "configs"};
    const auto loaded = scenario::load_scenario_text(text, "p.yaml", o);
    REQUIRE(loaded.variants.size() == 1);
    return loaded.variants.front();
}

}  // namespace

TEST_CASE("a streamed all-reduce reports its whole op count from its first progress report", "[progress]") {
    // 2 HGX H100 servers: 16 ranks in 16 channels; 1GiB: each channel's 64MiB in 8 loops of
    // 16 x 512KiB, each loop 2(n-1) = 30 rounds of 16 sends: 16 x 8 x 30 x 16 = 61440 sends
    // and the run's join, 61441 ops, known before the first of them is made.
    const auto variant = variant_of("name: p\nsimulation: { model: ideal }\ncluster: { servers: 2, server: hgx-h100 }\n"
                                    "workload:\n  - collective: all_reduce\n    algorithm: ring\n    size: 1GiB\n");
    std::vector<std::pair<std::size_t, std::size_t>> reports;
    cli::VariantOptions options;
    options.progress = [&](Time, std::size_t done, std::size_t total) { reports.emplace_back(done, total); };
    const auto result = cli::run_variant(variant, options);
    REQUIRE(result.unfinished_ops == 0);
    REQUIRE(reports.size() >= 2);
    CHECK(reports.front().second == 61441);
    CHECK(reports.front().first < reports.front().second);
    for (std::size_t i = 1; i < reports.size(); ++i) CHECK(reports[i].first >= reports[i - 1].first);
}

TEST_CASE("a training job reports its whole op count from its first progress report, with nothing built before",
          "[progress]") {
    const auto variant = variant_of("name: p\nsimulation: { model: ideal }\ncluster: { servers: 2, server: hgx-h100 }\n"
                                    "workload:\n  - name: job\n    training:\n"
                                    "      model: { parameters: 7B, layers: 32, hidden: 4096, sequence: 2048 }\n"
                                    "      batch: { global: 64, micro: 1 }\n"
                                    "      gpu: { peak: 989TFLOPS, mfu: 0.4 }\n"
                                    "      parallelism: { tp: 8, pp: 2, dp: 1 }\n");
    // 64 micro-batches: enough events for progress reports (a few thousand events apart).
    std::vector<std::size_t> built;
    std::vector<std::pair<std::size_t, std::size_t>> reports;
    cli::VariantOptions options;
    options.building = [&](std::size_t ops) { built.push_back(ops); };
    options.progress = [&](Time, std::size_t done, std::size_t total) { reports.emplace_back(done, total); };
    const auto result = cli::run_variant(variant, options);
    REQUIRE(result.unfinished_ops == 0);
    REQUIRE(result.training.size() == 1);
    CHECK(built.empty());  // no graph is built before the run
    REQUIRE(!reports.empty());
    // The job is the run's only entry: the first report's total is the job's op count, which
    // the run then finishes.
    CHECK(reports.front().second == static_cast<std::size_t>(result.training.front().ops));
    CHECK(reports.front().first < reports.front().second);
    for (std::size_t i = 1; i < reports.size(); ++i) CHECK(reports[i].first >= reports[i - 1].first);
}
