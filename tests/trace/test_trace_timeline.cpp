// outputs.timeline: timeline.json is Chrome's trace-event format (the "JSON Object Format" of
// Google's Trace Event Format document): a traceEvents array whose complete ("X") events carry
// name, ph, ts and dur in microseconds, pid and tid; one per op, one track (tid) per rank.
#include <catch2/catch.hpp>

#include "trace_fixtures.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <set>

using namespace trace_test;

TEST_CASE("trace: timeline.json holds one complete event per node, on its rank's track", "[trace][timeline]") {
    test::TempDir dir("trace-timeline");
    // 2 ranks, each: compute, all-reduce, compute, and rank 0 sends to rank 1: 7 + 1 + 1 nodes
    // that take time (the metadata node takes none and has no event).
    write_trace(dir.path() / "job.0.et", {compute(1, 10), all_reduce(2, 1 << 20, {1}), compute(3, 20, {2}),
                                          send(4, 1, 4096, {3}), node(5, pb::METADATA_NODE)});
    write_trace(dir.path() / "job.1.et",
                {compute(1, 10), all_reduce(2, 1 << 20, {1}), compute(3, 20, {2}), recv(4, 0, 4096, {3})});
    test::write_file(dir.path() / "s.yaml", scenario_text(dir.path(), 2) + "outputs: { timeline: true }\n");
    const auto out = test::run_fabricsim(
        fmt::format("run {} --out {} --no-html", (dir.path() / "s.yaml").string(), (dir.path() / "out").string()));
    REQUIRE(out.exit_code == 0);
    const auto json = nlohmann::json::parse(test::read_file(dir.path() / "out" / "timeline.json"));
    REQUIRE(json.contains("traceEvents"));
    int complete = 0;
    std::set<std::int64_t> tracks;
    std::map<std::int64_t, double> end_of_rank;
    for (const auto& e : json["traceEvents"]) {
        REQUIRE(e.contains("ph"));
        if (e["ph"] == "M") continue;  // names of the process and threads
        REQUIRE(e["ph"] == "X");
        ++complete;
        CHECK(e["name"].is_string());
        CHECK(e["ts"].get<double>() >= 0);
        CHECK(e["dur"].get<double>() >= 0);
        CHECK(e["pid"] == 0);
        tracks.insert(e["tid"].get<std::int64_t>());
        auto& end = end_of_rank[e["tid"].get<std::int64_t>()];
        end = std::max(end, e["ts"].get<double>() + e["dur"].get<double>());
    }
    CHECK(complete == 8);
    CHECK(tracks == std::set<std::int64_t>{0, 1});
    // Rank 1's last op ends last: 10 us + the all-reduce + 20 us + α + 4096 B / B.
    const auto run = nlohmann::json::parse(test::read_file(dir.path() / "out" / "result.json"));
    const double time_us = run["variants"][0]["traces"][0]["time_s"].get<double>() * 1e6;
    CHECK(end_of_rank[1] == Approx(time_us));
}
