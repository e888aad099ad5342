// The per-element arithmetic of max-min water-filling, written once for both backends: the
// CPU solver (max_min_cpu.cpp) and the CUDA kernels (max_min_cuda.cu) call these same inline
// functions, so the CPU tests exercise the arithmetic the device runs. FABRICSIM_HD is
// `__host__ __device__` under nvcc and empty for the host compiler.
//
// Progressive filling (Bertsekas & Gallager, "Data Networks", 2nd ed., 1992, §6.5.2): raise
// every unfrozen flow's rate in proportion to its weight until a link saturates or a flow
// reaches its cap; freeze the flows so bound; subtract what they use; repeat. In SimGrid's
// linear max-min form (SimGrid 3.18 documentation, "SURF Linear MaxMin") a flow f with weight
// w_f and rate x_f = w_f·λ_f puts a_fl·x_f on link l (a_fl: the share of its bytes crossing
// l, 1 on a plain path, 1/k where it stripes over k links), and
//
//   link level    λ_l = remaining_l / Σ_{f unfrozen on l} a_fl·w_f      (inf with no load)
//   flow level    λ_f = min( cap_f / w_f , min_{l ∋ f} λ_l )
//   bottleneck    λ*  = min over unfrozen flows of λ_f
//   freeze        every unfrozen f with λ_f <= λ*·(1 + kLevelTolerance): x_f = w_f·λ*
//                 (never above cap_f)
//   subtract      remaining_l -= a_fl·x_f,  load_l -= a_fl·w_f   (clamped at zero)
//
// Levels only rise from round to round (a frozen flow at λ* leaves every other link's level
// at or above λ*), which is what makes freezing at the current minimum exact.
#pragma once

#ifdef __CUDACC__
#define FABRICSIM_HD __host__ __device__
#else
#define FABRICSIM_HD
#endif

namespace fabricsim::flow {

// Relative slack under which two levels count as one bottleneck: far above the rounding of
// the sums (1e-16 per term) and far below any difference of link rates that matters.
inline constexpr double kLevelTolerance = 1e-9;
// A load below this (bytes/s per unit weight) is no load: the link constrains nobody.
inline constexpr double kNoLoad = 1e-30;
inline constexpr double kInfiniteLevel = 1e300;

FABRICSIM_HD inline double link_level(double remaining, double load) {
    return load > kNoLoad ? (remaining > 0 ? remaining : 0.0) / load : kInfiniteLevel;
}

FABRICSIM_HD inline double cap_level(double cap, double weight) { return cap / weight; }

FABRICSIM_HD inline double min_level(double a, double b) { return a < b ? a : b; }

FABRICSIM_HD inline bool freezes(double flow_level, double bottleneck) {
    return flow_level <= bottleneck * (1.0 + kLevelTolerance);
}

FABRICSIM_HD inline double frozen_rate(double weight, double bottleneck, double cap) {
    const double r = weight * bottleneck;
    return r < cap ? r : cap;
}

// What a link has left after a frozen flow takes `used` of it (never below zero).
FABRICSIM_HD inline double after_use(double remaining, double used) {
    const double r = remaining - used;
    return r > 0 ? r : 0.0;
}

}  // namespace fabricsim::flow
