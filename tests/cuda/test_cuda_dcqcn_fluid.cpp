#include <catch2/catch.hpp>

#include "flow/dcqcn_fluid.hpp"
#include "flow/random_fluid.hpp"

#include <cmath>

using namespace fabricsim;
using namespace fabricsim::flow;

TEST_CASE("CUDA and CPU DCQCN fluid steps agree to 1e-6 relative on random models", "[cuda][flow][dcqcn-fluid]") {
    // The same rules (dcqcn_fluid_rules.hpp) in both and the same order of every sum; only
    // the device's fused multiply-adds round differently. 2,000 steps of 100 ns (200 µs: the
    // queues fill, marks come, rates are cut and back-pressure holds some links).
    auto device = make_cuda_fluid();
    for (std::size_t flows : {1'000u, 100'000u}) {
        INFO(flows << " flows");
        DcqcnFluid cpu = random_fluid_model(flows, flows, Time::ns(100));
        DcqcnFluid gpu = random_fluid_model(flows, flows, Time::ns(100));
        cpu.run(2000);
        gpu.run_on(*device, 2000);
        REQUIRE(gpu.steps() == cpu.steps());
        auto rel = [](double a, double b) { return std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1.0}); };
        double worst = 0;
        for (std::uint32_t f = 0; f < cpu.flows(); ++f) {
            worst = std::max({worst, rel(cpu.current_rate(f), gpu.current_rate(f)),
                              rel(cpu.target_rate(f), gpu.target_rate(f)), rel(cpu.sending(f), gpu.sending(f)),
                              rel(cpu.bytes_left(f), gpu.bytes_left(f))});
            CHECK(std::abs(cpu.alpha(f) - gpu.alpha(f)) <= 1e-6);
        }
        for (std::uint32_t l = 0; l < cpu.links(); ++l) worst = std::max(worst, rel(cpu.queue(l), gpu.queue(l)));
        CHECK(worst <= 1e-6);
    }
}
