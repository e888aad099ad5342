// The ideal network: an analytical model for tests and quick estimates (DESIGN §1,
// `simulation.model: ideal`, docs/models/ideal.md).
//
// The fabric itself has infinite capacity; only the endpoints serialise. A message of S bytes
// occupies its sender's port for S/B and its receiver's port for S/B, first come first
// served, and arrives `latency` after it left:
//
//   start     = max(now, egress_free[src_port]);           egress_free  = start + S/B
//   delivered = max(start + S/B + latency, ingress_free[dst_port] + S/B);  ingress_free = delivered
//
// Ports: between servers, the NICs (the message's rail, else each rank's own NIC) at the NIC
// line rate; inside a server, the GPU's NVLink at links × link bandwidth (PCIe-only servers
// and plain hosts use their NIC share). Alone on the network a message takes latency + S/B,
// so collectives reproduce their α–β forms. It offers no in-network operation.
#pragma once

#include "core/event_queue.hpp"
#include "core/network.hpp"
#include "scenario/spec.hpp"

#include <vector>

namespace fabricsim::fabric {

class IdealNetwork final : public Network, private EventTarget {
public:
    IdealNetwork(const scenario::ClusterSpec& cluster, const scenario::IdealNetworkSpec& spec);

    std::string_view model_name() const override { return "ideal"; }
    void send(Simulator& sim, const Message& message, DeliveryListener& listener) override;
    Time unloaded_time(const Message& message) const override;
    // NVLS inside an NVLink4+ NVSwitch server and SHARP on InfiniBand switches that
    // aggregate (ideal_offload.cpp, docs/models/ideal.md).
    bool offers(Offload offload, std::span<const RankId> ranks) const override;
    void start_group(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) override;

    Bandwidth nic_bandwidth() const { return nic_bandwidth_; }
    Bandwidth intra_server_bandwidth() const { return intra_bandwidth_; }
    // Bytes each NIC (server · nics + index) has sent and received: where fabric traffic went.
    const std::vector<Bytes>& nic_bytes_sent() const { return nic_sent_; }
    const std::vector<Bytes>& nic_bytes_received() const { return nic_received_; }

private:
    void on_event(Simulator& sim, std::uint64_t slot) override;

    struct InFlight {
        MessageId id;
        DeliveryListener* listener;
    };
    struct Route {
        std::size_t egress, ingress;  // indices into the port arrays
        Bandwidth bandwidth;
        bool fabric;
    };
    Route route(const Message& message) const;
    std::uint32_t park(MessageId id, DeliveryListener& listener);  // an in_flight_ slot

    bool nvls_ = false;   // the servers' NVSwitches multicast and reduce
    bool sharp_ = false;  // the fabric's switches aggregate

    int ranks_;
    int ranks_per_server_;
    int nics_;
    Bandwidth nic_bandwidth_;
    Bandwidth intra_bandwidth_;
    Time latency_;
    // Ports 0 .. ranks-1: the GPUs' NVLink (or host) ports; then one per NIC.
    std::vector<Time> egress_free_, ingress_free_;
    std::vector<Bytes> nic_sent_, nic_received_;
    std::vector<InFlight> in_flight_;      // indexed by slot
    std::vector<std::uint32_t> free_slots_;
};

}  // namespace fabricsim::fabric
