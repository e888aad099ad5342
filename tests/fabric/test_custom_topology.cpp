// `fabricsim topo` on scenarios/custom-400g-uplink.yaml (topology: custom), in-process: the
// summary's figures from the scenario's cables by hand, the custom graph in the JSON, and the
// GraphViz file.
#include <catch2/catch.hpp>

#include "cli/topo_command.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace fabricsim;
using Json = nlohmann::json;

namespace {

cli::TopoArgs custom_args() {
    cli::TopoArgs a;
    a.scenario.file = "scenarios/custom-400g-uplink.yaml";
    a.json = true;
    return a;
}

const Json* link_between(const Json& links, const std::string& a, const std::string& b) {
    for (const Json& l : links)
        if ((l["from"] == a && l["to"] == b) || (l["from"] == b && l["to"] == a)) return &l;
    return nullptr;
}

}  // namespace

TEST_CASE("topo --json on a custom topology: two switches, eleven 100G hosts, one 400G uplink", "[cli][topo][custom]") {
    const Json j = Json::parse(cli::topo_output(custom_args()));
    CHECK(j["variant"] == "roce");
    CHECK(j["topology"] == "custom");
    CHECK(j["requested_topology"] == "custom");
    CHECK(j["planes"] == 1);
    CHECK(j["nics"] == 11);
    // Both switches carry hosts: two leaves, nothing above them.
    CHECK(j["switches"]["leaf"] == 2);
    CHECK(j["switches"]["spine"] == 0);
    CHECK(j["links"]["fabric"] == 12);  // 11 host cables and the uplink
    // 3 m at 100G is within 100G's 5 m passive-copper reach; 30 m at 400G is optical.
    CHECK(j["cables"]["copper"] == 11);
    CHECK(j["cables"]["optical"] == 1);
    CHECK(j["cables"]["transceivers"] == 2);
    CHECK(j["link_speed_bps"] == 400'000'000'000);  // the fastest switch-switch cable
    CHECK(j["switch_ports"]["radix"] == 32);
    // Spare ports: sw0 has 32 - (9 hosts + 1 uplink), sw1 32 - (2 hosts + 1 uplink).
    CHECK(j["spare_ports"] == 22 + 29);
    // Bisection: servers 0-4 (5 NICs on sw0) against 5-10 (4 NICs on sw0, 2 behind the 400G
    // link): the first half can send at most its 5 x 100G, and the second half can take
    // 4 x 100G on sw0 plus min(400G, 2 x 100G) through sw1, 600G: so 500G.
    CHECK(j["bisection_bandwidth_bps"] == 500'000'000'000);
    // NIC - sw0 - sw1 - NIC: 3 links; 3 m + 30 m + 3 m at 5 ns/m and two 500 ns Spectrum-4s.
    CHECK(j["diameter_hops"] == 3);
    CHECK(j["max_nic_to_nic_latency_s"].get<double>() == Approx(36 * 5e-9 + 2 * 500e-9).epsilon(1e-12));
    // sw0: 9 x 100G down, 400G up.
    CHECK(j["oversubscription"]["leaf"].get<double>() == Approx(900.0 / 400.0));

    const Json& custom = j["custom_fabric"];
    REQUIRE(custom["switches"].size() == 2);
    CHECK(custom["switches"][0]["name"] == "sw0");
    CHECK(custom["switches"][0]["tier"] == "leaf");
    CHECK(custom["switches"][0]["radix"] == 32);
    CHECK(custom["switches"][0]["ports_used"] == 10);
    CHECK(custom["switches"][1]["ports_used"] == 3);
    REQUIRE(custom["links"].size() == 12);
    const Json* uplink = link_between(custom["links"], "sw0", "sw1");
    REQUIRE(uplink != nullptr);
    CHECK((*uplink)["speed_bps"] == 400'000'000'000);
    CHECK((*uplink)["length_m"].get<double>() == 30.0);
    CHECK((*uplink)["count"] == 1);
    CHECK((*uplink)["class"] == "roce-400G");
    CHECK((*uplink)["medium"] == "optical");
    const Json* host = link_between(custom["links"], "s10.nic0", "sw1");
    REQUIRE(host != nullptr);
    CHECK((*host)["speed_bps"] == 100'000'000'000);
    // Two switches: every path is at most one switch-switch hop, no dependency cycle.
    CHECK(custom["channel_dependency_cycle"].empty());

    // The InfiniBand variant: the same graph on Quantum-2 (200 ns) switches.
    REQUIRE(j["variants"].size() == 3);
    const Json& ib = j["variants"][1];
    CHECK(ib["variant"] == "infiniband");
    CHECK(ib["technology"] == "infiniband");
    CHECK(ib["max_nic_to_nic_latency_s"].get<double>() == Approx(36 * 5e-9 + 2 * 200e-9).epsilon(1e-12));
    CHECK(link_between(ib["custom_fabric"]["links"], "sw0", "sw1")->at("class") == "ib-ndr");
}

TEST_CASE("topo on a custom topology: the text says custom, and --dot draws the written cables",
          "[cli][topo][custom]") {
    const auto dir = std::filesystem::temp_directory_path() / "fabricsim-topo-custom-test";
    std::filesystem::create_directories(dir);
    cli::TopoArgs a = custom_args();
    a.json = false;
    a.variant = "roce";
    a.dot_file = (dir / "fabric.dot").string();
    const std::string text = cli::topo_output(a);
    CHECK(text.find("custom, roce, 1 plane, links at 400 Gb/s") != std::string::npos);
    CHECK(text.find("no cycle in the routing's channel dependencies") != std::string::npos);
    std::ifstream in(dir / "fabric.dot");
    std::stringstream dot;
    dot << in.rdbuf();
    CHECK(dot.str().find("\"sw0\" -- \"sw1\" [label=\"roce-400G\"]") != std::string::npos);
    CHECK(dot.str().find("\"s9\" -- \"sw1\" [label=\"roce-100G\"]") != std::string::npos);
    std::filesystem::remove_all(dir);
}
