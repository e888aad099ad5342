// `- traffic: <pattern>` workload entries: synthetic traffic between ranks, storage nodes and
// GPU-pool clients (docs/models/traffic.md). The parameters sit beside the kind key.
#pragma once

#include "core/ids.hpp"
#include "core/units.hpp"
#include "scenario/flow_size_cdf.hpp"

#include <string>
#include <vector>

namespace fabricsim::scenario {

enum class TrafficPattern { permutation, incast, all_to_all, poisson, storage, gpu_pool };
enum class StorageOperation { read, write };  // read: storage node -> GPU; write: GPU -> storage node

struct TrafficSpec {
    TrafficPattern pattern = TrafficPattern::permutation;
    Bytes size;                   // per flow (storage: per rank; poisson: from `cdf`)
    std::vector<RankId> senders;  // empty: every rank (incast: every rank but the receiver)
    RankId receiver{0};           // incast
    Time start = Time::zero();    // the first flow's (poisson: the first arrival window's)

    // poisson
    double load = 0;                // offered load, fraction of each sender's NIC rate
    std::string cdf = "websearch";  // websearch | fb_hadoop | a file (as the loader resolved it)
    FlowSizeCdf sizes;              // the distribution `cdf` names
    Time duration = Time::zero();   // arrivals in [start, start + duration)

    // storage and gpu_pool: the GPU ranks taking part; empty: every rank
    std::vector<RankId> ranks;
    StorageOperation operation = StorageOperation::read;

    // gpu_pool: client k runs `concurrency` chains of `calls` calls each
    int clients = 0;               // 0: every client host of cluster.clients
    int calls = 1;                 // per chain
    int concurrency = 1;           // chains per client (calls in flight)
    Bytes request = Bytes{256};    // RPC client -> GPU
    Bytes response = Bytes{256};   // RPC GPU -> client
    Bytes copy;                    // host -> GPU bulk copy per call
    Bytes copy_back;               // GPU -> host bulk copy per call
    Time interval = Time::zero();  // a chain's call i starts no earlier than start + i·interval

    bool operator==(const TrafficSpec&) const = default;
};

}  // namespace fabricsim::scenario
