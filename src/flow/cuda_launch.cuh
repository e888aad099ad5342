// What every CUDA file of the flow model shares: turning a runtime error into a ModelError that
// names the call, and the 1-D launch shape of its element-wise kernels. CUDA sources only.
#pragma once

#include "core/errors.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>

namespace fabricsim::flow {

inline std::string cuda_error_text(cudaError_t e) {
    return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

// Throws ModelError "CUDA <what> failed: <name>: <text>" unless `e` is cudaSuccess.
inline void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw ModelError(std::string("CUDA ") + what + " failed: " + cuda_error_text(e));
}

constexpr int kCudaThreads = 256;
// Blocks of kCudaThreads covering n elements, within the 65535 a grid dimension allows (the
// kernels stride over what a capped grid does not reach).
inline int cuda_blocks(std::size_t n) {
    return static_cast<int>(std::clamp<std::size_t>((n + kCudaThreads - 1) / kCudaThreads, 1, 65535));
}

}  // namespace fabricsim::flow
