// Where ranks live: rank r is GPU r mod G of server r div G, served by NIC (local · nics / G)
// of its server (its rail). The same rule as the topology builder's RankInfo, computed from
// the cluster spec alone so workloads can be planned without building the graph.
#pragma once

#include "core/ids.hpp"
#include "scenario/spec.hpp"

namespace fabricsim::workloads {

class RankLayout {
public:
    explicit RankLayout(const scenario::ClusterSpec& cluster);
    RankLayout(int servers, int ranks_per_server, int nics_per_server);

    int ranks() const { return servers_ * per_server_; }
    int servers() const { return servers_; }
    int ranks_per_server() const { return per_server_; }
    int nics_per_server() const { return nics_; }

    int server(RankId r) const { return static_cast<int>(r.value()) / per_server_; }
    int local(RankId r) const { return static_cast<int>(r.value()) % per_server_; }
    int rail(RankId r) const { return local(r) * nics_ / per_server_; }
    RankId rank(int server, int local) const { return RankId{static_cast<RankId::rep>(server * per_server_ + local)}; }
    bool same_server(RankId a, RankId b) const { return server(a) == server(b); }

private:
    int servers_;
    int per_server_;
    int nics_;
};

}  // namespace fabricsim::workloads
