#include "core/errors.hpp"
#include "flow/cuda_device.hpp"
#include "flow/cuda_launch.cuh"

#include <cuda_runtime.h>

#include <string>

namespace fabricsim::flow {

namespace {

__global__ void sum_of_indices(long long n, unsigned long long* out) {
    unsigned long long local = 0;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        local += static_cast<unsigned long long>(i);
    atomicAdd(out, local);
}

}  // namespace

CudaAvailability cuda_availability() {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) return {false, "", "no usable CUDA device (" + cuda_error_text(e) + ")"};
    if (count == 0) return {false, "", "no CUDA device is present"};
    cudaDeviceProp prop{};
    cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    return {true, std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ")", ""};
}

std::int64_t cuda_sum_of_indices(std::int64_t n) {
    const CudaAvailability a = cuda_availability();
    if (!a.usable) throw ModelError(a.reason);
    unsigned long long* d_out = nullptr;
    cuda_check(cudaMalloc(&d_out, sizeof(*d_out)), "cudaMalloc");
    unsigned long long result = 0;
    try {
        cuda_check(cudaMemset(d_out, 0, sizeof(*d_out)), "cudaMemset");
        sum_of_indices<<<256, 256>>>(n, d_out);
        cuda_check(cudaGetLastError(), "kernel launch");
        cuda_check(cudaMemcpy(&result, d_out, sizeof(result), cudaMemcpyDeviceToHost), "cudaMemcpy");
    } catch (...) {
        cudaFree(d_out);
        throw;
    }
    cudaFree(d_out);
    return static_cast<std::int64_t>(result);
}

}  // namespace fabricsim::flow
