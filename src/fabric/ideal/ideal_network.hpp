// The ideal network: an analytical model for tests and quick estimates (docs/ARCHITECTURE.md,
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
//
// Endpoints after the ranks (ClusterSpec::storage_endpoint, client_endpoint): storage nodes
// and GPU-pool client hosts, each with its NICs at their line rate; an endpoint with several
// NICs uses NIC (peer id mod NICs) towards a peer. A rank talks to a storage node through its
// server's storage NICs when the cluster has a storage fabric, else through its compute NIC.
// When the two ports run at different rates, each is held for S / its own rate and the message
// arrives at the slower one's pace:
//
//   start     = max(now, egress_free[e]);                  egress_free = start + S/B_e
//   delivered = max(start + S/min(B_e, B_i) + latency, ingress_free[i] + S/B_i)
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
    // An idle copy of this network (the tuner's scratch runs).
    std::unique_ptr<Network> tuning_model() const override;

    Bandwidth nic_bandwidth() const { return nic_bandwidth_; }
    Bandwidth intra_server_bandwidth() const { return intra_bandwidth_; }
    // The rate an NVLS operation moves bytes through a GPU's NVLink: the NVLink payload rate
    // times NCCL's nvlsEfficiency for the generation (fabric/nvls_rate.hpp).
    Bandwidth nvls_bandwidth() const { return nvls_bandwidth_; }
    // Bytes each NIC (server · nics + index) has sent and received: where fabric traffic went.
    // After the servers' compute NICs come the servers' storage NICs, the storage nodes' NICs
    // and the clients' NICs; the *_nic() functions give their indices.
    const std::vector<Bytes>& nic_bytes_sent() const { return nic_sent_; }
    const std::vector<Bytes>& nic_bytes_received() const { return nic_received_; }
    std::size_t server_storage_nic(int server, int nic) const;
    std::size_t storage_node_nic(int node, int nic) const;
    std::size_t client_nic(int client, int nic) const;

private:
    void on_event(Simulator& sim, std::uint64_t slot) override;

    struct InFlight {
        MessageId id;
        DeliveryListener* listener;
    };
    struct Route {
        std::size_t egress, ingress;  // indices into the port arrays
        Bandwidth egress_bandwidth, ingress_bandwidth;
        bool fabric;
    };
    struct Port {
        std::size_t index;
        Bandwidth bandwidth;
    };
    Route route(const Message& message) const;
    Port endpoint_port(RankId endpoint, RankId peer) const;             // a storage node's or client's NIC
    Port rank_port(RankId rank, RankId peer, std::int16_t rail) const;  // towards another server
    std::uint32_t park(MessageId id, DeliveryListener& listener);       // an in_flight_ slot

    scenario::ClusterSpec cluster_;  // what tuning_model() rebuilds from
    scenario::IdealNetworkSpec spec_;
    int ranks_;
    int ranks_per_server_;
    int nics_;
    Bandwidth nic_bandwidth_;
    Bandwidth intra_bandwidth_;
    Bandwidth nvls_bandwidth_;
    Time latency_;
    bool nvls_ = false;   // the servers' NVSwitches multicast and reduce
    bool sharp_ = false;  // the fabric's switches aggregate
    // Endpoints beyond the ranks and their ports (docs/models/traffic.md).
    int servers_ = 0;
    bool storage_fabric_ = false;
    int storage_nics_ = 0;  // per server, on the storage fabric
    Bandwidth storage_nic_bandwidth_;
    int storage_nodes_ = 0, nics_per_storage_node_ = 1;
    Bandwidth storage_node_bandwidth_;
    int clients_ = 0, nics_per_client_ = 1;
    Bandwidth client_bandwidth_;
    std::size_t storage_nic_base_ = 0, storage_node_base_ = 0, client_base_ = 0;  // first port of each
    // Ports 0 .. ranks-1: the GPUs' NVLink (or host) ports; then one per NIC (servers' compute
    // NICs, servers' storage NICs, storage nodes' NICs, clients' NICs).
    std::vector<Time> egress_free_, ingress_free_;
    std::vector<Bytes> nic_sent_, nic_received_;
    std::vector<InFlight> in_flight_;  // indexed by slot
    std::vector<std::uint32_t> free_slots_;
};

}  // namespace fabricsim::fabric
