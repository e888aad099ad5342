// The DCQCN fluid model (dcqcn_fluid.hpp) of a set of flows on a built fabric: which links,
// at what payload rate, with which RED thresholds, back-pressure limits and feedback delays,
// read from the same scenario keys the packet model reads (docs/models/flow.md,
// "Congestion control"):
//
//   capacity     Link::payload_bandwidth, as the max-min solver
//   RED          cluster.roce.ecn at a switch's egress (Kmin/Kmax per port speed, Pmax); a NIC
//                does not mark; InfiniBand and ecn.enabled: false never mark
//   DCQCN        cluster.roce.dcqcn (preset and overrides) at each flow's NIC line rate;
//                InfiniBand, or dcqcn.enabled: false: no rate control (back-pressure only)
//   q_max        a NIC's uplink: 0 (the sender holds back what its port cannot take); a switch's
//                egress with n ingress links feeding it: RoCE with PFC, n · XOFF, XOFF the
//                static roce.pfc.xoff or the dynamic threshold's steady state with the n
//                ingress queues full, r + α·(S − q) each (S the shared pool the MMU leaves
//                of the buffer, r the reserved space per queue, as SwitchMmu carves them):
//                q_max = n·(r + α·S) / (1 + n·α); InfiniBand,
//                n · the VL buffer of each ingress link (cluster.infiniband.vl_buffer, or as
//                the packet model's credits size it); lossy RoCE or PFC off: unbounded
//   τ*           the path's propagation and forwarding latency there and back: the data to
//                the receiver, its CNP back
#pragma once

#include "fabric/routing.hpp"
#include "fabric/topology.hpp"
#include "flow/dcqcn_fluid.hpp"
#include "scenario/spec.hpp"

#include <span>

namespace fabricsim::flow {

// The fluid parameters of cluster.roce.dcqcn (preset and overrides, as the packet model reads
// them) at the NIC line rate; react = false for InfiniBand or dcqcn.enabled: false.
FluidParams fluid_params_of(const scenario::ClusterSpec& cluster);

// q_max of the header for the directed link `out`, fed by the directed links `feeders` (zero at
// a NIC, unbounded for lossy RoCE).
Bytes fluid_queue_limit(const fabric::Topology& topology, const scenario::ClusterSpec& cluster,
                        fabric::DirectedLink out, const std::vector<fabric::DirectedLink>& feeders);

struct FluidDemand {
    RankId src, dst;  // endpoints (Topology::endpoint_node)
    double bytes = kEndless;
    std::uint32_t qp = 0;  // the flow key's QP: which ECMP path
};

// `step`: the Euler step. The model's flow i is demands[i]; its links are the directed links
// the demands cross, in the order first met (link_of() maps them back). Throws ModelError for
// a demand with no route.
struct FluidFabric {
    DcqcnFluid model;
    std::vector<fabric::DirectedLink> link_of;  // model link -> directed link
};
FluidFabric fluid_fabric(const fabric::Topology& topology, const fabric::Routing& routing,
                         const scenario::ClusterSpec& cluster, Time step, std::span<const FluidDemand> demands);

}  // namespace fabricsim::flow
