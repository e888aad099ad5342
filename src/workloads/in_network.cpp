// NVLS: collectives computed by NVSwitch (NVLink SHARP, Hopper and later; NCCL 2.17+).
// NCCL's NVLS kernels give each of the n ranks a 1/n slice: a multimem load-reduce pulls the
// slice from every GPU through the switch, which returns it reduced, and a multimem store
// sends the result back through the switch, which multicasts it to every GPU (NVIDIA, "NVIDIA
// NVLink and NVSwitch" Hopper whitepaper section on NVLink SHARP; NCCL 2.17 release notes).
// Per GPU port, for S bytes:
//   all_reduce      sends S (its part of every slice) + S/n (its reduced slice), receives S/n + S
//   reduce_scatter  sends S, receives S/n
//   all_gather      sends S/n, receives S
// The network decides how fast those bytes move: both models run NVLS at NCCL's nvlsEfficiency
// of the NVLink payload rate (fabric/nvls_rate.hpp). Across servers, NVLS with SHARP is the
// pipelined `sharp` algorithm (hierarchical.cpp).
#include "workloads/collective_algorithms.hpp"

#include "core/errors.hpp"

namespace fabricsim::workloads {

void nvls_collective(RunContext& run, scenario::CollectiveOp op, const std::vector<RankId>& group, Bytes size) {
    const auto n = static_cast<std::int64_t>(group.size());
    const Bytes slice{(size.count() + n - 1) / n};
    GroupOp g;
    g.ranks = group;
    switch (op) {
        case scenario::CollectiveOp::all_reduce:
            g.offload = Offload::nvswitch_reduce;
            g.egress = size + slice;
            g.ingress = size + slice;
            break;
        case scenario::CollectiveOp::reduce_scatter:
            g.offload = Offload::nvswitch_reduce;
            g.egress = size;
            g.ingress = slice;
            break;
        case scenario::CollectiveOp::all_gather:
            g.offload = Offload::nvswitch_multicast;
            g.egress = slice;
            g.ingress = size;
            break;
        default: throw InternalError("NVLS runs all_reduce, reduce_scatter and all_gather only");
    }
    const OpId id = run.graph.add_group(run.entry, std::move(g), size);
    if (run.barrier.valid()) run.graph.add_dependency(run.barrier, id);
}

}  // namespace fabricsim::workloads
