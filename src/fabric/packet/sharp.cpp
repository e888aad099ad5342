// SHARP on the packet model: not offered yet.
#include "fabric/packet/packet_network.hpp"

#include "core/errors.hpp"

namespace fabricsim::fabric {

bool PacketNetwork::offers_sharp(std::span<const RankId>) const { return false; }

void PacketNetwork::start_sharp(Simulator&, const GroupOperation&, DeliveryListener&) {
    throw InternalError("packet model: SHARP is not offered");
}

}  // namespace fabricsim::fabric
