// cluster.iwarp: the key table of IwarpSpec (iwarp_spec.hpp has the source of each default), and what the
// iWARP fabric (cluster.fabric.technology: iwarp) changes in the rest of the cluster: the
// fabric's packet is the segment's RDMA payload (mss - 20, replacing fabric.mtu), each packet
// carries the TCP/IP/MPA headers (roce.header_bytes), the Ethernet is lossy (roce.lossless:
// false unless written) and DCQCN is off (TCP's congestion control instead); with DCTCP the
// marker marks every packet above K = ecn.kmin (kmax = kmin unless written: step marking).
// The timeout floor is iwarp.min_rto, else the NIC preset's tcp_min_rto, else Linux's 200 ms;
// the send jitter is iwarp.send_jitter, else one full segment on the wire at the NIC's line rate.
// An iWARP storage fabric (cluster.storage_fabric.technology: iwarp) takes the segment as its
// packet in the same way (its links' classes: rate and efficiency).
#pragma once

#include "scenario/issues.hpp"
#include "scenario/iwarp_spec.hpp"
#include "scenario/key_table.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <optional>

namespace fabricsim::scenario {

const Table<IwarpSpec>& iwarp_table();

// `node`: cluster.iwarp (may be null); `cluster`: the mapping cluster (for the keys the fabric
// replaces). Changes `spec` as above when spec.fabric.iwarp.
void validate_iwarp(const Node* node, const Node& cluster, std::optional<Bandwidth> link_speed, ClusterSpec& spec,
                    Issues& issues);

}  // namespace fabricsim::scenario
