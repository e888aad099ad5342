// Collectives as NCCL runs them, as send ops in an OpGraph (docs/models/, docs/models/collectives.md).
//
// A collective of S bytes over n ranks is split across c channels (each its own ring or tree,
// leaving a server through its own NIC), and each channel's share into messages of at most
// kMessageBytes, of which at most kWindow may be in flight per connection — NCCL's Simple
// protocol: a 4 MiB buffer in NCCL_STEPS = 8 slots of 512 KiB (NCCL src/include/device.h,
// NCCL_BUFFSIZE default). A rank forwards a block only after it has received what the block
// depends on, so the pipelining and the latency of every step come out of the network model.
#pragma once

#include "core/network.hpp"
#include "scenario/collective_spec.hpp"
#include "workloads/op_graph.hpp"
#include "workloads/rank_layout.hpp"

#include <string>
#include <vector>

namespace fabricsim::workloads {

inline constexpr Bytes kMessageBytes{512 * 1024};
inline constexpr int kWindow = 8;

// One size × iteration of a collective entry: its ops are [first, end). `auto` chooses per
// size, as NCCL's tuner does per call, so the algorithm and channels belong to the run.
struct CollectiveRun {
    Bytes size;
    int iteration = 0;
    scenario::CollectiveAlgorithm algorithm = scenario::CollectiveAlgorithm::ring;  // as resolved
    std::string choice;  // why auto chose it ("" when the user chose)
    int channels = 0;
    std::uint32_t first_op = 0;
    std::uint32_t end_op = 0;
};

struct CollectivePlan {
    scenario::CollectiveOp op = scenario::CollectiveOp::all_reduce;
    int ranks = 0;
    std::vector<CollectiveRun> runs;  // sizes in order, each `iterations` times, back to back
};

// Appends the collective's ops to `graph` under `entry`. Throws ModelError when the algorithm
// cannot run on these ranks (e.g. halving-doubling on a non-power-of-two count) or needs an
// offload the network lacks. `message_bytes` caps the message a ring or tree block is sent in;
// a caller that wants one message per block (a training job's coarse schedule) passes S.
CollectivePlan add_collective(OpGraph& graph, std::uint32_t entry, const scenario::CollectiveSpec& spec,
                              const RankLayout& layout, const Network* network = nullptr,
                              Bytes message_bytes = kMessageBytes);

// nccl-tests' bus-bandwidth factor: busbw = algbw × factor (`docs/REFERENCES.md`).
double bus_factor(scenario::CollectiveOp op, int ranks);

std::string_view to_string(scenario::CollectiveOp op);
std::string_view to_string(scenario::CollectiveAlgorithm algorithm);

}  // namespace fabricsim::workloads

namespace fabricsim::workloads {

struct OpTiming;

// One size of a collective entry, as nccl-tests reports it: the mean time over iterations
// (each from its first send to its last delivery), algbw = S / time, busbw = algbw × factor.
struct CollectiveMeasurement {
    Bytes size;
    scenario::CollectiveAlgorithm algorithm = scenario::CollectiveAlgorithm::ring;  // as run at this size
    std::string choice;
    int channels = 0;
    Time time;
    double algbw_GBps = 0;
    double busbw_GBps = 0;
};

// One run from its first send to its last delivery: last = Time::max() while unfinished; a
// run without ops (one rank) has first = last.
struct RunSpan {
    Time first = Time::max();
    Time last = Time::max();
};

std::vector<CollectiveMeasurement> measure(const CollectivePlan& plan, const std::vector<RunSpan>& spans);
// The spans from the ops' timings, for a plan whose ops are in a graph.
std::vector<CollectiveMeasurement> measure(const CollectivePlan& plan, const std::vector<OpTiming>& timings);

}  // namespace fabricsim::workloads
