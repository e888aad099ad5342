// What a capacity plan says about a fabric beyond its counts (docs/PLANNING.md): the buffer
// each switch tier needs for PFC against the buffer it has, where ECN marks against where PFC
// pauses, and whether a rail-optimized design gives up bisection bandwidth. The counts,
// bisection, oversubscription, diameter and latency are TopologySummary's (reused, not redone).
//
// Per RoCE switch (the worst switch of each tier), as the packet model carves its buffer
// (fabric/pfc_headroom.hpp, docs/models/pfc.md):
//   headroom  = sum over its ports of the 802.1Qbb worst case of the port's link (or the
//               scenario's pfc.headroom) x lossless priorities
//   reserved  = mmu.reserved_per_queue x (lossless priorities + the control priority) x ports
//   free      = buffer - headroom - reserved;  XOFF = pfc.xoff or floor(mmu.alpha x free), the
//               dynamic threshold with the buffer otherwise empty (its largest value)
// Warnings:
//   headroom + reserved >= buffer   the packet model refuses the scenario (exit 2)
//   Kmax >= XOFF                    a queue pauses its peer before ECN marks every packet, so
//                                   DCQCN reacts after PFC has already spread the congestion
//                                   (Zhu et al., SIGCOMM 2015, §5: ECN must act before PFC)
//   rail cross-rail < leaf-spine's  cross-rail bandwidth: max flow (one direction) from the NICs
//                                   of the first half of the rails to those of the second half
//                                   (GPU i to GPU j != i of other servers, without PXN). On rails
//                                   it all climbs to the spines; a leaf-spine of the same servers,
//                                   switches and ratio meets part of it inside a leaf, so an
//                                   oversubscribed rail design loses bandwidth there
// InfiniBand has no PFC: credits stop the sender, so only the buffer per port is given.
#pragma once

#include "core/units.hpp"
#include "fabric/topology.hpp"
#include "fabric/topology_summary.hpp"
#include "scenario/spec.hpp"

#include <string>
#include <vector>

namespace fabricsim::report {

struct TierBuffer {
    std::string tier;  // "leaf", "spine", "core"
    std::string sw;    // the switch the figures are for (the tier's worst)
    int ports = 0;     // ports in use
    Bytes buffer;      // the switch's shared buffer
    Bytes per_port;    // buffer / ports
    // RoCE with PFC only:
    int lossless = 0;         // lossless priorities
    Bytes headroom_per_port;  // the largest of its ports, per lossless priority
    Bytes headroom;           // all ports, all lossless priorities
    Bytes reserved;
    Bytes free;  // buffer - headroom - reserved, 0 when it does not fit
    Bytes xoff;
    Bytes kmax;  // 0: ECN off
    bool fits = true;
};

struct FabricChecks {
    bool pfc = false;  // RoCE, lossless, PFC on
    bool ecn = false;
    std::vector<TierBuffer> tiers;
    // rail-optimized only: cross-rail bandwidth, and the same for the cluster as a leaf-spine
    bool rail = false;
    Bandwidth cross_rail;
    Bandwidth reference_cross_rail;
    std::vector<std::string> warnings;
};

// `summary` must be summarize(topology, cluster).
FabricChecks check_fabric(const fabric::Topology& topology, const scenario::ClusterSpec& cluster,
                          const fabric::TopologySummary& summary);

}  // namespace fabricsim::report
