#include <catch2/catch.hpp>

#include "flow/random_system.hpp"
#include "flow/rate_backend.hpp"

#include <cmath>

using namespace fabricsim::flow;

TEST_CASE("CUDA and CPU max-min rates agree to 1e-6 relative on random instances", "[cuda][flow]") {
    // The same rules (flow_rules.hpp) in both; only the order of the sums differs.
    auto cuda = make_cuda_backend();
    CpuMaxMin cpu;
    for (std::size_t flows : {1'000u, 10'000u, 100'000u, 1'000'000u}) {
        INFO(flows << " flows");
        const FlowSystem s = random_flow_system(flows, flows);
        std::vector<double> a, b;
        cpu.solve(s, a);
        cuda->solve(s, b);
        REQUIRE(a.size() == b.size());
        std::size_t worst = 0;
        double worst_err = 0;
        for (std::size_t f = 0; f < a.size(); ++f) {
            const double err = std::abs(a[f] - b[f]) / a[f];
            if (err > worst_err) {
                worst_err = err;
                worst = f;
            }
        }
        INFO("worst flow " << worst << ": cpu " << a[worst] << " cuda " << b[worst]);
        CHECK(worst_err <= 1e-6);
    }
}
