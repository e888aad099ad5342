#include "report/training_json.hpp"

namespace fabricsim::report {

namespace {

constexpr const char* kKinds[] = {"tp", "pp", "dp", "ep"};

nlohmann::ordered_json job_json(const TrainingResult& r) {
    nlohmann::ordered_json exposed = nlohmann::ordered_json::object();
    nlohmann::ordered_json rank_bytes = nlohmann::ordered_json::object();
    for (std::size_t k = 0; k < 4; ++k) {
        exposed[kKinds[k]] = r.exposed[k].seconds();
        rank_bytes[kKinds[k]] = r.rank_bytes[k].count();
    }
    return nlohmann::ordered_json{
        {"name", r.name},
        {"ranks", r.ranks},
        {"iterations", r.iterations},
        {"ops", r.ops},
        {"iteration_time_s", r.iteration_time.seconds()},
        {"compute_s", r.compute.seconds()},
        {"bubble_s", r.bubble.seconds()},
        {"exposed_comm_s", r.exposed_total().seconds()},
        {"exposed_s", exposed},
        {"tflops_per_gpu", r.tflops_per_gpu()},
        {"comm_bytes",
         {{"nvlink", r.comm_bytes[0].count()}, {"pcie", r.comm_bytes[1].count()}, {"fabric", r.comm_bytes[2].count()}}},
        {"critical_rank_bytes", rank_bytes},
    };
}

}  // namespace

nlohmann::ordered_json training_json(const std::vector<TrainingResult>& results) {
    nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
    for (const auto& r : results) jobs.push_back(job_json(r));
    const TrainingResult first = results.empty() ? TrainingResult{} : results.front();
    return nlohmann::ordered_json{
        {"iteration_time_s", first.iteration_time.seconds()},
        {"compute_s", first.compute.seconds()},
        {"exposed_comm_s", first.exposed_total().seconds()},
        {"jobs", jobs},
    };
}

}  // namespace fabricsim::report
