#include "core/network.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

namespace fabricsim {

std::string_view to_string(Offload offload) {
    switch (offload) {
        case Offload::nvswitch_multicast: return "nvswitch_multicast";
        case Offload::nvswitch_reduce: return "nvswitch_reduce";
        case Offload::switch_aggregation: return "switch_aggregation";
        case Offload::ring_channel: return "ring_channel";
    }
    return "unknown";
}

void Network::start_group(Simulator& /*sim*/, const GroupOperation& op, DeliveryListener& /*listener*/) {
    throw ModelError(fmt::format("the {} network model does not offer {} over these {} ranks", model_name(),
                                 to_string(op.offload), op.ranks.size()));
}

}  // namespace fabricsim
