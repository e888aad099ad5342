// Link classes: what one link of each kind carries, derived from its generation and its packet
// format (docs/models/; the derivations and their sources are in docs/models/links.md).
//
// A link class has
//   bandwidth   the line rate per direction after line encoding (128b/130b, 64b/66b+FEC,
//               PAM4 flits), i.e. the rate at which link-layer bytes move
//   efficiency  payload bytes / link-layer bytes for a long stream of maximum-size packets:
//
//     NVLink 3/4/5   128 / (128 + 16 + 16)       128-B payload packets from the SMs, a 16-B
//                                                header flit, and the 16-B response flit the
//                                                other direction's writes send back (both
//                                                directions busy, as in every NCCL ring)
//     PCIe Gen3..5   P / (P + 4 + 16 + 4)        STP framing token (with sequence number),
//                                                4-DW memory-write header, LCRC; P = max
//                                                payload size (256 B typical)
//     PCIe Gen6      236/256 · P / (P + 16)      256-B flits carrying 236 B of TLP bytes
//                                                (6 B DLP, 8 B CRC, 6 B FEC), 4-DW header
//     RoCEv2         M / (M + H), H = 82         preamble+SFD 8, Ethernet 14, IPv4 20, UDP 8,
//                                                BTH 12, ICRC 4, FCS 4, inter-frame gap 12
//     InfiniBand     M / (M + H), H = 26         LRH 8, BTH 12, ICRC 4, VCRC 2
//
//   with M the fabric MTU (payload bytes per packet) and H the per-packet header bytes,
//   cluster.roce.header_bytes / cluster.infiniband.header_bytes (defaults as above; sources in
//   scenario/roce_spec.hpp and scenario/infiniband_spec.hpp). Once per message headers (RETH), ACKs
//   of the transport, DLLPs and SKP ordered sets of PCIe are not in the efficiency (each
//   well under 1 % at these sizes; docs/models/links.md).
//
// One value per generation: no per-server factor. Switch port-to-port latencies inside the
// server (NVSwitch, PCIe switch) live here too; fabric switches take theirs from SwitchSpec.
#pragma once

#include "core/units.hpp"
#include "fabric/topology.hpp"
#include "scenario/spec.hpp"

#include <string>
#include <string_view>

namespace fabricsim::fabric {

struct LinkClass {
    std::string name;  // "nvlink4", "pcie-gen5-x16", "roce-400G", "ib-ndr"
    LinkType type = LinkType::fabric;
    Bandwidth bandwidth;      // line rate per direction, after line encoding
    double efficiency = 1.0;  // payload / link-layer bytes
};

// Per-packet overheads in bytes, as named in the header comment.
inline constexpr std::int64_t kNvlinkPayload = 128;
inline constexpr std::int64_t kNvlinkHeader = 16;
inline constexpr std::int64_t kNvlinkResponse = 16;
inline constexpr std::int64_t kPcieTlpOverhead = 24;  // Gen3..5: STP 4 + 4DW header 16 + LCRC 4
inline constexpr std::int64_t kPcieFlitHeader = 16;   // Gen6 flit mode: 4DW header, no LCRC/STP
inline constexpr std::int64_t kPcieFlitBytes = 256;
inline constexpr std::int64_t kPcieFlitTlpBytes = 236;
inline constexpr std::int64_t kRoceOverhead = scenario::kRoceHeaderBytes;  // the defaults
inline constexpr std::int64_t kInfinibandOverhead = scenario::kInfinibandHeaderBytes;
inline constexpr Bytes kPcieMaxPayload = Bytes{256};  // typical max payload size (MPS)

// NVLink generation by name ("nvlink3" | "nvlink4" | "nvlink5"). `per_link` zero means the
// generation's rate: 25 GB/s (NVLink3, NVLink4) or 50 GB/s (NVLink5) per link per direction.
// Throws ConfigError (key cluster.server.nvlink.generation) for an unknown generation.
LinkClass nvlink_class(std::string_view generation, Bandwidth per_link = Bandwidth::zero());
int nvlink_generation_number(std::string_view generation);  // 3, 4, 5; 0 if unknown

// PCIe generation 3..6 with 1, 2, 4, 8, 16 or 32 lanes. Throws ConfigError for other values.
LinkClass pcie_class(int generation, int lanes, Bytes max_payload = kPcieMaxPayload);
// Line rate per direction of `lanes` lanes: GT/s x lanes x 128/130 (Gen3..5), x 1 (Gen6).
Bandwidth pcie_line_rate(int generation, int lanes);

// The compute or storage fabric's link class at `rate` and `mtu`, each packet carrying
// `header_bytes` beside its payload (negative: the technology's default).
LinkClass fabric_class(scenario::Technology technology, Bandwidth rate, Bytes mtu, LinkType type = LinkType::fabric,
                       std::int64_t header_bytes = -1);
// The per-packet header bytes of `technology` as the cluster sets them (cluster.roce or
// cluster.infiniband .header_bytes).
std::int64_t header_bytes(const scenario::ClusterSpec& cluster, scenario::Technology technology);

double nvlink_efficiency();
double pcie_efficiency(int generation, Bytes max_payload = kPcieMaxPayload);
double roce_efficiency(Bytes mtu, std::int64_t header_bytes = kRoceOverhead);
double infiniband_efficiency(Bytes mtu, std::int64_t header_bytes = kInfinibandOverhead);

// Port-to-port latency of an NVSwitch chip of this NVLink generation (estimate, links.md).
Time nvswitch_latency(std::string_view generation);
// Cut-through port-to-port latency of a PCIe switch of this generation (links.md).
Time pcie_switch_latency(int generation);

// Passive copper (DAC) reach at this fabric rate: the longest cable that may be copper.
// By the per-lane rate (InfiniBand: 4 lanes; Ethernet: 4 lanes up to 400G, 8 above):
// 25G lanes 5 m, 50G lanes 3 m, 100G lanes 3 m, faster lanes 1 m (estimate).
Length passive_copper_reach(scenario::Technology technology, Bandwidth rate);
Medium cable_medium(scenario::Technology technology, Bandwidth rate, Length length);

}  // namespace fabricsim::fabric
