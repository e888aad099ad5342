// Random max-min instances for the backend agreement tests and the solve benchmark: `flows`
// flows over flows/8 links (at least 16), each crossing 2 to 6 distinct links, a tenth of
// the links at a tenth of the rate (hot spots, so many levels), one flow in ten capped.
// Deterministic for a seed.
#pragma once

#include "flow/flow_system.hpp"

#include <cstdint>

namespace fabricsim::flow {

FlowSystem random_flow_system(std::uint64_t seed, std::size_t flows);

}  // namespace fabricsim::flow
