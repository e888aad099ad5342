// `- traffic: <pattern>` workload entries: synthetic traffic between ranks (and storage
// nodes / GPU-pool clients), docs/models/traffic.md.
#pragma once

#include "core/ids.hpp"
#include "core/units.hpp"

#include <string>
#include <vector>

namespace fabricsim::scenario {

enum class TrafficPattern { permutation, incast, all_to_all, poisson, storage, gpu_pool };

struct TrafficSpec {
    TrafficPattern pattern = TrafficPattern::permutation;
    Bytes size;                        // per flow (poisson: sizes come from `cdf`)
    std::vector<RankId> senders;       // empty: every rank (incast: every rank but the receiver)
    RankId receiver{0};                // incast
    double load = 0;                   // poisson: offered load, fraction of each sender's NIC rate
    std::string cdf;                   // poisson: websearch | fb_hadoop | a file
    Time start = Time::zero();
    Time duration = Time::zero();      // poisson: arrivals in [start, start + duration)
    bool operator==(const TrafficSpec&) const = default;
};

}  // namespace fabricsim::scenario
