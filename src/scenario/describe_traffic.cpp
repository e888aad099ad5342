#include "scenario/describe_entries.hpp"

namespace fabricsim::scenario {

void describe_traffic(const TrafficSpec& /*traffic*/, Value::Map& entry) { entry.push_back({"traffic", Value{Value::Map{}}}); }

}  // namespace fabricsim::scenario
