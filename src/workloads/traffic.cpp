#include "workloads/traffic.hpp"

#include "core/errors.hpp"

namespace fabricsim::workloads {

TrafficPlan add_traffic(OpGraph& /*graph*/, std::uint32_t /*entry*/, const scenario::TrafficSpec& /*spec*/,
                        const scenario::ClusterSpec& /*cluster*/, std::uint64_t /*seed*/) {
    throw InternalError("traffic entries are not built yet");
}

}  // namespace fabricsim::workloads
