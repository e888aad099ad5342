// What a `trace` entry produced (docs/models/traces.md), in engine units: its collectives per
// process group in nccl-tests' terms, and its run split on the critical rank into compute,
// exposed communication per group (and point-to-point), and idle.
#pragma once

#include "core/units.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fabricsim::report {

struct TraceCollectiveResult {
    std::string group;  // the process group's pg_name ("" = every rank)
    std::string op;     // "all_reduce"
    int ranks = 0;
    Bytes bytes;
    std::uint64_t count = 0;  // how many ran
    Time time;                // mean, from the last member's arrival to the last delivery
    double algbw_GBps = 0;
    double busbw_GBps = 0;
};

struct TraceResult {
    std::string name;
    int ranks = 0;
    std::uint64_t nodes = 0;
    std::int64_t ops = 0;
    Time time;  // first node's start to last node's end
    Time compute;
    Time idle;
    std::vector<std::pair<std::string, Time>> exposed;  // "group <name>" per group, then "p2p"
    int critical_rank = 0;
    std::vector<TraceCollectiveResult> collectives;
};

}  // namespace fabricsim::report
