// In-network collectives on the ideal network (docs/models/ideal.md).
//
// NVLS: offered when every rank of the group is a GPU of one server whose NVSwitches do
// NVLink SHARP — NVLink4 (Hopper) and later; A100's NVSwitch does not (NCCL 2.17 release
// notes: NVLS needs H100 and third-generation NVSwitch). SHARP: offered across servers, one
// rank per server, when the fabric is InfiniBand built of switches with `sharp: true`.
//
// A group operation occupies every member's port — the GPU's NVLink for NVLS, the NIC on
// the operation's rail for SHARP — for its egress and ingress bytes at that port's rate, all
// members together, and completes one latency after the slowest port:
//
//   start = max(now, egress_free of every member)
//   done  = max(start + max(egress, ingress)/B + latency, ingress_free of every member + ingress/B)
//
// B is the NIC's line rate for SHARP. For NVLS it is the GPU's NVLink payload rate times NCCL's
// nvlsEfficiency for the generation (0.85 on NVLink4): the multimem load-reduce and store path
// moves bytes about 15 % slower than the ring's writes, measured per GPU port and constant in
// the group size (fabric/nvls_rate.hpp gives the measurements and sources). The switches'
// reduction ALUs do not bind and are not modelled; nor is SHARP's aggregation throughput,
// which NVIDIA publishes no figure for below the ports' rate.
#include "fabric/ideal/ideal_network.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace fabricsim::fabric {

bool IdealNetwork::offers(Offload offload, std::span<const RankId> ranks) const {
    if (ranks.size() < 2) return false;
    for (RankId r : ranks)
        if (r.value() >= static_cast<std::uint32_t>(ranks_)) return false;
    const auto server = [&](RankId r) { return static_cast<int>(r.value()) / ranks_per_server_; };
    switch (offload) {
        case Offload::nvswitch_multicast:
        case Offload::nvswitch_reduce:
            return nvls_ &&
                   std::all_of(ranks.begin(), ranks.end(), [&](RankId r) { return server(r) == server(ranks[0]); });
        case Offload::switch_aggregation: {
            std::set<int> servers;
            for (RankId r : ranks) servers.insert(server(r));
            return sharp_ && servers.size() == ranks.size();
        }
        case Offload::ring_channel: return false;  // rings run as messages
    }
    return false;
}

void IdealNetwork::start_group(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) {
    if (!offers(op.offload, op.ranks)) Network::start_group(sim, op, listener);  // throws
    const bool nic = op.offload == Offload::switch_aggregation;
    const Bandwidth bandwidth = nic ? nic_bandwidth_ : nvls_bandwidth_;
    const auto port = [&](RankId r) -> std::size_t {
        if (!nic) return r.value();
        const int server = static_cast<int>(r.value()) / ranks_per_server_;
        const int own = static_cast<int>(r.value()) % ranks_per_server_ * nics_ / ranks_per_server_;
        const int index = op.rail >= 0 ? op.rail % nics_ : own;
        const int at = ranks_ + server * nics_ + index;
        return static_cast<std::size_t>(at);
    };
    const Time tx_out = transmit_time(op.egress, bandwidth);
    const Time tx_in = transmit_time(op.ingress, bandwidth);
    Time start = sim.now(), ingress_ready = Time::zero();
    for (RankId r : op.ranks) {
        start = std::max(start, egress_free_[port(r)]);
        ingress_ready = std::max(ingress_ready, ingress_free_[port(r)]);
    }
    const Time done = std::max(start + std::max(tx_out, tx_in) + latency_, ingress_ready + tx_in);
    for (RankId r : op.ranks) {
        const std::size_t p = port(r);
        egress_free_[p] = start + tx_out;
        ingress_free_[p] = done;
        if (nic) {
            nic_sent_[p - static_cast<std::size_t>(ranks_)] += op.egress;
            nic_received_[p - static_cast<std::size_t>(ranks_)] += op.ingress;
        }
    }
    sim.at(done, *this, park(op.id, listener));
}

}  // namespace fabricsim::fabric
