// What a `training` entry produced, in engine units (docs/models/training.md).
#pragma once

#include "core/units.hpp"

#include <string>

namespace fabricsim::report {

struct TrainingResult {
    std::string name;
};

}  // namespace fabricsim::report
