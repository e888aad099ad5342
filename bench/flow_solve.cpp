// The flow model's rate solve on random instances (src/flow/random_system.hpp): wall time of
// one max-min solve on one core, and with --cuda on the device, plus the largest relative
// difference between the two. Then the incremental solver (incremental_max_min.hpp) on the
// same flows: one flow leaving and one arriving, re-solved locally (solve()) and as the whole
// connected component (solve_components()), the mean over 20 such changes (local) and 5
// (component; 2 at 10^6 flows). Figures in docs/BENCHMARKS.md; bench/cuda.sh runs it.
//
//   flow_solve [--cuda] FLOWS...        e.g. flow_solve --cuda 100000 1000000
//
// Exit 1 when CUDA and CPU rates differ by more than 1e-6 relative.
#include "bench_args.hpp"
#include "flow/cuda_device.hpp"
#include "flow/incremental_max_min.hpp"
#include "flow/random_system.hpp"
#include "flow/rate_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace fabricsim::flow;

namespace {
template <class F>
double best_seconds(int repeats, F&& f) {
    double best = 1e300;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}
}  // namespace

int main(int argc, char** argv) {
    const auto [cuda, sizes] = fabricsim::bench::sizes_args(argc, argv, {100'000, 1'000'000});
    std::unique_ptr<RateBackend> device;
    if (cuda) {
        const auto a = cuda_availability();
        if (!a.usable) {
            std::fprintf(stderr, "flow_solve: --cuda: %s\n", a.reason.c_str());
            return 2;
        }
        std::printf("device: %s\n", a.device.c_str());
        device = make_cuda_backend();
    }
    int status = 0;
    std::printf("%10s %10s %10s %12s %12s %9s %10s\n", "flows", "links", "uses", "cpu_ms", "cuda_ms", "speedup",
                "max_rel");
    for (std::size_t n : sizes) {
        const FlowSystem s = random_flow_system(n, n);
        CpuMaxMin cpu;
        std::vector<double> a, b;
        const int repeats = n >= 1'000'000 ? 2 : 5;
        const double t_cpu = best_seconds(repeats, [&] { cpu.solve(s, a); });
        double t_gpu = 0, worst = 0;
        if (device) {
            device->solve(s, b);  // warm: allocations, CUB scratch, module load
            t_gpu = best_seconds(repeats, [&] { device->solve(s, b); });
            for (std::size_t f = 0; f < a.size(); ++f) worst = std::max(worst, std::abs(a[f] - b[f]) / a[f]);
            if (worst > 1e-6) status = 1;
        }
        std::printf("%10zu %10zu %10zu %12.2f %12.2f %9.1f %10.2e\n", s.flows(), s.links(), s.uses(), t_cpu * 1e3,
                    t_gpu * 1e3, t_gpu > 0 ? t_cpu / t_gpu : 0.0, worst);
    }
    std::printf("\n%10s %14s %14s %14s %12s\n", "flows", "local_ms", "component_ms", "local_flows", "max_rel");
    for (std::size_t n : sizes) {
        const FlowSystem s = random_flow_system(n, n);
        CpuMaxMin cpu;
        double local_s = 0, component_s = 0, worst = 0;
        std::uint64_t local_flows = 0;
        for (int mode = 0; mode < 2; ++mode) {
            IncrementalMaxMin inc(s.capacity, cpu);
            std::vector<std::vector<LinkUse>> uses(s.flows());
            for (std::uint32_t f = 0; f < s.flows(); ++f) {
                for (auto k = s.first[f]; k < s.first[f + 1]; ++k) uses[f].push_back({s.link_of[k], s.share[k]});
                inc.add(s.weight[f], s.cap[f], uses[f]);
            }
            inc.solve_components();
            const std::uint64_t before = inc.flows_solved();
            std::vector<std::uint32_t> ids(s.flows());
            for (std::uint32_t f = 0; f < s.flows(); ++f) ids[f] = f;
            double total = 0;
            const std::uint32_t changes = mode == 0 ? 20 : n >= 1'000'000 ? 2 : 5;
            for (std::uint32_t i = 0; i < changes; ++i) {
                // Flow i*7919 % n leaves and comes back on the same links.
                const std::uint32_t f = static_cast<std::uint32_t>((i * 7919ULL) % s.flows());
                inc.remove(ids[f]);
                ids[f] = inc.add(s.weight[f], s.cap[f], uses[f]);
                const auto t0 = std::chrono::steady_clock::now();
                if (mode == 0)
                    inc.solve();
                else
                    inc.solve_components();
                total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            }
            if (mode == 0) {
                local_s = total / changes;
                local_flows = (inc.flows_solved() - before) / 20;
                // Against a fresh solve of the same flows.
                std::vector<double> fresh;
                cpu.solve(s, fresh);
                for (std::uint32_t f = 0; f < s.flows(); ++f)
                    worst = std::max(worst, std::abs(inc.rate(ids[f]) - fresh[f]) / fresh[f]);
            } else {
                component_s = total / changes;
            }
        }
        std::printf("%10zu %14.3f %14.1f %14llu %12.2e\n", s.flows(), local_s * 1e3, component_s * 1e3,
                    static_cast<unsigned long long>(local_flows), worst);
    }
    return status;
}
