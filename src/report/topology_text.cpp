#include "report/topology_text.hpp"

#include "report/display_units.hpp"

#include <string_view>

#include <fmt/format.h>

namespace fabricsim::report {

std::string topology_text(const fabric::TopologySummary& s) {
    std::string out;
    const auto line = [&out](std::string_view label, const std::string& text) {
        out += fmt::format("  {:<14}{}\n", label, text);
    };
    std::string kind = s.topology;
    if (s.topology != s.requested_topology) kind += fmt::format(" (asked: {})", s.requested_topology);
    line("fabric", fmt::format("{}, {}, {} plane{}, links at {}", kind, s.technology, s.planes,
                               s.planes == 1 ? "" : "s", human(s.link_speed)));
    line("servers", fmt::format("{} ({} ranks, {} GPUs)", s.servers, s.ranks, s.gpus));
    line("NICs", fmt::format("{} compute, {} storage; {} storage nodes", s.nics, s.storage_nics, s.storage_nodes));
    if (s.clients > 0)
        line("clients", fmt::format("{} client host{} ({} NIC{} on the compute fabric)", s.clients,
                                    s.clients == 1 ? "" : "s", s.client_nics, s.client_nics == 1 ? "" : "s"));
    if (s.topology == "custom")
        line("switches",
             fmt::format("leaf {}, spine {}, core {} (tiers by hops from the NICs; up to {} ports each, "
                         "cabled as written); NVSwitch {}, PCIe {}",
                         s.switches.leaf, s.switches.spine, s.switches.core, s.radix, s.nvswitches, s.pcie_switches));
    else
        line("switches", fmt::format("leaf {}, spine {}, core {} ({} ports each: leaf {} down / {} up / {} spare); "
                                     "NVSwitch {}, PCIe {}",
                                     s.switches.leaf, s.switches.spine, s.switches.core, s.radix, s.leaf_down,
                                     s.leaf_up, s.leaf_spare, s.nvswitches, s.pcie_switches));
    if (s.storage_switches.total() > 0)
        line("storage", fmt::format("leaf {}, spine {}, core {}", s.storage_switches.leaf, s.storage_switches.spine,
                                    s.storage_switches.core));
    std::string links;
    for (const auto& [type, n] : s.links) links += fmt::format("{}{} {}", links.empty() ? "" : ", ", type, n);
    line("links", links);
    std::string tiers;
    for (const auto& [tier, n] : s.cables.by_tier) tiers += fmt::format("{}{} {}", tiers.empty() ? "" : ", ", tier, n);
    line("cables", fmt::format("{}: copper {}, optical {}, transceivers {}{}", s.cables.total(), s.cables.copper,
                               s.cables.optical, s.cables.transceivers, tiers.empty() ? "" : " (" + tiers + ")"));
    line("spare ports", fmt::format("{} on the compute fabric's switches", s.spare_ports));
    line("bisection", fmt::format("{} (one direction)", human(s.bisection)));
    std::string over;
    for (const auto& o : s.oversubscription)
        over += fmt::format("{}{} {:.3g}:1", over.empty() ? "" : ", ", o.tier, o.ratio);
    line("oversub.", over.empty() ? "none (one switch)" : over);
    line("diameter", fmt::format("{} hops between NICs", s.diameter_hops));
    line("latency",
         fmt::format("{} NIC to NIC at most (zero load: cables and switches)", human(s.max_nic_to_nic_latency)));
    if (s.nvlink_per_gpu > Bandwidth::zero())
        line("NVLink", fmt::format("{:g} GB/s per GPU per direction", s.nvlink_per_gpu.bytes_per_second() / 1e9));
    if (s.topology == "custom")
        line("capacity", "as written (cluster.fabric.links): a custom fabric is not sized from a plan");
    else
        line("capacity", fmt::format("up to {} servers on {}-port switches as a {} fabric", s.max_servers, s.radix,
                                     s.requested_topology));
    return out;
}

}  // namespace fabricsim::report
