// How much memory a variant's run will take, estimated from its scenario before anything is
// built, so that a run too large for the machine is refused with the estimate (exit 2)
// instead of ending in std::bad_alloc or the OOM killer.
//
//   ops           held ops x kBytesPerOp: the ops held in memory at once, each with its
//                 dependencies, its executor slot and its message; plus records x
//                 kBytesPerRecord (what an op leaves once done) and the per-rank state of
//                 training jobs. Transfers are built whole; collectives, training jobs and
//                 traffic are programs (docs/ARCHITECTURE.md, "Streaming") that hold what is
//                 in flight: a ring run c·n·kWindow sends, the other algorithms one run's
//                 graph per size; a training job a few pipeline steps per GPU, its rings'
//                 sends in flight, a 40-byte record per op of the running iteration and its
//                 per-rank state; a traffic entry its flows in flight and a timing per flow
//   topology      nodes x kBytesPerNode + links x kBytesPerLink (servers' GPUs, NICs, PCIe and
//                 NVLink switches, CPUs; fabric switches)
//   host staging  where messages go through host memory or a PXN peer (fabric/host_staging.hpp),
//                 which hands every chunk of such a message to the network at once: the chunks
//                 (size / staging_chunk) of each transfer and traffic flow whose staging plan
//                 relays it or has no host write before its network leg, each held by the
//                 wrapper and by the network beneath
//   packet model  ports x kBytesPerPort (queues, flow control, counters), routing tables
//                 (switches x endpoints x 8 B), QPs of the connections the workload opens, and
//                 the receive bitmap of the largest message where packets may arrive out of
//                 order (spray, adaptive routing)
//
// Sends of one collective run of S bytes over n ranks in c channels, messages of at most
// M = 512 KiB (workloads/collective.hpp):
//   ring all-reduce       c · n · 2(n-1) · ceil(S / (c·n·M))   (all-gather, reduce-scatter: n-1)
//   tree all-reduce       c · 2(n-1) · ceil(S / (c·M))
//   halving-doubling      c · n · 2·log2(n)
//   pairwise all-to-all   c · n · (n-1)
//   broadcast, send-recv  c · n · ceil(S / (c·M))
// `auto` counts the largest of ring and tree. A training job: per GPU, micro-batch and
// iteration its compute, pipeline sends, joins, two TP all-reduces (and four EP all-to-alls),
// plus the DP reduction per iteration (memory_estimate.cpp); a traffic entry: its flows. The
// per-item constants were measured on Linux x86-64 (docs/SCENARIO.md, "Memory"); the estimate
// is meant to be within a factor of two.
#pragma once

#include "core/units.hpp"
#include "scenario/spec.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace fabricsim::cli {

struct MemoryEstimate {
    double ops = 0;            // operations the run executes
    double held_ops = 0;       // operations held in memory at once
    double records = 0;        // what done operations leave (a training job's breakdown, traffic's timings)
    double nodes = 0;          // topology nodes
    double ports = 0;          // topology ports (two per link)
    double staged_chunks = 0;  // chunks host staging or PXN holds at once
    Bytes op_graph;
    Bytes topology;
    Bytes host_staging;  // zero where nothing is staged
    Bytes packet_model;  // zero for the ideal model
    Bytes total() const { return op_graph + topology + host_staging + packet_model; }
    // "about 12GiB: op graph 11GiB (120000000 ops, 70000000 held at once), topology 1GiB ...";
    // ", N records" after "held at once" where there are any.
    std::string describe() const;
};

MemoryEstimate estimate_memory(const scenario::ScenarioSpec& spec);

// Operations one collective entry runs (the formulas above).
double collective_ops(const scenario::CollectiveSpec& spec, const scenario::ClusterSpec& cluster);
// The same and the operations it holds at once.
std::pair<double, double> collective_held_ops(const scenario::CollectiveSpec& spec,
                                              const scenario::ClusterSpec& cluster);

// What a training job's program holds at once (workloads/training_program.hpp): ops made and
// not done, with its rings' sends in flight; records of the running iteration; and its ranks.
struct TrainingHeld {
    double ops = 0;
    double records = 0;
    double ranks = 0;
    double window_bytes = 0;  // its rings' windows
};
TrainingHeld training_held(const scenario::TrainingSpec& spec, const scenario::ClusterSpec& cluster);

// MemAvailable of /proc/meminfo's text, in bytes; nullopt when the line is missing.
std::optional<Bytes> mem_available(std::string_view meminfo);
// The machine's available memory now (Linux: /proc/meminfo), or nullopt when unknown.
std::optional<Bytes> available_memory();

// Throws ConfigError (at `file`) when the estimate exceeds `limit`; `limit_source` says where
// the limit came from ("--max-memory", "available memory").
void check_memory(const MemoryEstimate& estimate, Bytes limit, std::string_view limit_source, const std::string& file,
                  const std::string& variant);

}  // namespace fabricsim::cli
