// The DCQCN fluid model's step (src/flow/dcqcn_fluid.hpp) on random models
// (src/flow/random_fluid.hpp): wall time of one step on one core, and with --cuda on the
// device, plus the largest relative difference of the flows' rates after the timed steps. The
// CPU figure is also given in process CPU time (cpu_time_us), which a loaded machine inflates
// less than wall time.
// Figures in docs/BENCHMARKS.md; bench/cuda.sh runs it with --cuda.
//
//   fluid_step [--cuda] FLOWS...        e.g. fluid_step 1000 100000
#include "bench_args.hpp"
#include "flow/cuda_device.hpp"
#include "flow/dcqcn_fluid.hpp"
#include "flow/random_fluid.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::flow;

int main(int argc, char** argv) {
    const auto [cuda, sizes] = bench::sizes_args(argc, argv, {1'000, 100'000});
    std::unique_ptr<FluidDevice> device;
    if (cuda) {
        const auto a = cuda_availability();
        if (!a.usable) {
            std::fprintf(stderr, "fluid_step: --cuda: %s\n", a.reason.c_str());
            return 2;
        }
        std::printf("device: %s\n", a.device.c_str());
        device = make_cuda_fluid();
    }
    std::printf("%10s %10s %12s %14s %14s %14s %10s\n", "flows", "links", "steps", "cpu_us/step", "cpu_time_us",
                "cuda_us/step", "max_rel");
    for (std::size_t n : sizes) {
        // Enough steps for about a second of one core, at least 20.
        const std::uint64_t steps = std::max<std::uint64_t>(20, 200'000'000 / std::max<std::size_t>(n, 1) / 20);
        DcqcnFluid cpu = random_fluid_model(n, n, Time::ns(100));
        cpu.run(10);  // warm the caches and the history rings
        const auto t0 = std::chrono::steady_clock::now();
        const std::clock_t c0 = std::clock();
        cpu.run(steps);
        const double cpu_time_us =
            static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC * 1e6 / static_cast<double>(steps);
        const double cpu_us = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e6 /
                              static_cast<double>(steps);
        double cuda_us = 0, worst = 0;
        if (device) {
            DcqcnFluid gpu = random_fluid_model(n, n, Time::ns(100));
            gpu.run(10);
            const auto t1 = std::chrono::steady_clock::now();
            gpu.run_on(*device, steps);
            cuda_us = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count() * 1e6 /
                      static_cast<double>(steps);
            for (std::uint32_t f = 0; f < cpu.flows(); ++f)
                worst = std::max(worst, std::abs(cpu.current_rate(f) - gpu.current_rate(f)) /
                                            std::max(std::abs(cpu.current_rate(f)), 1.0));
        }
        std::printf("%10zu %10zu %12llu %14.3f %14.3f %14.3f %10.2g\n", n, cpu.links(),
                    static_cast<unsigned long long>(steps), cpu_us, cpu_time_us, cuda_us, worst);
    }
    return 0;
}
