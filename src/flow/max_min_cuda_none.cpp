// The CUDA rate backend of a build without CUDA: never available (cuda_device_none.cpp says why).
#include "core/errors.hpp"
#include "flow/cuda_device.hpp"
#include "flow/rate_backend.hpp"

namespace fabricsim::flow {

std::unique_ptr<RateBackend> make_cuda_backend() { throw ModelError(cuda_availability().reason); }

}  // namespace fabricsim::flow
