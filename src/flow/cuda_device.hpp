// Whether this process can use a CUDA device: the probe the flow model's `cuda` backend and
// the CUDA tests ask first. Built from cuda_device.cu when CMake found nvcc
// (FABRICSIM_CUDA=AUTO|ON), otherwise from cuda_device_none.cpp, which always says no.
#pragma once

#include <cstdint>
#include <string>

namespace fabricsim::flow {

struct CudaAvailability {
    bool usable = false;
    std::string device;  // e.g. "NVIDIA H200 (sm_90)" when usable
    std::string reason;  // why not, when !usable: a sentence a user can act on
};

CudaAvailability cuda_availability();

// Sum of 0..n-1 computed on the device by a grid-stride reduction: checks that kernels
// launch, run and return exact results. Throws ModelError when no device is usable.
std::int64_t cuda_sum_of_indices(std::int64_t n);

}  // namespace fabricsim::flow
