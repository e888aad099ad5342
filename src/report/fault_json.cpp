#include "report/fault_json.hpp"

namespace fabricsim::report {

namespace {

using Json = nlohmann::ordered_json;

Json seconds_or_null(Time t) { return t == Time::max() ? Json(nullptr) : Json(t.seconds()); }

}  // namespace

Json faults_json(const std::vector<FaultResult>& faults) {
    Json out = Json::array();
    for (const auto& f : faults) {
        Json j{{"name", f.name}, {"kind", f.kind}, {"target", f.target}};
        j["at_s"] = f.times_down > 0 || f.kind == "straggler" ? Json(f.at.seconds()) : Json(nullptr);
        j["end_s"] = seconds_or_null(f.end);
        j["reconverged_s"] = seconds_or_null(f.reconverged);
        j["time_to_reconverge_s"] =
            f.reconverged == Time::max() ? Json(nullptr) : Json((f.reconverged - f.at).seconds());
        j["times_down"] = f.times_down;
        j["packets_lost"] = f.packets_lost;
        if (f.ports_paused >= 0) j["ports_paused"] = f.ports_paused;
        out.push_back(std::move(j));
    }
    return out;
}

Json baseline_json(const std::vector<SlowdownRow>& rows) {
    Json out = Json::array();
    for (const auto& r : rows)
        out.push_back(Json{{"what", r.what},
                           {"time_s", seconds_or_null(r.with_faults)},
                           {"baseline_time_s", seconds_or_null(r.without)},
                           {"slowdown", r.finished() ? Json(r.slowdown()) : Json(nullptr)}});
    return out;
}

}  // namespace fabricsim::report
