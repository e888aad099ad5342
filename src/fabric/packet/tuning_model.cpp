// The α–β model `algorithm: auto` estimates on when the packet model runs (collective_tuner.hpp):
// the ideal network of the same cluster, its latency the packet model's own unloaded time of
// an empty message between the first and the last rank (across the fabric when there is one).
// NCCL's tuner likewise sees the topology's rates and latencies, not its contention.
#include "fabric/ideal/ideal_network.hpp"
#include "fabric/packet/packet_network.hpp"

namespace fabricsim::fabric {

std::unique_ptr<Network> PacketNetwork::tuning_model() const {
    if (!spec_.cluster || spec_.cluster->ranks() < 1) return nullptr;
    Message m;
    m.src = RankId{0};
    m.dst = RankId{static_cast<std::uint32_t>(spec_.cluster->ranks() - 1)};
    m.size = Bytes::zero();
    return std::make_unique<IdealNetwork>(*spec_.cluster, scenario::IdealNetworkSpec{unloaded_time(m)});
}

}  // namespace fabricsim::fabric
