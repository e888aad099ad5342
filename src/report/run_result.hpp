// RunResult: what one `fabricsim run` produced, per variant, in engine units. The writers
// (result_json, result_csv, summary_table) turn it into the README.md's "Using it" outputs; only they
// convert Time to seconds.
#pragma once

#include "core/network.hpp"
#include "core/simulator.hpp"
#include "core/units.hpp"
#include "report/fault_result.hpp"
#include "report/trace_result.hpp"
#include "report/traffic_result.hpp"
#include "report/training_result.hpp"
#include "scenario/resolved_tree.hpp"
#include "workloads/timeline_event.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace fabricsim::report {

// One point-to-point message the workload asked for (a `transfer` entry: a flow). A message
// a run cut short left unfinished has finish == Time::max() (and start == Time::max() when it
// was never issued); fct() and slowdown() mean nothing for it.
struct TransferResult {
    std::string name;
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    Bytes bytes;
    Time start;     // issued
    Time finish;    // last byte delivered
    Time unloaded;  // the same message alone on an idle network
    bool finished() const { return finish != Time::max(); }
    bool issued() const { return start != Time::max(); }
    Time fct() const { return finish - start; }
    double slowdown() const {
        return unloaded > Time::zero()
                   ? static_cast<double>(fct().picoseconds()) / static_cast<double>(unloaded.picoseconds())
                   : 1.0;
    }
};

// One size of a collective entry (nccl-tests convention: GB = 1e9 B; busbw per rank).
struct CollectiveResult {
    std::string name;
    std::string op;         // "all_reduce"
    std::string algorithm;  // as run ("ring"), after auto's choice
    std::string choice;     // why auto chose it; "" when the scenario named it
    int ranks = 0;
    int channels = 0;
    Bytes bytes;
    Time time;  // Time::max() when cut off by stop_time
    double algbw_GBps = 0;
    double busbw_GBps = 0;
};

// Flow-completion statistics: nearest-rank percentiles over the finished transfers.
struct FlowSummary {
    std::int64_t count = 0;  // finished
    std::int64_t unfinished = 0;
    Time fct_p50, fct_p99;
    double slowdown_p99 = 0;
};
FlowSummary summarise(const std::vector<TransferResult>& transfers);

struct VariantResult {
    std::string name;
    scenario::Value scenario;        // the fully resolved variant
    std::string model;               // "ideal", "packet", "flow"
    std::string flow_backend;        // the flow model's rate solver that ran: "cpu" | "cuda"; else empty
    bool malloc_huge_pages = false;  // the process's heap on transparent huge pages (cli/malloc_huge_pages.hpp)
    std::vector<TransferResult> transfers;
    std::vector<CollectiveResult> collectives;
    std::vector<TrafficResult> traffic;
    std::vector<TrainingResult> training;
    std::vector<TraceResult> traces;                 // trace entries
    std::vector<workloads::TimelineEvent> timeline;  // outputs.timeline: every op with a start and end
    // When the last op of the workload finished; for a run that did not finish its work, the
    // simulated time it reached (simulation.stop_time, the interrupt, or the last event).
    Time makespan;
    std::int64_t unfinished_ops = 0;  // ops that never finished (cut short, or stuck)
    // Why these figures are not a complete and trustworthy answer. Each is a sentence for the
    // console: work that never finished, packets dropped on a lossless class, a broken
    // invariant, a model error that stopped the run. Empty when the run is sound.
    std::vector<std::string> problems;
    bool cut_short = false;   // simulation.stop_time stopped it with work left
    std::string interrupted;  // "SIGINT"/"SIGTERM" when a signal stopped it, else ""
    bool complete() const { return problems.empty() && !cut_short && interrupted.empty(); }
    std::vector<std::string> warnings;  // the model's Network::warnings(): sound, but worth a look
    FabricCounters fabric;
    std::vector<PortReport> ports;       // per egress port that carried traffic (packet model)
    std::vector<QpRateSeries> qp_rates;  // outputs.qp_rates (packet model)
    std::vector<QueueSeries> queues;     // outputs.queues (packet model)
    std::vector<FaultResult> faults;     // the scenario's faults: section, in order
    std::vector<SlowdownRow> baseline;   // run --baseline: against the run without faults
    RunCost cost;
};

struct RunResult {
    std::string fabricsim_version;
    std::string git_commit;          // the commit fabricsim was built from; "unknown" outside git
    std::size_t variants_asked = 0;  // variants this run set out to run (those done are below)
    std::string scenario_file;
    scenario::Value scenario;  // the first variant's resolved scenario
    std::vector<VariantResult> variants;
    // Every variant asked for ran, and each is complete.
    bool complete() const;
};

}  // namespace fabricsim::report
