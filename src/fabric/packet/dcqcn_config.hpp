// The DCQCN parameters a RoCE NIC's QPs run with (cluster.roce.dcqcn over its preset,
// docs/models/dcqcn.md), and the check, before a run, that every NIC link can run them.
#pragma once

#include "congestion/dcqcn.hpp"
#include "core/units.hpp"
#include "fabric/topology.hpp"
#include "scenario/roce_spec.hpp"

namespace fabricsim::fabric {

// The preset (`nic`: scaled to `line_rate`; `paper`) with every given override.
congestion::DcqcnParams dcqcn_params(const scenario::DcqcnSpec& spec, Bandwidth line_rate);

// A ConfigError at cluster.roce.dcqcn.min_rate when a NIC's link into the fabric is slower than
// the minimum rate DCQCN may cut a QP to (congestion::Dcqcn refuses it when the QP is made),
// naming the link; nothing when DCQCN is off.
void check_dcqcn_line_rates(const Topology& topology, const scenario::RoceSpec& roce);

}  // namespace fabricsim::fabric
