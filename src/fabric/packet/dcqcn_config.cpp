#include "fabric/packet/dcqcn_config.hpp"

#include "core/errors.hpp"
#include "core/units_format.hpp"

#include <fmt/format.h>

namespace fabricsim::fabric {

congestion::DcqcnParams dcqcn_params(const scenario::DcqcnSpec& s, Bandwidth line_rate) {
    congestion::DcqcnParams p = s.preset == scenario::DcqcnPreset::paper ? congestion::DcqcnParams::paper()
                                                                         : congestion::DcqcnParams::nic(line_rate);
    if (s.g) p.g = *s.g;
    if (s.rate_ai) p.rate_ai = *s.rate_ai;
    if (s.rate_hai) p.rate_hai = *s.rate_hai;
    if (s.alpha_update_interval) p.alpha_update_interval = *s.alpha_update_interval;
    if (s.rate_decrease_interval) p.rate_decrease_interval = *s.rate_decrease_interval;
    if (s.rate_increase_timer) p.rate_increase_timer = *s.rate_increase_timer;
    if (s.byte_counter) p.byte_counter = *s.byte_counter;
    if (s.fast_recovery_steps) p.fast_recovery_steps = *s.fast_recovery_steps;
    if (s.clamp_target_rate) p.clamp_target_rate = *s.clamp_target_rate;
    if (s.min_rate) p.min_rate = *s.min_rate;
    if (s.cnp_interval) p.cnp_interval = *s.cnp_interval;
    return p;
}

void check_dcqcn_line_rates(const Topology& topology, const scenario::RoceSpec& roce) {
    if (!roce.dcqcn.enabled) return;
    for (const Link& link : topology.links())
        for (const bool reverse : {false, true}) {
            const Node& nic = topology.node(reverse ? link.b : link.a);
            const Node& to = topology.node(reverse ? link.a : link.b);
            if (nic.kind != NodeKind::nic || !is_fabric_switch(to.kind)) continue;
            const Bandwidth floor = dcqcn_params(roce.dcqcn, link.bandwidth).min_rate;
            if (floor <= link.bandwidth) continue;
            throw_config_error(
                "cluster.roce.dcqcn.min_rate",
                fmt::format("{} is above the {} line rate of {}'s link to {}; DCQCN cuts a QP's rate down to "
                            "min_rate, so expected min_rate at most the slowest NIC link's rate (set "
                            "cluster.roce.dcqcn.min_rate, or make the link faster)",
                            to_string(floor), to_string(link.bandwidth), nic.name, to.name));
        }
}

}  // namespace fabricsim::fabric
