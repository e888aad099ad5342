// Where the DCQCN fluid model (dcqcn_fluid.hpp) steps when not on the host: a CUDA device
// (dcqcn_fluid_cuda.cu; dcqcn_fluid_cuda_none.cpp in a build without CUDA). Plain types only,
// so nvcc compiles it in its own C++ dialect.
#pragma once

#include "flow/dcqcn_fluid_rules.hpp"

#include <cstdint>
#include <memory>

namespace fabricsim::flow {

// upload() copies a model's arrays (`host`, as DcqcnFluid::arrays() gives them) with its
// parameters, step h (seconds) and step count; run() steps them on the device, where they
// stay between calls; download() copies the state back into `host` and returns the steps run
// since the upload.
class FluidDevice {
public:
    virtual ~FluidDevice() = default;
    virtual void upload(const FluidArrays& host, const FluidParams& params, double h, std::uint64_t step) = 0;
    virtual void run(std::uint64_t n) = 0;
    virtual std::uint64_t download(const FluidArrays& host) = 0;
};

// Throws ModelError with the reason when no device is usable (a build without CUDA, no
// device, an error of the device query).
std::unique_ptr<FluidDevice> make_cuda_fluid();

}  // namespace fabricsim::flow
