#include "workloads/training.hpp"

#include "core/errors.hpp"

namespace fabricsim::workloads {

TrainingPlan add_training(OpGraph& /*graph*/, std::uint32_t /*entry*/, const scenario::TrainingSpec& /*spec*/,
                          const scenario::ClusterSpec& /*cluster*/, const Network& /*network*/, std::uint64_t /*seed*/) {
    throw InternalError("training entries are not built yet");
}

}  // namespace fabricsim::workloads
