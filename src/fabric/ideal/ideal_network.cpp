#include "fabric/ideal/ideal_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "fabric/link_classes.hpp"
#include "fabric/nvls_rate.hpp"

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
    : cluster_(cluster),
      spec_(spec),
      ranks_(cluster.ranks()),
      ranks_per_server_(cluster.server.ranks()),
      nics_(cluster.server.nics),
      nic_bandwidth_(cluster.server.nic.line_rate),
      intra_bandwidth_(gpu_port_bandwidth(cluster.server,
                                          cluster.server.nic.line_rate * cluster.server.nics / cluster.server.ranks())),
      nvls_bandwidth_(
          nvls_rate(intra_bandwidth_, nvls_efficiency(nvlink_generation_number(cluster.server.nvlink.generation)))),
      latency_(spec.latency),
      nvls_(cluster.server.gpus >= 2 && cluster.server.nvlink.switches > 0 && cluster.server.nvlink.links_per_gpu > 0 &&
            nvlink_generation_number(cluster.server.nvlink.generation) >= 4),
      sharp_(cluster.fabric.technology == scenario::Technology::infiniband && cluster.fabric.switch_spec.sharp) {
    if (nic_bandwidth_ <= Bandwidth::zero() || intra_bandwidth_ <= Bandwidth::zero() || nics_ < 1)
        throw ModelError("ideal network: every NIC needs a positive line rate");
    const auto size = [](int n) { return static_cast<std::size_t>(n); };
    servers_ = cluster.servers;
    storage_fabric_ = cluster.storage_fabric.enabled;
    storage_nics_ = storage_fabric_ ? cluster.server.storage_nics : 0;
    storage_nic_bandwidth_ = cluster.server.storage_nic.line_rate;
    storage_nodes_ = cluster.storage_nodes();
    nics_per_storage_node_ = cluster.nics_per_storage_node();
    storage_node_bandwidth_ =
        storage_fabric_ ? cluster.storage_fabric.storage_node_nic.line_rate : cluster.storage.nic.line_rate;
    clients_ = cluster.clients.nodes;
    nics_per_client_ = cluster.clients.nics_per_node;
    client_bandwidth_ = cluster.clients.nic.line_rate;
    if ((storage_nics_ > 0 && storage_nic_bandwidth_ <= Bandwidth::zero()) ||
        (storage_nodes_ > 0 && (storage_node_bandwidth_ <= Bandwidth::zero() || nics_per_storage_node_ < 1)) ||
        (clients_ > 0 && (client_bandwidth_ <= Bandwidth::zero() || nics_per_client_ < 1)))
        throw ModelError("ideal network: every NIC needs a positive line rate");
    storage_nic_base_ = size(ranks_) + size(servers_) * size(nics_);
    storage_node_base_ = storage_nic_base_ + size(servers_) * size(storage_nics_);
    client_base_ = storage_node_base_ + size(storage_nodes_) * size(nics_per_storage_node_);
    const std::size_t ports = client_base_ + size(clients_) * size(nics_per_client_);
    egress_free_.assign(ports, Time::zero());
    ingress_free_.assign(ports, Time::zero());
    nic_sent_.assign(ports - static_cast<std::size_t>(ranks_), Bytes::zero());
    nic_received_.assign(ports - static_cast<std::size_t>(ranks_), Bytes::zero());
}

std::size_t IdealNetwork::server_storage_nic(int server, int nic) const {
    return storage_nic_base_ - static_cast<std::size_t>(ranks_) +
           static_cast<std::size_t>(server * storage_nics_ + nic);
}
std::size_t IdealNetwork::storage_node_nic(int node, int nic) const {
    return storage_node_base_ - static_cast<std::size_t>(ranks_) +
           static_cast<std::size_t>(node * nics_per_storage_node_ + nic);
}
std::size_t IdealNetwork::client_nic(int client, int nic) const {
    return client_base_ - static_cast<std::size_t>(ranks_) + static_cast<std::size_t>(client * nics_per_client_ + nic);
}

IdealNetwork::Port IdealNetwork::endpoint_port(RankId e, RankId peer) const {
    const int k = static_cast<int>(e.value()) - ranks_;
    if (k < storage_nodes_) {
        const int nic = static_cast<int>(peer.value() % static_cast<std::uint32_t>(nics_per_storage_node_));
        return {storage_node_base_ + static_cast<std::size_t>(k * nics_per_storage_node_ + nic),
                storage_node_bandwidth_};
    }
    const int nic = static_cast<int>(peer.value() % static_cast<std::uint32_t>(nics_per_client_));
    return {client_base_ + static_cast<std::size_t>((k - storage_nodes_) * nics_per_client_ + nic), client_bandwidth_};
}

IdealNetwork::Port IdealNetwork::rank_port(RankId r, RankId peer, std::int16_t rail) const {
    const int server = static_cast<int>(r.value()) / ranks_per_server_;
    const int local = static_cast<int>(r.value()) % ranks_per_server_;
    const bool to_storage = peer.value() >= static_cast<std::uint32_t>(ranks_) &&
                            peer.value() < static_cast<std::uint32_t>(ranks_ + storage_nodes_);
    if (to_storage && storage_fabric_)
        return {storage_nic_base_ +
                    static_cast<std::size_t>(server * storage_nics_ + local * storage_nics_ / ranks_per_server_),
                storage_nic_bandwidth_};
    const int nic = rail >= 0 ? rail % nics_ : local * nics_ / ranks_per_server_;
    return {static_cast<std::size_t>(ranks_ + server * nics_ + nic), nic_bandwidth_};
}

IdealNetwork::Route IdealNetwork::route(const Message& m) const {
    const auto is_rank = [&](RankId r) { return r.value() < static_cast<std::uint32_t>(ranks_); };
    if (is_rank(m.src) && is_rank(m.dst)) {
        const int src_server = static_cast<int>(m.src.value()) / ranks_per_server_;
        const int dst_server = static_cast<int>(m.dst.value()) / ranks_per_server_;
        if (src_server == dst_server) return {m.src.value(), m.dst.value(), intra_bandwidth_, intra_bandwidth_, false};
    }
    const auto is_storage = [&](RankId r) {
        return !is_rank(r) && r.value() < static_cast<std::uint32_t>(ranks_ + storage_nodes_);
    };
    if (storage_fabric_ && !is_rank(m.src) && !is_rank(m.dst) && is_storage(m.src) != is_storage(m.dst))
        throw ModelError(fmt::format("ideal network: no path between endpoints {} and {}: the storage nodes are on the "
                                     "storage fabric and the clients on the compute fabric",
                                     m.src.value(), m.dst.value()));
    const Port src = is_rank(m.src) ? rank_port(m.src, m.dst, m.rail) : endpoint_port(m.src, m.dst);
    const Port dst = is_rank(m.dst) ? rank_port(m.dst, m.src, m.rail) : endpoint_port(m.dst, m.src);
    return {src.index, dst.index, src.bandwidth, dst.bandwidth, true};
}

std::unique_ptr<Network> IdealNetwork::tuning_model() const { return std::make_unique<IdealNetwork>(cluster_, spec_); }

Time IdealNetwork::unloaded_time(const Message& message) const {
    const Route r = route(message);
    return latency_ + transmit_time(message.size, std::min(r.egress_bandwidth, r.ingress_bandwidth));
}

void IdealNetwork::send(Simulator& sim, const Message& message, DeliveryListener& listener) {
    const auto endpoints = static_cast<std::uint32_t>(ranks_ + storage_nodes_ + clients_);
    if (message.src.value() >= endpoints || message.dst.value() >= endpoints)
        throw InternalError(fmt::format("ideal network: message {} between endpoints {} and {} of {}",
                                        message.id.value(), message.src.value(), message.dst.value(), endpoints));
    const Route r = route(message);
    const Time tx = transmit_time(message.size, std::min(r.egress_bandwidth, r.ingress_bandwidth));
    const Time start = std::max(sim.now(), egress_free_[r.egress]);
    egress_free_[r.egress] = start + transmit_time(message.size, r.egress_bandwidth);
    const Time delivered =
        std::max(start + tx + latency_, ingress_free_[r.ingress] + transmit_time(message.size, r.ingress_bandwidth));
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
