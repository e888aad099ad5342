// `simulation.flow_congestion` end to end (docs/models/flow.md, "Congestion control"): dcqcn
// runs on a RoCE fabric with ECN and DCQCN, is refused (exit 2) where there is no DCQCN to
// account for, and an unknown value is bad input naming the key; fluid runs on both
// technologies.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

#include <algorithm>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

using namespace fabricsim;

TEST_CASE("flow_congestion dcqcn runs on RoCE with DCQCN and is refused without it", "[flow][dcqcn-fluid]") {
    test::TempDir out("flow-congestion");
    const auto ok = test::run_fabricsim("run scenarios/roce-dcqcn-fairness.yaml --set simulation.model=flow --set "
                                        "simulation.flow_congestion=dcqcn --quiet --out " +
                                        out.path().string());
    CHECK(ok.exit_code == 0);
    // roce-pfc-two-to-one turns ECN and DCQCN off: there is no standing queue to charge.
    const auto off = test::run_fabricsim("run scenarios/roce-pfc-two-to-one.yaml --set simulation.model=flow --set "
                                         "simulation.flow_congestion=dcqcn --quiet --out " +
                                         out.path().string());
    CHECK(off.exit_code == 2);
    CHECK(off.output.find("simulation.flow_congestion: dcqcn needs a RoCE fabric with cluster.roce.ecn and "
                          "cluster.roce.dcqcn enabled") != std::string::npos);
    const auto bad = test::run_fabricsim("run scenarios/roce-dcqcn-fairness.yaml --set simulation.model=flow --set "
                                         "simulation.flow_congestion=dctcp --quiet --out " +
                                         out.path().string());
    CHECK(bad.exit_code == 2);
    CHECK(bad.output.find("simulation.flow_congestion") != std::string::npos);
    CHECK(bad.output.find("unknown flow congestion control \"dctcp\"") != std::string::npos);
}

TEST_CASE("flow_congestion fluid runs on RoCE and on InfiniBand and shows DCQCN's loss on a RoCE incast",
          "[flow][flow-congestion]") {
    // incast-roce-vs-ib: 32 hosts send 4 MiB each to one 400G port, on RoCE (PFC, ECN, DCQCN)
    // and on InfiniBand (credits, IB CC). Max-min alone finishes both at the bound 128 MiB / C;
    // with the overlay DCQCN's cuts leave the RoCE port idle for a while (as in the packet
    // model), so RoCE ends later than InfiniBand, and neither run loses a byte.
    test::TempDir out("flow-congestion-fluid");
    const auto run = test::run_fabricsim("run scenarios/incast-roce-vs-ib.yaml --set simulation.model=flow --set "
                                         "simulation.flow_congestion=fluid --quiet --out " +
                                         out.path().string());
    REQUIRE(run.exit_code == 0);
    std::ifstream in(out.path() / "result.json");
    const nlohmann::json result = nlohmann::json::parse(in);
    double roce = 0, ib = 0;
    for (const auto& v : result["variants"]) {
        CHECK(v["complete"].get<bool>());
        double last = 0;
        for (const auto& t : v["transfers"]) last = std::max(last, t["end_s"].get<double>());
        (v["name"] == "roce" ? roce : ib) = last;
    }
    CHECK(ib > 128.0 * 1024 * 1024 / (400e9 / 8));  // at least the bound at line rate
    CHECK(roce > 1.2 * ib);
}
