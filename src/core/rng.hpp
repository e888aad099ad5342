// A named random stream: xoshiro256** (Blackman & Vigna, 2018) seeded through splitmix64.
//
// Standard-library distributions are not specified bit-for-bit, so the same seed could give
// other numbers with another library; these few draws are written out here so a run is
// bit-identical on any machine (docs/ARCHITECTURE.md).
#pragma once

#include <cstdint>
#include <string_view>

namespace fabricsim {

class Rng {
public:
    // The stream for (seed, name): two components asking different names never share draws.
    Rng(std::uint64_t seed, std::string_view stream);

    std::uint64_t next_u64();
    // Uniform in [0, 1) with 53 random bits.
    double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
    // Uniform in [0, n), unbiased (Lemire's multiply-and-reject). Precondition: n > 0.
    std::uint64_t below(std::uint64_t n);
    // Exponential with the given mean, by inversion.
    double exponential(double mean);

private:
    std::uint64_t s_[4];
};

}  // namespace fabricsim
