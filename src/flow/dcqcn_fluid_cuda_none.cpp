// The DCQCN fluid model's CUDA step in a build without CUDA: never available
// (cuda_device_none.cpp says why).
#include "core/errors.hpp"
#include "flow/cuda_device.hpp"
#include "flow/dcqcn_fluid_device.hpp"

namespace fabricsim::flow {

std::unique_ptr<FluidDevice> make_cuda_fluid() { throw ModelError(cuda_availability().reason); }

}  // namespace fabricsim::flow
