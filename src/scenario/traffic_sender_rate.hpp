// The rate one rank can inject into the fabric (docs/models/traffic.md): its share of its
// server's NICs, at most one NIC's line rate. A Poisson traffic entry's `load` is a fraction
// of it: the workload paces its arrivals by it (workloads/traffic.cpp) and validation bounds
// the flows it will make (traffic_keys.cpp), so it lives with the spec both read.
#pragma once

#include "core/units.hpp"
#include "scenario/spec.hpp"

#include <algorithm>

namespace fabricsim::scenario {

inline Bandwidth traffic_sender_rate(const ClusterSpec& cluster) {
    const Bandwidth line = cluster.server.nic.line_rate;
    const Bandwidth share = line * cluster.server.nics / cluster.server.ranks();
    return std::min(line, share);
}

}  // namespace fabricsim::scenario
