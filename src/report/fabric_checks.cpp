#include "report/fabric_checks.hpp"

#include "core/errors.hpp"
#include "core/units_format.hpp"
#include "fabric/pfc_headroom.hpp"
#include "fabric/topology_builder.hpp"
#include "report/display_units.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::report {

namespace {

// The headroom one lossless priority of `link` needs (the scenario's, or the 802.1Qbb worst case).
Bytes link_headroom(const fabric::Link& link, const scenario::ClusterSpec& cluster) {
    return fabric::roce_link_headroom(cluster.roce, link, cluster.fabric.mtu);
}

TierBuffer switch_buffer(const fabric::Topology& t, const fabric::Node& n, const scenario::ClusterSpec& cluster,
                         bool pfc, bool ecn) {
    TierBuffer b;
    b.tier = std::string(fabric::to_string(n.kind));
    b.sw = n.name;
    b.ports = static_cast<int>(n.ports.size());
    b.buffer = n.buffer;
    b.per_port = b.ports > 0 ? Bytes{n.buffer.count() / b.ports} : Bytes::zero();
    if (!pfc) return b;
    const auto& roce = cluster.roce;
    b.lossless = static_cast<int>(roce.pfc.priorities.size());
    const bool control_lossless = std::find(roce.pfc.priorities.begin(), roce.pfc.priorities.end(),
                                            roce.control_priority) != roce.pfc.priorities.end();
    const std::int64_t queues = b.lossless + (control_lossless ? 0 : 1);
    Bandwidth fastest;
    for (const fabric::Port& p : n.ports) {
        const fabric::Link& l = t.link(p.link);
        const Bytes h = link_headroom(l, cluster);
        b.headroom_per_port = std::max(b.headroom_per_port, h);
        b.headroom += h * static_cast<std::int64_t>(b.lossless);
        fastest = std::max(fastest, l.bandwidth);
    }
    b.reserved = roce.mmu.reserved_per_queue * queues * static_cast<std::int64_t>(b.ports);
    b.fits = b.headroom + b.reserved < b.buffer;
    b.free = b.fits ? b.buffer - b.headroom - b.reserved : Bytes::zero();
    b.xoff = roce.pfc.xoff ? *roce.pfc.xoff : fabric::xoff_threshold(b.free, roce.mmu.alpha);
    if (ecn) b.kmax = roce.ecn.kmax ? *roce.ecn.kmax : scenario::ecn_kmax_auto(fastest);
    return b;
}

// Max flow from the NICs of rails [0, K/2) of every server to those of rails [K/2, K).
Bandwidth cross_rail_bandwidth(const fabric::Topology& t) {
    std::vector<fabric::NodeId> low, high;
    for (const fabric::ServerInfo& s : t.servers())
        for (std::size_t r = 0; r < s.nics.size(); ++r) (2 * r < s.nics.size() ? low : high).push_back(s.nics[r]);
    return fabric::max_flow(t, low, high, {fabric::LinkType::fabric});
}

}  // namespace

FabricChecks check_fabric(const fabric::Topology& t, const scenario::ClusterSpec& cluster,
                          const fabric::TopologySummary& summary) {
    FabricChecks out;
    const bool roce = cluster.fabric.technology == scenario::Technology::roce;
    out.pfc = roce && cluster.roce.lossless && cluster.roce.pfc.enabled;
    out.ecn = roce && cluster.roce.ecn.enabled;

    // The worst switch of each compute tier: the one with the least free buffer.
    for (fabric::NodeKind kind : {fabric::NodeKind::leaf, fabric::NodeKind::spine, fabric::NodeKind::core}) {
        std::optional<TierBuffer> worst;
        for (const fabric::Node& n : t.nodes()) {
            if (n.kind != kind || n.storage_fabric) continue;
            TierBuffer b = switch_buffer(t, n, cluster, out.pfc, out.ecn);
            const auto need = [](const TierBuffer& x) { return x.headroom + x.reserved - x.buffer; };
            if (!worst || need(b) > need(*worst) || (need(b) == need(*worst) && b.per_port < worst->per_port))
                worst = std::move(b);
        }
        if (worst) out.tiers.push_back(std::move(*worst));
    }

    for (const TierBuffer& b : out.tiers) {
        if (!out.pfc) continue;
        if (!b.fits) {
            out.warnings.push_back(fmt::format(
                "PFC headroom does not fit: {} switch {} needs {} of headroom and {} reserved for its {} ports, more "
                "than its {} buffer; the packet model refuses this fabric (shorter cables, fewer lossless "
                "priorities or a switch with a larger buffer)",
                b.tier, b.sw, human(b.headroom), human(b.reserved), b.ports, human(b.buffer)));
            continue;
        }
        if (out.ecn && b.kmax >= b.xoff)
            out.warnings.push_back(fmt::format(
                "ECN Kmax {} is not below XOFF {} on {} switches ({} free of {} with the buffer otherwise empty, "
                "alpha {}): PFC pauses before ECN marks every packet, so DCQCN reacts after the pause has spread; "
                "lower cluster.roce.ecn.kmax",
                human(b.kmax), human(b.xoff), b.tier, human(b.free), human(b.buffer), cluster.roce.mmu.alpha));
    }

    if (cluster.fabric.topology == scenario::TopologyKind::rail_optimized && summary.topology == "rail-optimized") {
        out.rail = true;
        out.cross_rail = cross_rail_bandwidth(t);
        scenario::ClusterSpec plain = cluster;
        plain.fabric.topology = scenario::TopologyKind::leaf_spine;
        try {
            out.reference_cross_rail = cross_rail_bandwidth(fabric::build_topology(plain));
        } catch (const ConfigError&) {
            out.reference_cross_rail = Bandwidth::zero();  // no leaf-spine of this size: nothing to compare
        }
        if (out.reference_cross_rail > out.cross_rail) {
            const double lost = 1.0 - static_cast<double>(out.cross_rail.bits_per_second()) /
                                          static_cast<double>(out.reference_cross_rail.bits_per_second());
            out.warnings.push_back(fmt::format(
                "the rail-optimized design carries {} between the two halves of its rails, {:.0f} % less than the {} "
                "of a leaf-spine of the same switches and ratio: traffic between rails all climbs to the spines",
                human(out.cross_rail), lost * 100.0, human(out.reference_cross_rail)));
        }
    }
    return out;
}

}  // namespace fabricsim::report
