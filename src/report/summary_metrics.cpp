#include "report/summary_metrics.hpp"

#include "core/units_format.hpp"
#include "report/display_units.hpp"
#include "report/scenario_value.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace fabricsim::report {

namespace {
SummaryMetric time_metric(std::string name, std::string label, Time t) {
    return {std::move(name), std::move(label), t.seconds(), human(t)};
}
SummaryMetric count_metric(std::string name, std::string label, std::int64_t n) {
    return {std::move(name), std::move(label), static_cast<double>(n), fmt::format("{}", n)};
}
// What the figures below are: a sound, complete answer or not (run_status.hpp says why).
std::string result_word(const VariantResult& v) {
    if (!v.problems.empty()) return "FAILED";
    if (!v.interrupted.empty()) return "interrupted";
    if (v.cut_short) return "cut short";
    return "complete";
}
}  // namespace

std::vector<SummaryMetric> summary_metrics(const VariantResult& v) {
    const FlowSummary flows = summarise(v.transfers);
    std::vector<SummaryMetric> m;
    m.push_back({"complete", "result", v.complete() ? 1.0 : 0.0, result_word(v)});
    m.push_back({"model", "model", 0, v.model});
    if (v.unfinished_ops == 0) {
        m.push_back(time_metric("makespan_s", "workload done at", v.makespan));
    } else {  // makespan is then the time simulated: the stop, the interrupt or the last event
        m.push_back({"makespan_s", "workload done at", v.makespan.seconds(), "not done"});
        m.push_back(time_metric("simulated_s", "simulated until", v.makespan));
    }
    m.push_back(count_metric("unfinished_ops", "unfinished ops", v.unfinished_ops));
    m.back().console = v.unfinished_ops != 0;  // "result complete" says it when none is left
    // Flows are the transfer and traffic entries: a run of collectives or training has none, and
    // "flows 0, FCT p50 0ps" would say nothing (issue #15).
    if (!v.transfers.empty()) {
        m.push_back(count_metric("flows", "flows", flows.count));
        m.push_back(time_metric("fct_p50_s", "FCT p50", flows.fct_p50));
        m.push_back(time_metric("fct_p99_s", "FCT p99", flows.fct_p99));
        m.push_back({"slowdown_p99", "slowdown p99", flows.slowdown_p99, sig3(flows.slowdown_p99)});
    }
    for (const auto& c : v.collectives) {
        const std::string what = fmt::format("{} {}", c.name, to_string(c.bytes));
        const std::string key = fmt::format("{}_{}", c.name, c.bytes.count());
        if (c.time == Time::max()) {
            m.push_back({key + "_time_s", what + " time", 0, "unfinished"});
            continue;
        }
        m.push_back(time_metric(key + "_time_s", what + " time", c.time));
        m.push_back({key + "_busbw_GBps", what + " busbw", c.busbw_GBps, fmt::format("{:.2f} GB/s", c.busbw_GBps)});
    }
    for (const auto& t : v.traffic) {
        m.push_back(time_metric(t.name + "_fct_p99_s", t.name + " FCT p99", t.fct_p99));
        // With this entry the only one that has flows, it is the FCT p99 row above.
        m.back().console = !std::all_of(v.transfers.begin(), v.transfers.end(),
                                        [&](const TransferResult& f) { return f.name == t.name; });
        if (t.has_load)
            // A fraction of what the senders could inject (traffic_result.hpp): a percentage to read.
            m.push_back({t.name + "_achieved_load", t.name + " achieved load", t.achieved_load,
                         fmt::format("{} %", sig3(t.achieved_load * 100))});
        if (t.gpu_pool) {
            m.push_back(time_metric(t.name + "_added_latency_s", t.name + " added latency", t.added_latency_mean));
            m.push_back({t.name + "_calls_per_s", t.name + " calls/s", t.calls_per_s, si_count(t.calls_per_s)});
        }
    }
    for (const auto& t : v.training) {
        m.push_back(time_metric(t.name + "_iteration_time_s", t.name + " iteration", t.iteration_time));
        m.push_back(time_metric(t.name + "_compute_s", t.name + " compute", t.compute));
        // With it the three rows add up to the iteration (compute + bubble + exposed comm).
        m.push_back(time_metric(t.name + "_bubble_s", t.name + " pipeline bubble", t.bubble));
        m.push_back(time_metric(t.name + "_exposed_comm_s", t.name + " exposed comm", t.exposed_total()));
        m.push_back({t.name + "_tflops_per_gpu", t.name + " TFLOP/s per GPU", t.tflops_per_gpu(),
                     fmt::format("{:.1f}", t.tflops_per_gpu())});
    }
    for (const auto& t : v.traces) {  // a replayed trace (docs/models/traces.md)
        Time exposed = Time::zero();
        for (const auto& e : t.exposed) exposed += e.second;
        m.push_back(time_metric(t.name + "_trace_time_s", t.name + " trace time", t.time));
        m.push_back(time_metric(t.name + "_compute_s", t.name + " compute", t.compute));
        m.push_back(time_metric(t.name + "_exposed_comm_s", t.name + " exposed comm", exposed));
    }
    // The fabric's counters where they can be non-zero: the packet model counts them (the ideal
    // model has no queues), PFC and ECN on RoCE, credits and FECN/BECN on InfiniBand.
    if (v.model == "packet") {
        const bool ib = text_at(v.scenario, "cluster.fabric.technology") == "infiniband";
        m.push_back(count_metric("drops", "drops", v.fabric.drops));
        if (!ib) {
            m.push_back(count_metric("pfc_pauses_sent", "PFC pauses sent", v.fabric.pfc_pauses_sent));
            m.push_back(time_metric("paused_time_s", "paused time", v.fabric.paused_time));
            m.push_back(count_metric("ecn_marks", "ECN marks", v.fabric.ecn_marks));
            m.push_back(count_metric("cnps", "CNPs", v.fabric.cnps));
        } else {
            // InfiniBand's side of the same story: credit stalls for pauses, FECN/BECN for ECN/CNP.
            m.push_back(time_metric("credit_stall_time_s", "credit stall time", v.fabric.credit_stall_time));
            m.push_back(count_metric("fecn_marks", "FECN marks", v.fabric.fecn_marks));
            m.push_back(count_metric("becns", "BECNs", v.fabric.becns));
        }
        m.push_back({"max_queue_bytes", "max queue", static_cast<double>(v.fabric.max_queue.count()),
                     human(v.fabric.max_queue)});
    }
    m.push_back(count_metric("events", "events", static_cast<std::int64_t>(v.cost.events)));
    // Wall seconds shown as a time: a short run's "0.00000840 s" reads as "8.40 µs".
    m.push_back({"wall_s", "wall time", v.cost.wall_s, human(Time::ps(std::llround(v.cost.wall_s * 1e12)))});
    m.push_back({"events_per_s", "events/s", v.cost.events_per_s, si_count(v.cost.events_per_s)});
    return m;
}

}  // namespace fabricsim::report
