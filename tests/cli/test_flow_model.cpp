// `simulation.model: flow` end to end: every shipped scenario runs on it with
// `--set simulation.model=flow` (or is refused as docs/models/flow.md says: network faults
// need packets), result.json names the backend that ran, and `flow_backend: cuda` without a
// device is bad input (exit 2).
#include <catch2/catch.hpp>

#include "cli/commands.hpp"
#include "cli/run_variant.hpp"
#include "cli_harness.hpp"
#include "core/errors.hpp"
#include "flow/cuda_device.hpp"
#include "scenario/loader.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

using namespace fabricsim;

TEST_CASE("every shipped scenario runs on the flow model or is refused for its network faults", "[scenarios][flow]") {
    const std::filesystem::path dir = std::filesystem::path(FABRICSIM_SOURCE_DIR) / "scenarios";
    scenario::LoadOptions options;
    for (const auto& d : cli::config_dirs()) options.config_dirs.emplace_back(d);
    options.sets = {"simulation.model=flow"};
    int ran = 0;
    for (const auto& file : std::filesystem::directory_iterator(dir)) {
        if (file.path().extension() != ".yaml") continue;
        INFO(file.path().filename().string());
        scenario::LoadedScenario loaded;
        try {
            loaded = scenario::load_scenario(file.path(), options);
        } catch (const ConfigError& e) {
            // The documented refusal: a link, switch or port fault needs the packet model.
            CHECK(std::string(e.what()).find("fault needs the packet model") != std::string::npos);
            continue;
        }
        for (const auto& variant : loaded.variants) {
            INFO("variant " << variant.name);
            REQUIRE(variant.spec.simulation.model == scenario::NetworkModel::flow);
            const auto result = cli::run_variant(variant);
            for (const auto& problem : result.problems) FAIL_CHECK(problem);
            CHECK(result.complete());
            CHECK(result.unfinished_ops == 0);
            CHECK(result.model == "flow");
            CHECK(result.flow_backend == "cpu");
            // No transfer beats the idle network (1 ps of rounding allowed).
            for (const auto& t : result.transfers)
                if (t.finished()) CHECK(t.fct().picoseconds() + 1 >= t.unloaded.picoseconds());
            ++ran;
        }
    }
    CHECK(ran >= 15);
}

TEST_CASE("result.json names the flow backend and cuda without a device is bad input", "[flow]") {
    test::TempDir out("flow-backend");
    const auto r = test::run_fabricsim(
        "run scenarios/roce-pfc-two-to-one.yaml --set simulation.model=flow --quiet --out " + out.path().string());
    REQUIRE(r.exit_code == 0);
    const auto json = nlohmann::json::parse(test::read_file(out.path() / "result.json"));
    const auto& variants = json.at("variants");
    REQUIRE(!variants.empty());
    CHECK(variants.at(0).at("cost").at("model") == "flow");
    CHECK(variants.at(0).at("cost").at("flow_backend") == "cpu");

    if (flow::cuda_availability().usable) return;  // a machine with a device: nothing to refuse
    const auto c = test::run_fabricsim("run scenarios/roce-pfc-two-to-one.yaml --set simulation.model=flow --set "
                                       "simulation.flow_backend=cuda --quiet --out " +
                                       out.path().string());
    CHECK(c.exit_code == 2);
    CHECK(c.output.find("simulation.flow_backend: \"cuda\" needs a CUDA device, and this run has none: ") !=
          std::string::npos);
    // auto falls back to the CPU and says so in result.json.
    const auto a = test::run_fabricsim("run scenarios/roce-pfc-two-to-one.yaml --set simulation.model=flow --set "
                                       "simulation.flow_backend=auto --quiet --out " +
                                       out.path().string());
    REQUIRE(a.exit_code == 0);
    CHECK(nlohmann::json::parse(test::read_file(out.path() / "result.json"))
              .at("variants")
              .at(0)
              .at("cost")
              .at("flow_backend") == "cpu");
}
