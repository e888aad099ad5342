// `- collective: ...` workload entries (the workloads issue): one collective, or an
// nccl-tests-style sweep of sizes, over a set of ranks, repeated `iterations` times.
#pragma once

#include "core/ids.hpp"
#include "core/units.hpp"

#include <vector>

namespace fabricsim::scenario {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, send_recv };
enum class CollectiveAlgorithm { automatic, ring, tree, halving_doubling, pairwise, nvls, hierarchical, sharp };

struct CollectiveSpec {
    CollectiveOp op = CollectiveOp::all_reduce;
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
    std::vector<Bytes> sizes;   // S per the nccl-tests convention; a sweep lists several
    std::vector<RankId> ranks;  // empty: all ranks
    int iterations = 1;
    int channels = 0;  // 0: as NCCL would choose (docs/models/collectives.md)
    RankId root{0};    // broadcast
    bool operator==(const CollectiveSpec&) const = default;
};

}  // namespace fabricsim::scenario
