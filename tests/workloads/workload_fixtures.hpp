// Clusters the workload tests run on the ideal network: α = 2 µs, B = 400 Gb/s NICs.
#pragma once

#include "core/units.hpp"
#include "scenario/collective_spec.hpp"
#include "scenario/spec.hpp"

namespace workload_test {

using namespace fabricsim;
using namespace fabricsim::literals;

inline constexpr Time kAlpha = 2_us;
inline constexpr Bandwidth kB = 400_Gbps;

// `n` plain hosts: one rank and one NIC at B each.
inline scenario::ClusterSpec hosts(int n) {
    scenario::ClusterSpec c;
    c.servers = n;
    c.server.gpus = 0;
    c.server.nics = 1;
    c.server.nic.line_rate = kB;
    return c;
}

// HGX H100-like: 8 GPUs on NVLink4, 18 x 25 GB/s through 4 NVSwitches, 8 NICs at B; with
// `infiniband_sharp` an InfiniBand fabric whose switches aggregate (SHARP).
inline scenario::ClusterSpec hgx(int servers, bool infiniband_sharp = false) {
    scenario::ClusterSpec c;
    c.servers = servers;
    c.server.gpus = 8;
    c.server.nics = 8;
    c.server.nic.line_rate = kB;
    c.server.nvlink.generation = "nvlink4";
    c.server.nvlink.links_per_gpu = 18;
    c.server.nvlink.link_bandwidth = 25_GBps;
    c.server.nvlink.switches = 4;
    if (infiniband_sharp) {
        c.fabric.technology = scenario::Technology::infiniband;
        c.fabric.switch_spec.sharp = true;
    }
    return c;
}

// One collective of one size; channels 0 = as NCCL would choose.
inline scenario::CollectiveSpec spec_of(scenario::CollectiveOp op, scenario::CollectiveAlgorithm a, Bytes size,
                                        int channels = 1) {
    scenario::CollectiveSpec s;
    s.op = op;
    s.algorithm = a;
    s.sizes = {size};
    s.channels = channels;
    return s;
}

}  // namespace workload_test
