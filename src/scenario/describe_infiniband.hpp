// cluster.infiniband as the user writes it, every key present (`auto` where the value is
// worked out later), for describe(): read back, it gives the same InfinibandSpec.
#pragma once

#include "scenario/infiniband_spec.hpp"
#include "scenario/resolved_tree.hpp"

namespace fabricsim::scenario {

Value describe_infiniband(const InfinibandSpec& infiniband);

}  // namespace fabricsim::scenario
