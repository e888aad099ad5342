// cluster.roce: how a RoCEv2 fabric keeps its lossless class (PFC), marks congestion (ECN,
// RED at the egress queue), reacts to it (DCQCN at the sender NIC) and shares the switch
// buffer (the MMU's dynamic threshold). Plain structs; every default is in a member
// initialiser with its source. The packet model reads them; an InfiniBand fabric ignores the
// section (docs/SCENARIO.md).
//
// `auto` values are std::nullopt here and are worked out later from the link they apply to:
// PFC headroom and XOFF by src/fabric/pfc_headroom.hpp (docs/models/pfc.md), ECN
// Kmin/Kmax by ecn_kmin_auto()/ecn_kmax_auto() below. DCQCN overrides left unset take the
// preset's value, which the congestion-control code owns (docs/models/).
#pragma once

#include "core/units.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace fabricsim::scenario {

// cluster.roce.pfc: IEEE 802.1Qbb priority flow control on the lossless priorities.
struct PfcSpec {
    bool enabled = true;
    // The lossless priorities (YAML `priority: 3` or `priority: [3, 4]`); the first is the data
    // class of messages that name none. docs/SCENARIO.md "RoCE runs PFC on priority 3" (the usual
    // RoCE lossless priority in NVIDIA's and Microsoft's guides).
    std::vector<int> priorities{3};
    std::optional<Bytes> headroom;      // per port and priority; nullopt = auto: the 802.1Qbb
                                        // worst case from link speed, cable, MTU (docs/models/pfc.md)
    std::optional<Bytes> xoff;          // static XOFF threshold; nullopt = auto: the MMU's dynamic
                                        // threshold, mmu.alpha x free buffer
    Bytes xon_delta = Bytes{3 * 1024};  // XON = XOFF - xon_delta; HPCC ns-3 model, switch-mmu.cc
                                        // resume_offset = 3 * 1024 (`docs/REFERENCES.md`)
    std::optional<Time> watchdog;       // nullopt = off; else the time a queue may stay paused
                                        // before the watchdog drops its traffic (Guo et al., SIGCOMM'16)
    bool operator==(const PfcSpec&) const = default;
};

// cluster.roce.ecn.port_classes[i]: the thresholds of every port of one speed, for a fabric
// whose ports differ (a custom topology's 400G uplinks beside 100G host ports); each unset
// one is the scaled rule at that speed.
struct EcnPortClass {
    Bandwidth speed;
    std::optional<Bytes> kmin;  // nullopt = auto: 100 KB x (speed / 25 Gb/s)
    std::optional<Bytes> kmax;  // nullopt = auto: 400 KB x (speed / 25 Gb/s)
    bool operator==(const EcnPortClass&) const = default;
};

// cluster.roce.ecn: RED marking at the egress queue, p = 0 below Kmin, rising linearly to
// pmax at Kmax, 1 above (`docs/REFERENCES.md`, "ECN marking").
struct EcnSpec {
    bool enabled = true;
    std::optional<Bytes> kmin;               // nullopt = auto: 100 KB x (link / 25 Gb/s)
    std::optional<Bytes> kmax;               // nullopt = auto: 400 KB x (link / 25 Gb/s)
    double pmax = 0.2;                       // NIC-style DCQCN, HPCC ns-3 run.py (docs/models/dcqcn.md)
    std::vector<EcnPortClass> port_classes;  // by port speed, before kmin/kmax; speeds distinct
    bool operator==(const EcnSpec&) const = default;
};

// The NIC-style scaling of the HPCC ns-3 model (run.py, after Mellanox CX-4+; docs/models/dcqcn.md):
// 100 KB and 400 KB at 25 Gb/s, proportional to the link speed (KB = 1000 bytes).
constexpr Bytes ecn_kmin_auto(Bandwidth link) { return Bytes{link.bits_per_second() / 250'000}; }
constexpr Bytes ecn_kmax_auto(Bandwidth link) { return Bytes{link.bits_per_second() / 62'500}; }

// The RED thresholds of a port of `speed`: its port class's, else kmin/kmax, each `auto` one
// scaled to `speed`.
struct EcnThresholds {
    Bytes kmin, kmax;
};
inline EcnThresholds ecn_thresholds(const EcnSpec& ecn, Bandwidth speed) {
    std::optional<Bytes> kmin = ecn.kmin, kmax = ecn.kmax;
    for (const EcnPortClass& c : ecn.port_classes)
        if (c.speed == speed) {
            kmin = c.kmin;
            kmax = c.kmax;
        }
    return {kmin ? *kmin : ecn_kmin_auto(speed), kmax ? *kmax : ecn_kmax_auto(speed)};
}

enum class DcqcnPreset { nic, paper };

// cluster.roce.dcqcn: the reaction point at the sender NIC (Zhu et al., SIGCOMM'15). Names
// follow the literature and the ns-3 RDMA configs (docs/models/); every override is optional and
// an unset one takes the preset's value (docs/models/dcqcn.md, `docs/REFERENCES.md`).
struct DcqcnSpec {
    bool enabled = true;
    DcqcnPreset preset = DcqcnPreset::nic;       // docs/SCENARIO.md "DCQCN nic preset"
    std::optional<double> g;                     // alpha gain, in (0, 1]
    std::optional<Bandwidth> rate_ai;            // additive increase R_AI
    std::optional<Bandwidth> rate_hai;           // hyper increase R_HAI
    std::optional<Time> alpha_update_interval;   // alpha period
    std::optional<Time> rate_decrease_interval;  // rate-decrease check period
    std::optional<Time> rate_increase_timer;     // T
    std::optional<Bytes> byte_counter;           // B; zero = off (timer only)
    std::optional<int> fast_recovery_steps;      // F
    std::optional<bool> clamp_target_rate;
    std::optional<Bandwidth> min_rate;
    std::optional<Time> cnp_interval;  // at the receiver; zero = a CNP per marked packet
    bool operator==(const DcqcnSpec&) const = default;
};

// cluster.roce.mmu.port_classes[i]: the dynamic-threshold alpha of the ingress ports of one
// speed (a fast uplink may be given a larger share of the free buffer than a host port).
struct MmuPortClass {
    Bandwidth speed;
    double alpha = 0.125;
    bool operator==(const MmuPortClass&) const = default;
};

// cluster.roce.mmu: the switch's shared buffer.
struct MmuSpec {
    double alpha = 0.125;                        // dynamic threshold alpha = 1/8 (docs/SCENARIO.md; HPCC ns-3
                                                 // model: XOFF = free buffer >> 3, docs/REFERENCES.md)
    Bytes reserved_per_queue = Bytes{4 * 1024};  // HPCC ns-3 switch-mmu.cc reserve = 4 * 1024
    std::vector<MmuPortClass> port_classes;      // by ingress port speed, before alpha; speeds distinct
    // A lossy egress queue's dynamic threshold: alpha = 2^dynamic_th (SAI_BUFFER_PROFILE_ATTR_
    // SHARED_DYNAMIC_TH, opencomputeproject/SAI inc/saibuffer.h), and SONiC's egress_lossy_profile
    // sets dynamic_th 3 (e.g. sonic-buildimage device/arista/x86_64-arista_7050cx3_32s/
    // Arista-7050CX3-32S-C28S4/BALANCED/buffers_defaults_t1.j2, a Trident3): alpha = 8.
    double lossy_alpha = 8;
    bool operator==(const MmuSpec&) const = default;
};

// The PFC dynamic-threshold alpha of an ingress port of `speed`: its class's, else mmu.alpha.
inline double mmu_alpha(const MmuSpec& mmu, Bandwidth speed) {
    for (const MmuPortClass& c : mmu.port_classes)
        if (c.speed == speed) return c.alpha;
    return mmu.alpha;
}

// cluster.roce.queues: the eight egress queues of every Ethernet port (switch and NIC), one
// per 802.1p priority (IEEE 802.1Q §8.6.8: strict priority and weighted algorithms). The
// priorities in `strict` go first, the higher number first; the rest share by deficit weighted
// round robin (Shreedhar & Varghese, SIGCOMM'95) in proportion to their weights.
struct QueuesSpec {
    std::vector<int> strict{6, 7};                       // CNPs (priority 6, below) and network control (7)
    std::array<int, 8> weights{1, 1, 1, 1, 1, 1, 1, 1};  // DWRR weights, equal by default
    bool operator==(const QueuesSpec&) const = default;
};

inline constexpr std::int64_t kRoceHeaderBytes = 82;

struct RoceSpec {
    PfcSpec pfc;
    EcnSpec ecn;
    DcqcnSpec dcqcn;
    MmuSpec mmu;
    QueuesSpec queues;
    // The priority of CNPs, ACKs and NAKs: NVIDIA ConnectX's default CNP priority is 6
    // (mlxconfig CNP_802P_PRIO; NVIDIA "RoCE congestion control" docs), in a strict queue.
    int control_priority = 6;
    // The receiver acknowledges every ack_every packets of a QP, and each message's last one.
    // 1 as in the HPCC ns-3 RDMA model's configs (L2_ACK_INTERVAL 1).
    int ack_every = 1;
    // Go-back-N retransmission timeout (lossy mode): 4.096 us x 2^18 = 1.074 s, the IBA local
    // ACK timeout formula (IBA Vol. 1 §9.7.6.1.3) at NCCL_IB_TIMEOUT's default of 18.
    Time retransmit_timeout = Time::ns(4096) * (std::int64_t{1} << 18);
    bool lossless = true;  // false: lossy mode, drops and go-back-N (docs/models/);
                           // PFC is then off whatever pfc.enabled says
    // Bytes each packet carries on the wire beside its payload (docs/models/links.md): RoCEv2
    // over untagged Ethernet, 82 = preamble+SFD 8 and inter-frame gap 12 (IEEE 802.3 clauses 3
    // and 4), Ethernet header 14 and FCS 4 (IEEE 802.3 §3.2), IPv4 20 (RFC 791), UDP 8
    // (RFC 768), BTH 12 and ICRC 4 (IBTA Vol. 1 Annex A17, RoCEv2). A VLAN tag adds 4, IPv6 20.
    std::int64_t header_bytes = kRoceHeaderBytes;
    bool operator==(const RoceSpec&) const = default;
};

}  // namespace fabricsim::scenario
