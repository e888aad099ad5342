#include "core/errors.hpp"
#include "flow/cuda_device.hpp"

namespace fabricsim::flow {

CudaAvailability cuda_availability() {
    return {false, "", "this fabricsim was built without CUDA (FABRICSIM_CUDA=OFF, or nvcc was not found)"};
}

std::int64_t cuda_sum_of_indices(std::int64_t /*n*/) { throw ModelError(cuda_availability().reason); }

}  // namespace fabricsim::flow
