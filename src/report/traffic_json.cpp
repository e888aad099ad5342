#include "report/traffic_json.hpp"

namespace fabricsim::report {

nlohmann::ordered_json traffic_json(const std::vector<TrafficResult>& results) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& r : results) {
        nlohmann::ordered_json j{
            {"name", r.name},
            {"pattern", r.pattern},
            {"flows", r.flows},
            {"unfinished_flows", r.unfinished},
            {"bytes", r.bytes.count()},
            {"start_s", r.start.seconds()},
            {"finish_s", r.finish.seconds()},
            {"fct_p50_s", r.fct_p50.seconds()},
            {"fct_p99_s", r.fct_p99.seconds()},
            {"slowdown_p99", r.slowdown_p99},
        };
        if (r.has_load) {
            j["offered_load"] = r.offered_load;
            j["achieved_load"] = r.achieved_load;
        }
        if (r.gpu_pool) {
            j["calls"] = r.calls;
            j["added_latency_mean_s"] = r.added_latency_mean.seconds();
            j["added_latency_p99_s"] = r.added_latency_p99.seconds();
            j["calls_per_s"] = r.calls_per_s;
            j["bytes_per_s"] = r.bytes_per_s;
        }
        out.push_back(std::move(j));
    }
    return out;
}

}  // namespace fabricsim::report
