// Random DCQCN fluid models (dcqcn_fluid.hpp) for the CPU-vs-CUDA test and the step benchmark:
// the links and paths of random_flow_system() (random_system.hpp), each link with the
// NIC-style RED thresholds at its rate and one in four with a back-pressure limit of Kmax,
// flows at a line rate of 100 to 400 Gb/s starting at it, feedback delays of 1 to 8 µs, one
// in four with 1 MB to send (so some finish), the NIC DCQCN preset at 100 Gb/s. Deterministic
// for a seed.
#pragma once

#include "flow/dcqcn_fluid.hpp"

#include <cstdint>

namespace fabricsim::flow {

DcqcnFluid random_fluid_model(std::uint64_t seed, std::size_t flows, Time step);

}  // namespace fabricsim::flow
