#include "report/result_json.hpp"

#include "report/fault_json.hpp"
#include "report/traffic_json.hpp"
#include "report/training_json.hpp"

#include <nlohmann/json.hpp>

#include <type_traits>

namespace fabricsim::report {

namespace {

using Json = nlohmann::ordered_json;

Json to_json(const scenario::Value& value) {
    return std::visit(
        [](const auto& v) -> Json {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, std::monostate>) {
                return nullptr;
            } else if constexpr (std::is_same_v<V, scenario::Value::List>) {
                Json out = Json::array();
                for (const auto& item : v) out.push_back(to_json(item));
                return out;
            } else if constexpr (std::is_same_v<V, scenario::Value::Map>) {
                Json out = Json::object();
                for (const auto& [key, item] : v) out[key] = to_json(item);
                return out;
            } else {
                return v;
            }
        },
        value.v);
}

Json flows_json(const std::vector<TransferResult>& transfers) {
    const FlowSummary s = summarise(transfers);
    return Json{{"count", s.count},
                {"unfinished", s.unfinished},
                {"fct_p50_s", s.fct_p50.seconds()},
                {"fct_p99_s", s.fct_p99.seconds()},
                {"slowdown_p99", s.slowdown_p99}};
}

Json transfers_json(const std::vector<TransferResult>& transfers) {
    Json out = Json::array();
    // A transfer the run left unfinished keeps its row, with null for what it never reached.
    const auto time_or_null = [](bool known, Time t) { return known ? Json(t.seconds()) : Json(nullptr); };
    for (const auto& t : transfers)
        out.push_back(Json{{"name", t.name},
                           {"from", t.from},
                           {"to", t.to},
                           {"bytes", t.bytes.count()},
                           {"finished", t.finished()},
                           {"start_s", time_or_null(t.issued(), t.start)},
                           {"end_s", time_or_null(t.finished(), t.finish)},
                           {"fct_s", time_or_null(t.finished(), t.fct())},
                           {"unloaded_s", t.unloaded.seconds()},
                           {"slowdown", t.finished() ? Json(t.slowdown()) : Json(nullptr)}});
    return out;
}

Json collectives_json(const std::vector<CollectiveResult>& collectives) {
    Json out = Json::array();
    for (const auto& c : collectives) {
        Json j{{"name", c.name},           {"op", c.op},
               {"algorithm", c.algorithm}, {"ranks", c.ranks},
               {"channels", c.channels},   {"bytes", c.bytes.count()}};
        if (c.time == Time::max()) {
            j["time_s"] = nullptr;  // did not finish before simulation.stop_time
        } else {
            j["time_s"] = c.time.seconds();
        }
        j["algbw_GBps"] = c.algbw_GBps;
        j["busbw_GBps"] = c.busbw_GBps;
        if (!c.choice.empty()) j["algorithm_choice"] = c.choice;
        out.push_back(std::move(j));
    }
    return out;
}

Json fabric_json(const FabricCounters& f) {
    return Json{{"drops", f.drops},
                {"lossless_drops", f.lossless_drops},
                {"pfc_pauses_sent", f.pfc_pauses_sent},
                {"paused_time_s", f.paused_time.seconds()},
                {"ecn_marks", f.ecn_marks},
                {"cnps", f.cnps},
                {"credit_stall_time_s", f.credit_stall_time.seconds()},
                {"fecn_marks", f.fecn_marks},
                {"becns", f.becns},
                {"max_queue_bytes", f.max_queue.count()},
                {"pfc_watchdog_triggers", f.pfc_watchdog_triggers},
                {"watchdog_drops", f.watchdog_drops},
                {"fault_drops", f.fault_drops},
                {"retransmitted_packets", f.retransmitted},
                {"rc_timeouts", f.rc_timeouts},
                {"messages_abandoned", f.messages_abandoned}};
}

Json cost_json(const VariantResult& v) {
    const RunCost& c = v.cost;
    const double hops_per_s = c.wall_s > 0 ? static_cast<double>(v.fabric.packet_hops) / c.wall_s : 0.0;
    Json j{{"model", v.model},
           {"events", c.events},
           {"wall_s", c.wall_s},
           {"events_per_s", c.events_per_s},
           {"packet_hops", v.fabric.packet_hops},
           {"packet_hops_per_s", hops_per_s},
           {"simulated_s", c.simulated.seconds()},
           {"peak_rss_bytes", c.peak_rss_bytes},
           {"malloc_huge_pages", v.malloc_huge_pages}};
    if (!v.flow_backend.empty()) j["flow_backend"] = v.flow_backend;
    return j;
}

// Trace entries (docs/models/traces.md): the breakdown on the critical rank and the
// collectives per process group.
Json traces_json(const std::vector<TraceResult>& traces) {
    Json out = Json::array();
    for (const auto& t : traces) {
        Json exposed = Json::object();
        for (const auto& [what, time] : t.exposed) exposed[what] = time.seconds();
        Json collectives = Json::array();
        for (const auto& c : t.collectives)
            collectives.push_back(Json{{"group", c.group},
                                       {"op", c.op},
                                       {"ranks", c.ranks},
                                       {"bytes", c.bytes.count()},
                                       {"count", c.count},
                                       {"time_s", c.time == Time::max() ? Json(nullptr) : Json(c.time.seconds())},
                                       {"algbw_GBps", c.algbw_GBps},
                                       {"busbw_GBps", c.busbw_GBps}});
        out.push_back(Json{{"name", t.name},
                           {"ranks", t.ranks},
                           {"nodes", t.nodes},
                           {"ops", t.ops},
                           {"time_s", t.time.seconds()},
                           {"critical_rank", t.critical_rank},
                           {"compute_s", t.compute.seconds()},
                           {"exposed_s", exposed},
                           {"idle_s", t.idle.seconds()},
                           {"collectives", collectives}});
    }
    return out;
}

}  // namespace

std::string to_json(const RunResult& result) {
    Json root;
    root["schema_version"] = kResultSchemaVersion;
    root["fabricsim_version"] = result.fabricsim_version;
    root["git_commit"] = result.git_commit;
    // false until every variant asked for has run to a sound end (see each variant's "problems").
    root["complete"] = result.complete();
    root["scenario_file"] = result.scenario_file;
    root["scenario"] = to_json(result.scenario);
    Json variants = Json::array();
    for (const auto& v : result.variants) {
        Json j;
        j["name"] = v.name;
        j["complete"] = v.complete();
        j["cut_short"] = v.cut_short;
        j["interrupted"] = v.interrupted.empty() ? Json(nullptr) : Json(v.interrupted);
        j["problems"] = v.problems;
        j["warnings"] = v.warnings;
        j["scenario"] = to_json(v.scenario);
        j["makespan_s"] = v.makespan.seconds();
        j["unfinished_ops"] = v.unfinished_ops;
        j["collectives"] = collectives_json(v.collectives);
        j["flows"] = flows_json(v.transfers);
        j["transfers"] = transfers_json(v.transfers);
        j["traffic"] = traffic_json(v.traffic);
        j["training"] = training_json(v.training);
        j["traces"] = traces_json(v.traces);
        j["fabric"] = fabric_json(v.fabric);
        j["faults"] = faults_json(v.faults);
        if (!v.baseline.empty()) j["baseline"] = baseline_json(v.baseline);
        j["cost"] = cost_json(v);
        variants.push_back(std::move(j));
    }
    root["variants"] = std::move(variants);
    return root.dump(2) + "\n";
}

}  // namespace fabricsim::report
