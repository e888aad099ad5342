// TraceIndex: what a trace entry is, found by reading each rank's file once before the run, a
// file at a time (so that only one rank's node ids are ever in memory): the ranks and their
// files, the process groups, the ops the run will count, and every error a user must fix —
// a missing file, a truncated stream, a dependency on an unknown id, a send without its
// receive, collectives that differ between the members of a group (docs/models/traces.md).
#pragma once

#include "core/network.hpp"
#include "scenario/spec.hpp"
#include "workloads/rank_layout.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace fabricsim::workloads {

// A process group: the trace ranks whose collectives name it (pg_name; "" names the group of
// every replayed rank), in rank order.
struct TraceGroup {
    std::string name;
    std::vector<int> members;  // indices into TraceIndex::ranks
};

struct TraceIndex {
    std::string key_path;            // workload[i].trace, for errors
    std::vector<int> ranks;          // trace ranks replayed; trace rank r runs on cluster rank r
    std::vector<std::string> files;  // by index into ranks
    std::vector<TraceGroup> groups;
    scenario::CollectiveAlgorithm algorithm = scenario::CollectiveAlgorithm::automatic;  // TraceSpec's
    int channels = 0;
    std::uint64_t ops = 0;  // executor ops: compute, sends and every collective's network ops
    std::uint64_t nodes = 0;
    std::vector<std::string> warnings;            // located: "file: node N: unknown attribute ..."
    int index_of(std::int64_t trace_rank) const;  // -1 when not replayed
    int group_of(const std::string& name) const;  // -1 when unknown
    // A collective of `group` as this project runs it: the algorithm and channels NCCL would
    // choose (auto), over the group's cluster ranks.
    scenario::CollectiveSpec collective(int group, scenario::CollectiveOp op, Bytes size) const;
};

// Reads every file of `spec` once. Throws ConfigError (the file, the node id, what is wrong).
TraceIndex index_trace(const scenario::TraceSpec& spec, const std::string& key_path,
                       const scenario::ClusterSpec& cluster, const Network& network);

}  // namespace fabricsim::workloads
