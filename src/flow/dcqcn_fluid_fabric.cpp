#include "flow/dcqcn_fluid_fabric.hpp"

#include "core/errors.hpp"
#include "fabric/ib_vl_buffer.hpp"
#include "fabric/pfc_headroom.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

namespace fabricsim::flow {

using fabric::DirectedLink;
using scenario::Technology;

namespace {
constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max();
}  // namespace

Bytes fluid_queue_limit(const fabric::Topology& topology, const scenario::ClusterSpec& c, DirectedLink out,
                        const std::vector<DirectedLink>& feeders) {
    const fabric::Node& sw = topology.node(topology.source(out));
    if (!fabric::is_fabric_switch(sw.kind)) return Bytes::zero();  // the sender's own port
    const auto n = static_cast<std::int64_t>(std::max<std::size_t>(feeders.size(), 1));
    if (c.fabric.technology == Technology::infiniband) {
        std::int64_t total = 0;
        for (DirectedLink in : feeders) {
            const fabric::Link& link = topology.link(in.link);
            Bytes b = c.infiniband.vl_buffer ? *c.infiniband.vl_buffer
                                             : fabric::ib_round_trip_buffer(link, sw.forwarding_latency, c.fabric.mtu);
            if (!c.infiniband.vl_buffer) b = std::max(b, fabric::ib_switch_share(sw, c.infiniband.virtual_lanes));
            total += b.count();
        }
        return Bytes{std::max<std::int64_t>(total, 1)};
    }
    if (!c.roce.lossless || !c.roce.pfc.enabled) return Bytes{kUnbounded};
    if (c.roce.pfc.xoff) return Bytes{n * c.roce.pfc.xoff->count()};
    const double alpha =
        scenario::mmu_alpha(c.roce.mmu, topology.link(feeders.empty() ? out.link : feeders[0].link).bandwidth);
    // Each of the n ingress queues pauses at its reserved space plus α × the free shared pool S
    // (SwitchMmu::threshold; S is the buffer less what roce_switch_reservation sets aside):
    // with all of them full at the port, q = n·(r + α·(S − q)).
    const double pool = static_cast<double>(
        std::max(Bytes::zero(), sw.buffer - fabric::roce_switch_reservation(topology, c.roce, c.fabric.mtu, sw).total())
            .count());
    const double r = static_cast<double>(c.roce.mmu.reserved_per_queue.count());
    const double nd = static_cast<double>(n);
    return Bytes{static_cast<std::int64_t>(nd * (r + alpha * pool) / (1.0 + nd * alpha))};
}

FluidParams fluid_params_of(const scenario::ClusterSpec& c) {
    FluidParams params;
    params.mtu = static_cast<double>(c.fabric.mtu.count());
    if (c.fabric.technology != Technology::roce || !c.roce.dcqcn.enabled) {
        params.react = false;
        return params;
    }
    // The NIC preset scales R_AI and R_HAI with the line rate; a fabric's NICs share one.
    const Bandwidth line = c.server.nic.line_rate;
    congestion::DcqcnParams d = c.roce.dcqcn.preset == scenario::DcqcnPreset::paper
                                    ? congestion::DcqcnParams::paper()
                                    : congestion::DcqcnParams::nic(line);
    const scenario::DcqcnSpec& o = c.roce.dcqcn;
    if (o.g) d.g = *o.g;
    if (o.rate_ai) d.rate_ai = *o.rate_ai;
    if (o.rate_hai) d.rate_hai = *o.rate_hai;
    if (o.alpha_update_interval) d.alpha_update_interval = *o.alpha_update_interval;
    if (o.rate_decrease_interval) d.rate_decrease_interval = *o.rate_decrease_interval;
    if (o.rate_increase_timer) d.rate_increase_timer = *o.rate_increase_timer;
    if (o.byte_counter) d.byte_counter = *o.byte_counter;
    if (o.fast_recovery_steps) d.fast_recovery_steps = *o.fast_recovery_steps;
    if (o.clamp_target_rate) d.clamp_target_rate = *o.clamp_target_rate;
    if (o.min_rate) d.min_rate = *o.min_rate;
    if (o.cnp_interval) d.cnp_interval = *o.cnp_interval;
    return fluid_params(d, c.fabric.mtu, line);
}

FluidFabric fluid_fabric(const fabric::Topology& topology, const fabric::Routing& routing,
                         const scenario::ClusterSpec& c, Time step, std::span<const FluidDemand> demands) {
    const bool roce = c.fabric.technology == Technology::roce;
    // Every demand's path, and the links in the order first met.
    std::vector<std::vector<DirectedLink>> paths;
    std::vector<DirectedLink> links;
    std::unordered_map<std::uint32_t, std::uint32_t> local;
    std::unordered_map<std::uint32_t, std::vector<DirectedLink>> feeders;
    Time max_delay = Time::zero();
    std::vector<Time> delays;
    for (const FluidDemand& d : demands) {
        const fabric::NodeId src = topology.endpoint_node(d.src), dst = topology.endpoint_node(d.dst);
        std::vector<DirectedLink> path = routing.path(fabric::FlowKey{src, dst, d.qp});
        if (path.empty())
            throw ModelError(fmt::format("DCQCN fluid model: no route from {} to {}", topology.node(src).name,
                                         topology.node(dst).name));
        Time delay = Time::zero();
        for (std::size_t h = 0; h < path.size(); ++h) {
            const DirectedLink l = path[h];
            if (local.emplace(l.index(), static_cast<std::uint32_t>(links.size())).second) links.push_back(l);
            if (h > 0) {
                auto& in = feeders[l.index()];
                if (std::find(in.begin(), in.end(), path[h - 1]) == in.end()) in.push_back(path[h - 1]);
            }
            delay += topology.link(l.link).propagation + topology.node(topology.target(l)).forwarding_latency;
        }
        delays.push_back(delay * 2);  // the data there, its CNP back the same way
        max_delay = std::max(max_delay, delay * 2);
        paths.push_back(std::move(path));
    }
    const Bandwidth line = c.server.nic.line_rate;
    const FluidParams params = fluid_params_of(c);
    FluidFabric out{DcqcnFluid(params, step, max_delay), links};
    for (DirectedLink l : links) {
        const fabric::Link& link = topology.link(l.link);
        FluidLink fl;
        fl.capacity = link.payload_bandwidth();
        const bool marks =
            roce && c.roce.ecn.enabled && fabric::is_fabric_switch(topology.node(topology.source(l)).kind);
        if (marks) {
            const scenario::EcnThresholds t = scenario::ecn_thresholds(c.roce.ecn, link.bandwidth);
            fl.red = congestion::RedParams{t.kmin, t.kmax, c.roce.ecn.pmax};
        } else {
            fl.red = congestion::RedParams{Bytes::zero(), Bytes::zero(), 0.0};
        }
        auto it = feeders.find(l.index());
        fl.queue_limit =
            fluid_queue_limit(topology, c, l, it == feeders.end() ? std::vector<DirectedLink>{} : it->second);
        out.model.add_link(fl);
    }
    for (std::size_t i = 0; i < demands.size(); ++i) {
        // The sender's line rate: the payload rate of the link its NIC sends on.
        Bandwidth nic = line;
        for (DirectedLink l : paths[i])
            if (topology.node(topology.source(l)).kind == fabric::NodeKind::nic) {
                nic = topology.link(l.link).payload_bandwidth();
                break;
            }
        out.model.begin_flow(nic, demands[i].bytes, delays[i], nic);
        for (DirectedLink l : paths[i]) out.model.add_use(local.at(l.index()), 1.0);
        out.model.end_flow();
    }
    out.model.start();
    return out;
}

}  // namespace fabricsim::flow
