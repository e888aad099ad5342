#include "workloads/rank_layout.hpp"

#include "core/errors.hpp"

namespace fabricsim::workloads {

RankLayout::RankLayout(const scenario::ClusterSpec& cluster)
    : RankLayout(cluster.servers, cluster.server.ranks(), cluster.server.nics) {}

RankLayout::RankLayout(int servers, int ranks_per_server, int nics_per_server)
    : servers_(servers), per_server_(ranks_per_server), nics_(nics_per_server) {
    if (servers_ < 1 || per_server_ < 1 || nics_ < 1)
        throw InternalError("RankLayout needs at least one server, rank and NIC");
}

}  // namespace fabricsim::workloads
