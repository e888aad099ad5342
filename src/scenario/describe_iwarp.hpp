// cluster.iwarp as the user writes it, every key present, for describe(): read back, it gives
// the same IwarpSpec (only for an iWARP fabric; elsewhere the section is absent).
#pragma once

#include "scenario/iwarp_spec.hpp"
#include "scenario/resolved_tree.hpp"

namespace fabricsim::scenario {

Value describe_iwarp(const IwarpSpec& iwarp);

}  // namespace fabricsim::scenario
