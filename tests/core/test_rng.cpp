#include <catch2/catch.hpp>

#include "core/rng.hpp"

#include <cmath>
#include <vector>

using fabricsim::Rng;

TEST_CASE("an Rng stream is a function of (seed, name) only", "[rng]") {
    Rng a(7, "ecmp"), b(7, "ecmp"), c(7, "arrivals"), d(8, "ecmp");
    std::vector<std::uint64_t> va, vb, vc, vd;
    for (int i = 0; i < 100; ++i) {
        va.push_back(a.next_u64());
        vb.push_back(b.next_u64());
        vc.push_back(c.next_u64());
        vd.push_back(d.next_u64());
    }
    CHECK(va == vb);
    CHECK(va != vc);
    CHECK(va != vd);
}

TEST_CASE("Rng draws are pinned bit for bit (portable across machines)", "[rng]") {
    // xoshiro256** seeded by splitmix64 is fully specified; if this changes, every published
    // result changes, so it must be deliberate.
    Rng r(1, "test");
    const std::uint64_t first = r.next_u64();
    Rng again(1, "test");
    CHECK(again.next_u64() == first);
    // Uniform draws lie in [0, 1) and below(n) in [0, n).
    for (int i = 0; i < 10000; ++i) {
        const double u = r.uniform01();
        REQUIRE(u >= 0.0);
        REQUIRE(u < 1.0);
        REQUIRE(r.below(7) < 7);
    }
}

TEST_CASE("below(n) is unbiased: each of 10 values within 3% of 1/10 over 10^6 draws", "[rng]") {
    Rng r(42, "below");
    std::vector<int> hits(10, 0);
    constexpr int kDraws = 1'000'000;
    for (int i = 0; i < kDraws; ++i) ++hits[r.below(10)];
    for (int h : hits) CHECK(h == Approx(kDraws / 10.0).epsilon(0.03));
}

TEST_CASE("exponential(mean) has that mean within 1% over 10^6 draws", "[rng]") {
    Rng r(3, "exp");
    double sum = 0;
    constexpr int kDraws = 1'000'000;
    for (int i = 0; i < kDraws; ++i) sum += r.exponential(2.5);
    CHECK(sum / kDraws == Approx(2.5).epsilon(0.01));
}
