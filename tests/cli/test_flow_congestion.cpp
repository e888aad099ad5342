// `simulation.flow_congestion` end to end (docs/models/flow.md, "Congestion control"): dcqcn
// runs on a RoCE fabric with ECN and DCQCN, is refused (exit 2) where there is no DCQCN to
// account for, and an unknown value is bad input naming the key.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

#include <string>

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
