// CUDA tests: with no usable device they print why and exit 77, which ctest reports as
// skipped (SKIP_RETURN_CODE); Catch2 v2 has no SKIP().
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "flow/cuda_device.hpp"

#include <cstdio>

int main(int argc, char** argv) {
    const auto cuda = fabricsim::flow::cuda_availability();
    if (!cuda.usable) {
        std::printf("SKIPPED: CUDA tests need a device: %s\n", cuda.reason.c_str());
        return 77;
    }
    std::printf("CUDA device: %s\n", cuda.device.c_str());
    return Catch::Session().run(argc, argv);
}
