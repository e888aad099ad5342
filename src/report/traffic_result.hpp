// What a `traffic` entry produced, in engine units (docs/models/traffic.md).
#pragma once

#include "core/units.hpp"

#include <string>

namespace fabricsim::report {

struct TrafficResult {
    std::string name;
};

}  // namespace fabricsim::report
