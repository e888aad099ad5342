#include "fabric/topology_builder.hpp"

namespace fabricsim::fabric {

Topology build_topology(const scenario::ClusterSpec& cluster) {
    Topology topology;
    detail::build_servers(topology, cluster);
    detail::build_compute_fabric(topology, cluster);
    detail::build_storage_fabric(topology, cluster);
    return topology;
}

}  // namespace fabricsim::fabric
