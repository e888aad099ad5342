#include "scenario/describe_entries.hpp"

namespace fabricsim::scenario {

void describe_training(const TrainingSpec& /*training*/, Value::Map& entry) { entry.push_back({"training", Value{Value::Map{}}}); }

}  // namespace fabricsim::scenario
