// What a `traffic` entry produced, in engine units (docs/models/traffic.md).
#pragma once

#include "core/units.hpp"

#include <cstdint>
#include <string>

namespace fabricsim::report {

struct TrafficResult {
    std::string name;
    std::string pattern;          // "incast", "poisson", ...
    std::int64_t flows = 0;       // messages delivered
    std::int64_t unfinished = 0;  // cut off by simulation.stop_time
    Bytes bytes;                  // delivered
    Time start;                   // first message issued
    Time finish;                  // last message delivered
    Time fct_p50, fct_p99;        // nearest-rank percentiles over the entry's messages
    double slowdown_p99 = 0;

    // poisson: bytes that arrived in the window / (senders · line rate · window)
    bool has_load = false;
    double offered_load = 0;
    double achieved_load = 0;

    // gpu_pool: a call's added latency is from its request's issue to its last message's
    // delivery, the network time remoting adds over a local GPU
    bool gpu_pool = false;
    std::int64_t calls = 0;
    Time added_latency_mean, added_latency_p99;
    double calls_per_s = 0;  // calls / (last call's end - first call's start)
    double bytes_per_s = 0;  // every byte of the calls over the same span
};

}  // namespace fabricsim::report
