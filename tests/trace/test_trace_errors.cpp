// A trace's errors are bad input (exit 2) naming the file, the node and what is wrong, found
// before anything is simulated; what the reader cannot map is a warning that names the node.
#include <catch2/catch.hpp>

#include "trace_fixtures.hpp"

using namespace trace_test;

namespace {

test::Outcome run_in(const test::TempDir& dir, int servers) {
    test::write_file(dir.path() / "s.yaml", scenario_text(dir.path(), servers));
    return test::run_fabricsim(
        fmt::format("run {} --out {} --no-html", (dir.path() / "s.yaml").string(), (dir.path() / "out").string()));
}

std::string file(const test::TempDir& dir, int rank) { return (dir.path() / fmt::format("job.{}.et", rank)).string(); }

}  // namespace

TEST_CASE("trace error: a missing rank file is exit 2 naming the file", "[trace][errors]") {
    test::TempDir dir("trace-missing");
    write_trace(dir.path() / "job.0.et", {compute(1, 1)});
    test::write_file(dir.path() / "s.yaml", scenario_text(dir.path(), 2, ", ranks: [0, 1]"));
    const auto out = test::run_fabricsim("validate " + (dir.path() / "s.yaml").string());
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.output, Catch::Contains(file(dir, 1) + ": workload[0].trace: cannot open the trace file"));
}

TEST_CASE("trace error: a truncated stream is exit 2 naming the file and the nodes read", "[trace][errors]") {
    test::TempDir dir("trace-truncated");
    write_trace(dir.path() / "job.0.et", {compute(1, 1), compute(2, 1, {1})});
    // Cut the last node's message short: its length prefix promises more than is left.
    const std::string whole = test::read_file(dir.path() / "job.0.et");
    test::write_file(dir.path() / "job.0.et", whole.substr(0, whole.size() - 3));
    const auto out = run_in(dir, 1);
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.output, Catch::Contains(file(dir, 0) + ": workload[0].trace: the stream is truncated after 1 node: "
                                                          "the next length-delimited Node cannot be read"));
}

TEST_CASE("trace error: a dependency on an unknown id is exit 2 naming the node", "[trace][errors]") {
    test::TempDir dir("trace-unknown-dep");
    write_trace(dir.path() / "job.0.et", {compute(1, 1), compute(2, 1, {9})});
    const auto out = run_in(dir, 1);
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.output, Catch::Contains(file(dir, 0) + ": workload[0].trace: node 2: depends on node 9, which is "
                                                          "not among the nodes before it in the file (an unknown id, "
                                                          "or one listed after it)"));
}

TEST_CASE("trace error: a send without its receive is exit 2 naming the sender's node", "[trace][errors]") {
    test::TempDir dir("trace-lonely-send");
    write_trace(dir.path() / "job.0.et", {compute(1, 1), send(2, 1, 4096, {1})});
    write_trace(dir.path() / "job.1.et", {compute(1, 1)});
    const auto out = run_in(dir, 2);
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.output, Catch::Contains(file(dir, 0) + ": workload[0].trace: node 2: a send to rank 1 (tag 7) "
                                                          "without its receive: rank 0 sends 1 and rank 1 receives 0"));
}

TEST_CASE("trace error: members of a group with different collectives is exit 2", "[trace][errors]") {
    test::TempDir dir("trace-group-mismatch");
    write_trace(dir.path() / "job.0.et", {all_reduce(1, 4096), all_reduce(2, 4096, {1})});
    write_trace(dir.path() / "job.1.et", {all_reduce(1, 4096)});
    const auto out = run_in(dir, 2);
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.output, Catch::Contains(file(dir, 1) + ": workload[0].trace: its 1 collective on process group "
                                                          "\"\" differ from rank 0's 2 (node 1 there)"));
}

TEST_CASE("trace: an unknown attribute and node type are warnings naming the node, and the run goes on",
          "[trace][errors]") {
    test::TempDir dir("trace-unknown");
    pb::Node odd = compute(1, 1);
    attr(odd, "flux_capacitance", 3);
    pb::Node future = node(2, static_cast<pb::NodeType>(42), {1});
    write_trace(dir.path() / "job.0.et", {odd, future});
    const auto out = run_in(dir, 1);
    CHECK(out.exit_code == 0);
    CHECK_THAT(out.output,
               Catch::Contains(file(dir, 0) + ": node 1: unknown attribute \"flux_capacitance\" (ignored)"));
    CHECK_THAT(out.output, Catch::Contains(file(dir, 0) + ": node 2: node type 42 is not modelled; the node takes no "
                                                          "time"));
}

TEST_CASE("trace: a path without %d is a located scenario error", "[trace][errors]") {
    test::TempDir dir("trace-no-percent");
    test::write_file(dir.path() / "s.yaml", "name: t\n"
                                            "cluster: { servers: 1, server: { gpus: 0, nics: 1 } }\n"
                                            "workload:\n"
                                            "  - trace: { path: job.et }\n");
    const auto out = test::run_fabricsim("validate " + (dir.path() / "s.yaml").string());
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.output, Catch::Contains("s.yaml:4:20: workload[0].trace.path: \"job.et\" needs exactly one \"%d\""));
}
