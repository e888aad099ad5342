// cluster.infiniband: how an InfiniBand fabric shares its links between virtual lanes (SL->VL
// mapping, VL arbitration), keeps them lossless (credits per VL) and reacts to congestion (IB
// CC, IBA Annex A10). Plain structs; every default is a member initialiser with its source
// (docs/models/infiniband.md). A RoCE fabric reads, checks and ignores the section (docs/SCENARIO.md).
//
// `auto` values are std::nullopt and are worked out later from the link they apply to:
// vl_buffer from the cable's round trip plus a margin, the CC table from the link rate and MTU
// (congestion::IbCcParams::linear_table), ccti_limit from the table. The SL->VL map and the low
// arbitration table follow virtual_lanes: validation rebuilds them when it changes.
#pragma once

#include "core/units.hpp"

#include <optional>
#include <vector>

namespace fabricsim::scenario {

inline constexpr int kIbDataVlsMax = 15;  // VL0..VL14 carry data; VL15 is management (IBA §7.6)
inline constexpr int kIbServiceLevels = 16;
inline constexpr int kIbDefaultVlWeight = 4;  // OpenSM's default low-table weight (OSM_DEFAULT_QOS_VLARB_LOW)

// One VL arbitration table entry (IBA §7.6.9): the VL may send `weight` x 64 bytes per turn;
// weight 0 skips the entry.
struct VlWeight {
    int vl = 0;
    int weight = 0;
    bool operator==(const VlWeight&) const = default;
};

// SL s -> VL s mod vls: the default map.
inline std::vector<int> default_sl_to_vl(int vls) {
    std::vector<int> map(kIbServiceLevels);
    for (int sl = 0; sl < kIbServiceLevels; ++sl) map[static_cast<std::size_t>(sl)] = sl % vls;
    return map;
}

// Every data VL once, equal weight: the default low-priority table.
inline std::vector<VlWeight> default_low_table(int vls) {
    std::vector<VlWeight> table;
    for (int vl = 0; vl < vls; ++vl) table.push_back(VlWeight{vl, kIbDefaultVlWeight});
    return table;
}

// cluster.infiniband.vl_arbitration (IBA §7.6.9): high before low, but after high_limit units
// of 4 KiB of high-priority packets a low-priority packet gets its chance (0: after one packet;
// 255: never).
struct VlArbitrationSpec {
    std::vector<VlWeight> high;                        // empty: no high-priority VL
    std::vector<VlWeight> low = default_low_table(2);  // follows virtual_lanes when not given
    int high_limit = 0;                                // OpenSM OSM_DEFAULT_QOS_HIGH_LIMIT
    bool operator==(const VlArbitrationSpec&) const = default;
};

// One congestion control table entry: IPD = multiplier / 2^shift packet times.
struct CctEntrySpec {
    int shift = 0;       // 0..3
    int multiplier = 0;  // 0..16383
    bool operator==(const CctEntrySpec&) const = default;
};

// cluster.infiniband.congestion_control: the switch's FECN marking and the source's reaction
// (congestion::FecnMarkerParams and congestion::IbCcParams). Defaults: NVIDIA's (Mellanox) CC
// manager for OpenSM, MLNX_OFED's last A10 configurator, where it publishes one (marking_rate,
// packet_size, ccti_increase, ccti_min); the Intel OPA FM's timer and table where NVIDIA's are
// derived from the subnet size by an unpublished formula (docs/models/infiniband.md). This
// is the one declaration: `validate --print` shows these, docs/SCENARIO.md lists them, and a
// test (tests/scenario/test_infiniband_spec.cpp) holds the two together.
struct IbCongestionControlSpec {
    bool enabled = true;                             // docs/SCENARIO.md: "IB CC on"
    Bytes threshold = Bytes{8 * 1024};               // queue per port/VL above which packets are marked
    int marking_rate = 10;                           // Mellanox CC manager marking_rate 0xa
    bool victim_mask = false;                        // IBA A10 Victim_Mask, every switch port's bit:
                                                     // OpenSM's default all-zero mask
    Bytes packet_size = Bytes{512};                  // Mellanox CC manager default 0x200
    int ccti_increase = 1;                           // Mellanox CC manager ccti_increase 1
    std::optional<int> ccti_limit;                   // auto: 127 (OPA FM) with an auto table,
                                                     // else the table's last index
    int ccti_min = 0;                                // Mellanox CC manager and OPA FM default
    Time ccti_timer = Time::ps(10'240'000);          // OPA FM default: 10 x 1.024 us
    std::optional<std::vector<CctEntrySpec>> table;  // auto: linear delays up to 8 us (OPA FM)
    bool operator==(const IbCongestionControlSpec&) const = default;
};

// The CCTI_Limit of an `auto` ccti_limit.
inline constexpr int kIbAutoCctiLimit = 127;

inline constexpr std::int64_t kInfinibandHeaderBytes = 26;

struct InfinibandSpec {
    int virtual_lanes = 2;                            // data VLs, docs/SCENARIO.md
    std::optional<Bytes> vl_buffer;                   // credit buffer per VL per port; auto
    Time credit_update_period = Time::zero();         // flow-control packets at most this often
                                                      // per VL; 0: one as each packet frees its blocks
    std::vector<int> sl_to_vl = default_sl_to_vl(2);  // 16 entries, one per SL
    VlArbitrationSpec vl_arbitration;
    IbCongestionControlSpec congestion_control;
    // Bytes each packet carries on the link beside its payload (docs/models/links.md): 26 =
    // LRH 8, BTH 12, ICRC 4, VCRC 2 (IBTA Vol. 1 §7.7, §9.2, §7.8); a GRH adds 40.
    std::int64_t header_bytes = kInfinibandHeaderBytes;
    bool operator==(const InfinibandSpec&) const = default;
};

}  // namespace fabricsim::scenario
