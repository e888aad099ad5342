// cluster.roce as the user writes it, every key present (auto, off and unset DCQCN
// overrides as `auto`), for describe(): read back, it gives the same RoceSpec.
#pragma once

#include "scenario/resolved_tree.hpp"
#include "scenario/roce_spec.hpp"

namespace fabricsim::scenario {

Value describe_roce(const RoceSpec& roce);

}  // namespace fabricsim::scenario
