// `- trace: {format: chakra, path: "traces/job.%d.et", ranks: all}` workload entries: a job
// replayed from its execution traces, one file per rank (docs/models/traces.md).
#pragma once

#include "scenario/collective_spec.hpp"

#include <string>
#include <vector>

namespace fabricsim::scenario {

enum class TraceFormat { chakra };

struct TraceSpec {
    TraceFormat format = TraceFormat::chakra;
    // The files, "%d" standing for the trace rank, resolved against the scenario file's folder.
    std::string path;
    // The trace ranks to replay, each on the cluster rank of the same number; empty: all, which
    // is 0, 1, ... up to the first rank without a file.
    std::vector<int> ranks;
    // The collectives' algorithm: automatic (NCCL's choice per call) or ring (all-reduce,
    // all-gather and reduce-scatter; the others stay automatic), and their channels (0: NCCL's).
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
    int channels = 0;
    bool operator==(const TraceSpec&) const = default;
};

// The file of trace rank `rank`: `path` with its "%d" replaced.
std::string trace_file(const std::string& path, int rank);

}  // namespace fabricsim::scenario
