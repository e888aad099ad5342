// The IB CC parameters a source runs (congestion::IbCcParams) from the scenario's
// cluster.infiniband.congestion_control: the defaults for its line rate and MTU (the `auto`
// table and limit, congestion::IbCcParams::defaults) with the scenario's overrides. Read by
// the packet model's sources (packet/ib_fabric.cpp) and the flow model's overlay
// (flow/flow_congestion.cpp).
#pragma once

#include "congestion/ib_cc.hpp"
#include "scenario/infiniband_spec.hpp"

namespace fabricsim::fabric {

inline congestion::IbCcParams ib_cc_params(const scenario::IbCongestionControlSpec& cc, Bandwidth line, Bytes mtu) {
    congestion::IbCcParams p = congestion::IbCcParams::defaults(line, mtu);
    p.ccti_increase = cc.ccti_increase;
    p.ccti_min = cc.ccti_min;
    p.ccti_timer = cc.ccti_timer;
    if (cc.table) {
        p.table.clear();
        for (const auto& e : *cc.table) p.table.push_back(congestion::CctEntry{e.shift, e.multiplier});
        p.ccti_limit = static_cast<int>(p.table.size()) - 1;
    }
    if (cc.ccti_limit) {
        p.ccti_limit = *cc.ccti_limit;
        if (!cc.table)
            p.table = congestion::IbCcParams::linear_table(congestion::kCctMaxDelay,
                                                           congestion::cct_packet_time(line, mtu), p.ccti_limit);
    }
    return p;
}

}  // namespace fabricsim::fabric
