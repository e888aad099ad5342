#include "fabric/ideal/ideal_network.hpp"

namespace fabricsim::fabric {

bool IdealNetwork::offers(Offload /*offload*/, std::span<const RankId> /*ranks*/) const { return false; }

void IdealNetwork::start_group(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) {
    Network::start_group(sim, op, listener);
}

}  // namespace fabricsim::fabric
