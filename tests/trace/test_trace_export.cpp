// A parametric training job (the shipped scenarios/training-pipeline.yaml) written as Chakra
// traces from its own op graph and replayed: every compute, send and dependency of the job is
// a node of the trace, so the replay's time is the job's iteration time, on the ideal model
// and on the packet model alike.
#include <catch2/catch.hpp>

#include "fabric/ideal/ideal_network.hpp"
#include "trace_fixtures.hpp"
#include "workloads/trace_export.hpp"
#include "workloads/training.hpp"

using namespace trace_test;

namespace {

void check_same_time(scenario::NetworkModel model) {
    scenario::LoadOptions options;
    options.config_dirs = {std::filesystem::path(FABRICSIM_SOURCE_DIR) / "configs"};
    auto loaded = scenario::load_scenario(
        std::filesystem::path(FABRICSIM_SOURCE_DIR) / "scenarios/training-pipeline.yaml", options);
    scenario::Variant job = loaded.variants.front();
    job.spec.simulation.model = model;
    const auto parametric = cli::run_variant(job);
    REQUIRE(parametric.problems.empty());
    REQUIRE(parametric.training.size() == 1);

    test::TempDir dir("trace-export");
    const fabric::IdealNetwork network(job.spec.cluster, job.spec.simulation.ideal);
    workloads::OpGraph graph;
    graph.add_entry("job");
    const auto& training = std::get<scenario::TrainingSpec>(job.spec.workload.front().kind);
    workloads::add_training(graph, 0, training, job.spec.cluster, network, job.spec.seed, {});
    const std::string path = (dir.path() / "job.%d.et").string();
    const auto exported = workloads::export_trace(graph, 0, path, job.spec.cluster.ranks());
    CHECK(exported.ranks == job.spec.cluster.ranks());

    scenario::Variant replay = job;
    scenario::TraceSpec trace;
    trace.path = path;
    replay.spec.workload.front().kind = trace;
    const auto traced = cli::run_variant(replay);
    REQUIRE(traced.problems.empty());
    REQUIRE(traced.traces.size() == 1);
    CHECK(traced.traces.front().time == parametric.training.front().iteration_time);
    CHECK(traced.traces.front().compute == parametric.training.front().compute);
}

}  // namespace

TEST_CASE("trace: the pipeline job exported as a trace replays in its iteration time on the ideal model",
          "[trace][export]") {
    check_same_time(scenario::NetworkModel::ideal);
}

TEST_CASE("trace: the pipeline job exported as a trace replays in its iteration time on the packet model",
          "[trace][export]") {
    check_same_time(scenario::NetworkModel::packet);
}

TEST_CASE("trace: the shipped traces of scenarios/trace-pipeline.yaml are what export-trace writes today",
          "[trace][export]") {
    // The checked-in files are generated, not hand-made: `fabricsim export-trace
    // scenarios/training-pipeline.yaml --out scenarios/traces` must give them byte for byte.
    test::TempDir dir("trace-shipped");
    const auto out = test::run_fabricsim("export-trace scenarios/training-pipeline.yaml --out " + dir.path().string());
    INFO(out.output);
    REQUIRE(out.exit_code == 0);
    for (int r = 0; r < 2; ++r) {
        const std::string name = fmt::format("pipeline.{}.et", r);
        INFO(name);
        CHECK(test::read_file(dir.path() / name) ==
              test::read_file(std::filesystem::path(FABRICSIM_SOURCE_DIR) / "scenarios/traces" / name));
    }
}
