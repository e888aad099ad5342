// `fabricsim topo` on the shipped topology scenario, in-process: the JSON keys of README.md's "Using it"
// with numbers from the closed forms in the scenario's header, and exit 2 for a fabric that
// cannot be built.
#include <catch2/catch.hpp>

#include "cli/commands.hpp"
#include "cli/topo_command.hpp"
#include "core/errors.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace fabricsim;
using Json = nlohmann::json;

namespace {

const std::string kScenario = "scenarios/topology-h100-leaf-spine.yaml";

cli::TopoArgs args(std::vector<std::string> sets = {}) {
    cli::TopoArgs a;
    a.scenario.file = kScenario;
    a.scenario.sets = std::move(sets);
    a.json = true;
    return a;
}

}  // namespace

TEST_CASE("topo --json: 32 HGX H100 on Spectrum-4 leaf-spine - the result keys and their closed forms", "[cli][topo]") {
    const Json j = Json::parse(cli::topo_output(args()));
    CHECK(j["schema_version"] == 1);
    CHECK(j["scenario"] == "topology-h100-leaf-spine");
    CHECK(j["variant"] == "leaf-spine");
    CHECK(j["gpus"] == 256);
    CHECK(j["nics"] == 256);
    CHECK(j["switches"]["leaf"] == 4);   // 256 NICs / 64 downlinks
    CHECK(j["switches"]["spine"] == 2);  // 4 x 64 uplinks, 32 parallel links per leaf-spine pair
    CHECK(j["switches"]["core"] == 0);
    CHECK(j["switches"]["nvswitch"] == 128);
    CHECK(j["switches"]["pcie"] == 128);
    CHECK(j["links"]["fabric"] == 512);
    CHECK(j["links"]["nvlink"] == 32 * 8 * 18);
    CHECK(j["cables"]["copper"] == 256);   // 3 m server-leaf cables at 400G
    CHECK(j["cables"]["optical"] == 256);  // 30 m leaf-spine
    CHECK(j["cables"]["transceivers"] == 512);
    CHECK(j["bisection_bandwidth_bps"] == 51'200'000'000'000);  // 128 x 400G
    CHECK(j["diameter_hops"] == 4);
    // 2 x 3 m + 2 x 30 m at 5 ns/m, and three 500 ns switches.
    CHECK(j["max_nic_to_nic_latency_s"].get<double>() == Approx(2 * 15e-9 + 2 * 150e-9 + 3 * 500e-9).epsilon(1e-12));
    CHECK(j["nvlink_per_gpu_GBps"].get<double>() == Approx(450.0));
    CHECK(j["oversubscription"]["leaf"].get<double>() == 1.0);

    REQUIRE(j["variants"].size() == 3);
    const Json& rail = j["variants"][1];
    CHECK(rail["variant"] == "rail-optimized");
    CHECK(rail["topology"] == "rail-optimized");
    CHECK(rail["switches"]["leaf"] == 8);   // one leaf per rail: 32 servers fit 64 downlinks
    CHECK(rail["switches"]["spine"] == 2);  // 32 uplinks per rail leaf at 1:1, 16 to each spine
    CHECK(rail["oversubscription"]["leaf"].get<double>() == 1.0);
    CHECK(rail["links"]["fabric"] == 256 + 8 * 32);
    CHECK(rail["bisection_bandwidth_bps"] == 51'200'000'000'000);
    const Json& over = j["variants"][2];
    CHECK(over["switch_ports"]["leaf_down"] == 84);  // 128 ports at 2:1: 84 / 42 / 2 spare
    CHECK(over["switch_ports"]["leaf_up"] == 42);
    CHECK(over["switch_ports"]["leaf_spare"] == 2);
    CHECK(over["oversubscription"]["leaf"].get<double>() == 2.0);
}

TEST_CASE("topo prints one text block per variant and writes a GraphViz file per variant", "[cli][topo]") {
    const auto dir = std::filesystem::temp_directory_path() / "fabricsim-topo-test";
    std::filesystem::create_directories(dir);
    cli::TopoArgs a = args();
    a.json = false;
    a.dot_file = (dir / "fabric.dot").string();
    const std::string text = cli::topo_output(a);
    CHECK(text.find("variant leaf-spine\n") != std::string::npos);
    CHECK(text.find("variant oversubscribed\n") != std::string::npos);
    CHECK(text.find("51.2 Tb/s (one direction)") != std::string::npos);
    std::ifstream in(dir / "fabric.rail-optimized.dot");
    std::stringstream dot;
    dot << in.rdbuf();
    CHECK(dot.str().rfind("graph fabricsim {", 0) == 0);
    // Servers collapsed: s0 joins each of the 8 rail leaves once.
    CHECK(dot.str().find("\"leaf0\" -- \"s0\" [label=\"roce-400G\"]") != std::string::npos);
    CHECK(dot.str().find("s0.gpu0") == std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("topo: a cluster too large for the switches exits 2 naming the largest buildable size",
          "[cli][topo][errors]") {
    cli::TopoArgs a = args({"cluster.servers=1100"});
    a.variant = "leaf-spine";
    try {
        (void)cli::topo_output(a);
        FAIL("no error");
    } catch (const ConfigError& e) {
        const cli::Failure f = cli::describe_failure(e);
        CHECK(f.exit_code == 2);
        CHECK(f.text ==
              kScenario +
                  ": cluster.servers: 1100 servers with 8 NICs each need 8800 endpoints; a leaf-spine fabric of "
                  "128-port switches at 1:1 holds at most 8192 endpoints (1024 servers); it would fit with topology: "
                  "fat-tree, planes: 2 or switches with 256 ports at this link rate (variant \"leaf-spine\")\n"
                  "fabricsim: 1 error in the input\n");
    }
    // At 2:1 the leaves have 84 downlinks: 128 x 84 = 10752 endpoints fit.
    cli::TopoArgs over = args({"cluster.servers=1100"});
    over.variant = "oversubscribed";
    CHECK(Json::parse(cli::topo_output(over))["nics"] == 8800);
}
