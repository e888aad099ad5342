#include "fabric/ideal/ideal_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/link_classes.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::fabric {

namespace {
Bandwidth gpu_port_bandwidth(const scenario::ServerSpec& server, Bandwidth nic_share) {
    const auto& nv = server.nvlink;
    if (server.gpus < 2 || nv.links_per_gpu == 0) return nic_share;
    // link_bandwidth zero ("auto") is the generation's rate (docs/models/links.md).
    return nvlink_class(nv.generation, nv.link_bandwidth).bandwidth * nv.links_per_gpu;
}
}  // namespace

IdealNetwork::IdealNetwork(const scenario::ClusterSpec& cluster, const scenario::IdealNetworkSpec& spec)
    : ranks_(cluster.ranks()),
      ranks_per_server_(cluster.server.ranks()),
      nics_(cluster.server.nics),
      nic_bandwidth_(cluster.server.nic.line_rate),
      intra_bandwidth_(gpu_port_bandwidth(cluster.server, cluster.server.nic.line_rate * cluster.server.nics /
                                                                  cluster.server.ranks())),
      latency_(spec.latency) {
    if (nic_bandwidth_ <= Bandwidth::zero() || intra_bandwidth_ <= Bandwidth::zero() || nics_ < 1)
        throw ModelError("ideal network: every NIC needs a positive line rate");
    const std::size_t ports = static_cast<std::size_t>(ranks_) + static_cast<std::size_t>(cluster.servers) * static_cast<std::size_t>(nics_);
    egress_free_.assign(ports, Time::zero());
    ingress_free_.assign(ports, Time::zero());
    nic_sent_.assign(ports - static_cast<std::size_t>(ranks_), Bytes::zero());
    nic_received_.assign(ports - static_cast<std::size_t>(ranks_), Bytes::zero());
}

IdealNetwork::Route IdealNetwork::route(const Message& m) const {
    const int src_server = static_cast<int>(m.src.value()) / ranks_per_server_;
    const int dst_server = static_cast<int>(m.dst.value()) / ranks_per_server_;
    if (src_server == dst_server) return {m.src.value(), m.dst.value(), intra_bandwidth_, false};
    const auto own_nic = [&](RankId r) { return static_cast<int>(r.value()) % ranks_per_server_ * nics_ / ranks_per_server_; };
    const int src_nic = m.rail >= 0 ? m.rail % nics_ : own_nic(m.src);
    const int dst_nic = m.rail >= 0 ? m.rail % nics_ : own_nic(m.dst);
    return {static_cast<std::size_t>(ranks_ + src_server * nics_ + src_nic),
            static_cast<std::size_t>(ranks_ + dst_server * nics_ + dst_nic), nic_bandwidth_, true};
}

Time IdealNetwork::unloaded_time(const Message& message) const {
    return latency_ + transmit_time(message.size, route(message).bandwidth);
}

void IdealNetwork::send(Simulator& sim, const Message& message, DeliveryListener& listener) {
    if (message.src.value() >= static_cast<std::uint32_t>(ranks_) ||
        message.dst.value() >= static_cast<std::uint32_t>(ranks_))
        throw InternalError(fmt::format("ideal network: message {} between ranks {} and {} of {}",
                                        message.id.value(), message.src.value(), message.dst.value(), ranks_));
    const Route r = route(message);
    const Time tx = transmit_time(message.size, r.bandwidth);
    const Time start = std::max(sim.now(), egress_free_[r.egress]);
    egress_free_[r.egress] = start + tx;
    const Time delivered = std::max(start + tx + latency_, ingress_free_[r.ingress] + tx);
    ingress_free_[r.ingress] = delivered;
    if (r.fabric) {
        nic_sent_[r.egress - static_cast<std::size_t>(ranks_)] += message.size;
        nic_received_[r.ingress - static_cast<std::size_t>(ranks_)] += message.size;
    }

    sim.at(delivered, *this, park(message.id, listener));
}

std::uint32_t IdealNetwork::park(MessageId id, DeliveryListener& listener) {
    if (free_slots_.empty()) {
        in_flight_.push_back({id, &listener});
        return static_cast<std::uint32_t>(in_flight_.size() - 1);
    }
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    in_flight_[slot] = {id, &listener};
    return slot;
}

void IdealNetwork::on_event(Simulator& sim, std::uint64_t slot) {
    const InFlight done = in_flight_[slot];
    free_slots_.push_back(static_cast<std::uint32_t>(slot));
    done.listener->on_delivered(sim, done.id);
}

}  // namespace fabricsim::fabric
