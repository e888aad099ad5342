#include <catch2/catch.hpp>

#include "flow/cuda_device.hpp"

TEST_CASE("a CUDA kernel sums 0..n-1 exactly: n(n-1)/2", "[cuda]") {
    for (std::int64_t n : {1LL, 1000LL, 1LL << 24, 3'000'000'007LL}) {
        CHECK(fabricsim::flow::cuda_sum_of_indices(n) == n * (n - 1) / 2);
    }
}
