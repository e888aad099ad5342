// ScenarioSpec: the plain structs a scenario file becomes. Every default lives here, in the
// member initialisers, and `fabricsim validate --print` shows them.
//
// Only keys whose models exist are part of the schema (docs/SCENARIO.md): the topology, packet,
// flow and workloads issues add their sections here and in the loader, nowhere else.
#pragma once

#include "core/errors.hpp"
#include "core/ids.hpp"
#include "core/units.hpp"
#include "scenario/collective_spec.hpp"
#include "scenario/faults_spec.hpp"
#include "scenario/infiniband_spec.hpp"
#include "scenario/iwarp_spec.hpp"
#include "scenario/roce_spec.hpp"
#include "scenario/trace_spec.hpp"
#include "scenario/traffic_spec.hpp"
#include "scenario/training_spec.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fabricsim::scenario {

enum class NetworkModel { ideal, packet, flow };
// simulation.flow_backend: where the flow model solves its rates (docs/models/flow.md).
enum class FlowBackend { cpu, cuda, automatic };
// simulation.flow_congestion: the congestion control the flow model accounts for
// (docs/models/flow.md, "Congestion control"): none, DCQCN's standing queues (RoCE), or the
// time-stepped fluid model of the fabric's congestion control and back-pressure coupled to
// the rates (RoCE and InfiniBand).
enum class FlowCongestion { none, dcqcn, fluid };

// simulation.flow_rings: how the flow model carries a ring channel whose every step is one
// message (docs/models/flow.md, "Rings as one flow"): as one flow over the ring's links
// (coupled), or as its messages, each step waiting for the last (messages).
enum class FlowRings { coupled, messages };

// simulation.ideal: the analytical network. Each message takes latency + size / bandwidth of
// the slower endpoint NIC, with no contention (docs/ARCHITECTURE.md).
struct IdealNetworkSpec {
    Time latency = Time::us(2);  // NIC-to-NIC one-way latency of a small RDMA write across a
                                 // two-tier fabric, order of magnitude (docs/models/ideal.md)
    bool operator==(const IdealNetworkSpec&) const = default;
};

// simulation.packet: the packet-level model (docs/models/packet.md). The fabric MTU is
// cluster.fabric.mtu; inside a server data moves in segments that carry the efficiency of the
// small NVLink/PCIe wire packets, so large collectives are not billions of events (docs/models/).
struct PacketSimSpec {
    Bytes segment = Bytes{64 * 1024};
    // No packet moving for this long while some wait is a deadlock: the run stops with the
    // cycle of paused ports (exit 3). 10 ms is 30 pause quanta at 100G: far beyond any pause.
    Time deadlock_timeout = Time::ms(10);
    // Fabric switches forward store-and-forward (false) or cut-through (true): a packet goes
    // out once its header is in, when its egress port is free (Spectrum and Quantum switch
    // ASICs cut through; their datasheet latencies are port to port).
    bool cut_through = false;
    bool operator==(const PacketSimSpec&) const = default;
};

struct SimulationSpec {
    NetworkModel model = NetworkModel::ideal;
    Time stop_time = Time::max();  // "none" in YAML: run until idle
    IdealNetworkSpec ideal;
    PacketSimSpec packet;
    // The flow model's rate solver: cpu (the default: the same bits on every machine), cuda
    // (a device must be present), auto (cuda when a device is present, else cpu).
    FlowBackend flow_backend = FlowBackend::cpu;
    FlowCongestion flow_congestion = FlowCongestion::none;
    FlowRings flow_rings = FlowRings::coupled;
    bool operator==(const SimulationSpec&) const = default;
};

// A NIC model (configs/nics/): the ports the fabric sees and the PCIe link behind them.
struct NicSpec {
    std::string preset;  // "" if inline
    Bandwidth line_rate = Bandwidth::Gbps(400);
    int pcie_generation = 5;  // 3, 4, 5 or 6
    int pcie_lanes = 16;
    int qps_per_connection = 1;  // RC QPs per peer: ECMP entropy (NCCL_IB_QPS_PER_CONNECTION)
    // The port's receive buffer (RoCE: packets from the fabric wait here for PCIe, and PFC
    // pauses the switch when it fills; docs/models/pfc.md, "The NIC's receive buffer").
    Bytes receive_buffer = Bytes{1024 * 1024};
    // iWARP RNICs (docs/models/iwarp.md): the TCP engine's retransmission-timeout floor, and
    // the time the offload engine adds to each frame it sends or takes in (zero: none modelled).
    std::optional<Time> tcp_min_rto = std::nullopt;
    Time offload_latency = Time::zero();
    bool operator==(const NicSpec&) const = default;
};

// NVLink inside a server. switches = 0 with links: the GPUs are joined directly (an NVLink
// bridge between a pair of PCIe cards); links_per_gpu = 0: no NVLink.
struct NvlinkSpec {
    std::string generation = "nvlink4";  // nvlink3 | nvlink4 | nvlink5 (docs/models/links.md)
    int links_per_gpu = 0;
    Bandwidth link_bandwidth;  // per link per direction; zero = the generation's
    int switches = 0;          // NVSwitch chips on the board
    std::vector<int> split;    // links from each GPU to switch i; empty = even split
    bool operator==(const NvlinkSpec&) const = default;
};

// The PCIe tree: GPUs and NICs spread evenly over `switches` PCIe switches, each uplinked to
// the host CPU; switches = 0 puts them on the CPU's root ports.
struct PcieSpec {
    int generation = 5;
    int lanes = 16;  // width of each GPU / switch link
    int switches = 0;
    bool operator==(const PcieSpec&) const = default;
};

// cluster.server.gpudirect: which GPUDirect data paths the server has (docs/models/gpudirect.md).
// Off, the data moves through host memory (host_staging.hpp); the defaults are an HGX board's.
struct GpuDirectSpec {
    bool rdma = true;     // the NIC reads and writes GPU memory (GPUDirect RDMA)
    bool p2p = true;      // GPUs read and write each other's memory over PCIe or NVLink (GPUDirect P2P)
    bool storage = true;  // storage traffic lands in GPU memory (GPUDirect Storage)
    bool pxn = true;      // NCCL PXN: a message to another rail leaves by that rail's NIC, over NVLink
    bool operator==(const GpuDirectSpec&) const = default;
};

// cluster.server.host: the host side of the paths without GPUDirect (docs/models/gpudirect.md).
// Defaults: one socket of a Xeon Scalable 4th gen (Sapphire Rapids) host, as in HGX H100 servers.
struct HostSpec {
    int sockets = 1;  // CPU sockets; PCIe switches (or root-port devices) spread evenly over them
    // Per direction between the sockets: 4 UPI 2.0 links at 16 GT/s, 32 GB/s each (16 data bits
    // per transfer; Intel Xeon Scalable 4th gen platform brief: "up to 4 UPI 2.0 links, 16 GT/s").
    Bandwidth socket_link = Bandwidth::GBps(128);
    // Per socket: 8 channels of DDR5-4800 are 307 GB/s; a copy reaches about 75 % of it (STREAM
    // Copy) and moves each byte twice (DRAM write, then read): 307 x 0.75 / 2 = 115 GB/s.
    Bandwidth memory_copy = Bandwidth::GBps(115);
    // NCCL's proxy thread sees a staged chunk and posts the next transfer: (estimate) a small RDMA
    // write takes about 5 us without GDR against 1.5 us with (docs/models/gpudirect.md), i.e.
    // about 2 us for each of the two sides that stage.
    Time staging_latency = Time::us(2);
    Bytes staging_chunk = Bytes{512 * 1024};  // NCCL_BUFFSIZE (4 MiB) / NCCL_STEPS (8)
    bool operator==(const HostSpec&) const = default;
};

// A server (configs/servers/): its GPUs, NVLink/NVSwitch, PCIe tree and NICs.
struct ServerSpec {
    std::string preset;     // name of the preset it came from, "" if inline
    std::string gpu_model;  // for reports: "H100 SXM5"
    int gpus = 0;           // 0: a plain host, which is one rank
    NvlinkSpec nvlink;
    PcieSpec pcie;
    int nics = 1;  // compute-fabric NICs; rank r uses NIC (r * nics / ranks)
    NicSpec nic;
    int storage_nics = 0;  // front-end / storage NICs (on cluster.storage_fabric)
    NicSpec storage_nic;
    GpuDirectSpec gpudirect;
    HostSpec host;
    int ranks() const { return gpus == 0 ? 1 : gpus; }
    bool operator==(const ServerSpec&) const = default;
};

enum class Technology { roce, infiniband };
enum class TopologyKind { single_switch, leaf_spine, fat_tree, rail_optimized, custom };
enum class RoutingKind { automatic, ecmp, adaptive, spray, static_ };  // automatic: RoCE ecmp, IB static

// A switch model (configs/switches/).
struct SwitchSpec {
    std::string preset;                        // "" if inline
    Technology technology = Technology::roce;  // ethernet (RoCE) or InfiniBand ASIC
    int radix = 64;                            // ports at port_speed
    Bandwidth port_speed = Bandwidth::Gbps(400);
    Time latency = Time::ns(600);      // port-to-port, zero load
    Bytes buffer = Bytes{64'000'000};  // shared packet buffer
    bool sharp = false;                // aggregates reductions in the switch (NVIDIA SHARP)
    bool operator==(const SwitchSpec&) const = default;
};

// Leaf downlink : uplink bandwidth, as a ratio of integers ("2:1", 2, 1.5 = 3:2).
struct Ratio {
    int down = 1;
    int up = 1;
    bool operator==(const Ratio&) const = default;
};

// topology: custom (docs/models/topology.md, "An explicit topology"): named switches and the
// cables between them and the servers' NICs, as written. The loader resolves every default, so
// the builder reads plain values.
struct CustomSwitchSpec {
    std::string name;         // unique; never a server NIC's name (s<server>.nic<k>)
    SwitchSpec model;         // cluster.fabric.switch, under this entry's keys (and preset)
    SourceLocation location;  // of the entry, for errors found when the fabric is built
    bool operator==(const CustomSwitchSpec& o) const { return name == o.name && model == o.model; }
};

struct CustomLinkSpec {
    std::string from, to;  // switch names or server NICs ("s3.nic0"); a NIC only to a switch
    Bandwidth speed;       // per direction; written or the slower end's port speed
    Length length;         // written, or cable_length (NIC) / uplink_cable_length (switches)
    int count = 1;         // parallel cables between the same two switches
    SourceLocation location;
    bool operator==(const CustomLinkSpec& o) const {
        return from == o.from && to == o.to && speed == o.speed && length == o.length && count == o.count;
    }
};

struct CustomFabricSpec {
    std::vector<CustomSwitchSpec> switches;
    std::vector<CustomLinkSpec> links;
    SourceLocation location;  // of cluster.fabric.links
    bool operator==(const CustomFabricSpec& o) const { return switches == o.switches && links == o.links; }
};

struct FabricSpec {
    Technology technology = Technology::roce;
    bool iwarp = false;  // technology: iwarp (Ethernet switches, TCP transport; cluster.iwarp)
    TopologyKind topology = TopologyKind::leaf_spine;
    Bandwidth link_speed;    // zero = the NIC's line rate
    SwitchSpec switch_spec;  // YAML key: switch
    Ratio oversubscription;
    Length cable_length = Length::m(5);          // server to leaf: inside a rack (docs/SCENARIO.md)
    Length uplink_cable_length = Length::m(30);  // between switch tiers
    Bytes mtu = Bytes{4096};
    RoutingKind routing = RoutingKind::automatic;
    int planes = 1;           // parallel fabrics; NIC i joins plane i mod planes
    CustomFabricSpec custom;  // YAML keys switches, links; only with topology: custom
    bool operator==(const FabricSpec&) const = default;
};

// A second network for storage and front-end traffic, reached through the servers' storage
// NICs, with its own storage nodes.
struct StorageFabricSpec {
    bool enabled = false;  // false: storage traffic shares the compute fabric
    FabricSpec fabric;
    int storage_nodes = 0;
    int nics_per_storage_node = 1;
    NicSpec storage_node_nic;
    bool operator==(const StorageFabricSpec&) const = default;
};

// Storage nodes on the compute fabric (cluster.storage), for a cluster without a storage
// fabric: extra endpoints on the compute leaves after the servers' NICs, NIC i of a node on
// plane i mod planes. nodes = 0: none (the section is absent).
struct StorageSpec {
    int nodes = 0;
    int nics_per_node = 1;
    NicSpec nic;
    bool operator==(const StorageSpec&) const = default;
};

// CPU-only client hosts on the compute fabric (cluster.clients), for remote GPU pooling: they
// run applications whose GPU calls go over the network to the GPU servers. nodes = 0: none.
struct ClientsSpec {
    int nodes = 0;
    int nics_per_node = 1;
    NicSpec nic;
    bool operator==(const ClientsSpec&) const = default;
};

struct ClusterSpec {
    int servers = 1;
    ServerSpec server;
    FabricSpec fabric;
    StorageFabricSpec storage_fabric;
    StorageSpec storage;  // only without storage_fabric
    ClientsSpec clients;
    RoceSpec roce;              // cluster.roce: PFC, ECN, DCQCN, MMU; ignored by InfiniBand
    InfinibandSpec infiniband;  // cluster.infiniband: VLs, credits, IB CC; ignored by RoCE
    IwarpSpec iwarp;            // cluster.iwarp: the TCP engines of an iWARP fabric
    int ranks() const { return servers * server.ranks(); }
    // Endpoints after the GPU ranks: storage nodes ranks() .. ranks()+storage_nodes()-1, then
    // the client hosts (docs/models/traffic.md).
    int storage_nodes() const { return storage_fabric.enabled ? storage_fabric.storage_nodes : storage.nodes; }
    int nics_per_storage_node() const {
        return storage_fabric.enabled ? storage_fabric.nics_per_storage_node : storage.nics_per_node;
    }
    RankId storage_endpoint(int node) const { return RankId{static_cast<RankId::rep>(ranks() + node)}; }
    RankId client_endpoint(int client) const {
        return RankId{static_cast<RankId::rep>(ranks() + storage_nodes() + client)};
    }
    int endpoints() const { return ranks() + storage_nodes() + clients.nodes; }
    bool operator==(const ClusterSpec&) const = default;
};

// - transfer: { from: 0, to: 1, size: 1GiB, start: 0s }
struct TransferSpec {
    RankId from;
    RankId to;
    Bytes size;
    Time start = Time::zero();
    bool operator==(const TransferSpec&) const = default;
};

struct WorkloadEntry {
    std::string name;   // given or generated: "<kind><index>", e.g. "transfer0"
    std::string after;  // "" when the entry starts at once
    // The traffic class of its messages: an 802.1p priority (RoCE, 0..7) or an InfiniBand
    // service level (0..15); nullopt: the fabric's data class (RoCE: pfc.priority; IB: SL 0).
    std::optional<int> priority;
    SourceLocation location;  // of the entry in the file, for errors found later
    std::variant<TransferSpec, CollectiveSpec, TrafficSpec, TrainingSpec, TraceSpec> kind;
    // Equal scenarios, wherever they were written: the location is not compared.
    bool operator==(const WorkloadEntry& o) const {
        return name == o.name && after == o.after && priority == o.priority && kind == o.kind;
    }
};

enum class OutputFormat { json, csv };

// outputs.queues (packet model): chosen ports' queue depth, PFC pause and credit stall over
// time, sampled every `interval`, into queues.csv (fabric/packet/queue_sampler.hpp).
struct QueueOutputSpec {
    Time interval = Time::zero();    // zero: off
    std::vector<std::string> ports;  // "from->to", each naming every link from node `from` to `to`
    int top = 0;                     // instead of ports: the N ports whose sampled queue got deepest
    // Where each port name and the mapping are written, for errors found when the topology is
    // built; not compared.
    std::vector<SourceLocation> port_locations;
    SourceLocation location;
    bool operator==(const QueueOutputSpec& o) const {
        return interval == o.interval && ports == o.ports && top == o.top;
    }
};

struct OutputsSpec {
    std::string dir;  // "" means results/<name>
    std::vector<OutputFormat> formats{OutputFormat::json, OutputFormat::csv};
    // Packet model: each QP's congestion-control rate, sampled at most this often, into
    // qp_rates.csv; zero ("off") records nothing.
    Time qp_rates = Time::zero();
    QueueOutputSpec queues;
    // timeline.json: every op's start and end per rank, in Chrome's trace-event format.
    bool timeline = false;
    bool operator==(const OutputsSpec&) const = default;
};

struct ScenarioSpec {
    std::string name;
    std::string description;
    std::uint64_t seed = 1;
    SimulationSpec simulation;
    ClusterSpec cluster;
    std::vector<WorkloadEntry> workload;
    std::vector<FaultSpec> faults;  // faults_spec.hpp; empty: none
    OutputsSpec outputs;
    bool operator==(const ScenarioSpec&) const = default;
};

}  // namespace fabricsim::scenario
