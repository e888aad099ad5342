#include "fabric/ideal/ideal_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"

#include <fmt/format.h>

namespace fabricsim::fabric {

IdealNetwork::IdealNetwork(const scenario::ClusterSpec& cluster, const scenario::IdealNetworkSpec& spec)
    : ranks_(cluster.ranks()),
      rank_bandwidth_(cluster.server.nic.line_rate * cluster.server.nics / cluster.server.ranks()),
      latency_(spec.latency) {
    if (rank_bandwidth_ <= Bandwidth::zero())
        throw ModelError("ideal network: each rank needs a positive NIC bandwidth");
}

Time IdealNetwork::unloaded_time(const Message& message) const {
    // Every rank has the same share today; min(B_src, B_dst) is that share.
    return latency_ + transmit_time(message.size, rank_bandwidth_);
}

void IdealNetwork::send(Simulator& sim, const Message& message, DeliveryListener& listener) {
    if (message.src.value() >= static_cast<std::uint32_t>(ranks_) ||
        message.dst.value() >= static_cast<std::uint32_t>(ranks_))
        throw InternalError(fmt::format("ideal network: message {} between ranks {} and {} of {}",
                                        message.id.value(), message.src.value(), message.dst.value(), ranks_));
    std::uint32_t slot;
    if (free_slots_.empty()) {
        slot = static_cast<std::uint32_t>(in_flight_.size());
        in_flight_.push_back({message.id, &listener});
    } else {
        slot = free_slots_.back();
        free_slots_.pop_back();
        in_flight_[slot] = {message.id, &listener};
    }
    sim.after(unloaded_time(message), *this, slot);
}

void IdealNetwork::on_event(Simulator& sim, std::uint64_t slot) {
    const InFlight done = in_flight_[slot];
    free_slots_.push_back(static_cast<std::uint32_t>(slot));
    done.listener->on_delivered(sim, done.id);
}

}  // namespace fabricsim::fabric
