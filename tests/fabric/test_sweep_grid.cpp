// The sweep: section (report/sweep_grid.hpp): the grid's points in order, the section taken
// out of the text with the other lines where they were, and bad input with its location.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "report/sweep_grid.hpp"
#include "report/sweep_table.hpp"

#include <algorithm>

using namespace fabricsim;

TEST_CASE("sweep grid: the cartesian product, the last key varying fastest", "[sweep]") {
    const report::SweepGrid g =
        report::parse_sweep("name: x\nsweep:\n  a.b: [1, 2, 3]\n  c: [x, y]\nworkload: []\n", "s.yaml");
    REQUIRE(g.axes.size() == 2);
    CHECK(g.axes[0].key == "a.b");
    CHECK(g.axes[0].location.line == 3);
    CHECK(g.points() == 6);  // 3 x 2
    CHECK(g.point(0) == std::vector<std::string>{"1", "x"});
    CHECK(g.point(1) == std::vector<std::string>{"1", "y"});
    CHECK(g.point(5) == std::vector<std::string>{"3", "y"});
    // The section's lines are blanked, so the loader's line numbers still point at the file.
    CHECK(g.scenario_text == "name: x\n\n\n\nworkload: []\n");
}

TEST_CASE("sweep grid: a section last in the file, and a file without one", "[sweep]") {
    const report::SweepGrid last = report::parse_sweep("name: x\nsweep:\n  k: [a]\n", "s.yaml");
    CHECK(last.points() == 1);
    CHECK(last.scenario_text == "name: x\n\n\n");
    const report::SweepGrid none = report::parse_sweep("name: x\n", "s.yaml");
    CHECK(none.axes.empty());
    CHECK(none.points() == 0);
}

TEST_CASE("sweep grid: a key without a list of values is an error at its line and column", "[sweep]") {
    try {
        (void)report::parse_sweep("name: x\nsweep:\n  a: 3\n  b: []\n", "s.yaml");
        FAIL("no error");
    } catch (const ConfigError& e) {
        REQUIRE(e.issues().size() == 2);
        CHECK(e.issues()[0].str() == "s.yaml:3:6: sweep.a: expected a non-empty list of values, found 3");
        CHECK(e.issues()[1].key_path == "sweep.b");
    }
}

TEST_CASE("content hash: FNV-1a 64 of the text, the same text the same key", "[sweep]") {
    CHECK(report::content_hash("") == "cbf29ce484222325");   // the FNV-1a 64 offset basis
    CHECK(report::content_hash("a") == "af63dc4c8601ec8c");  // FNV-1a 64 of "a", the published test vector
    CHECK(report::content_hash("abc") != report::content_hash("abd"));
}

TEST_CASE("summary.csv read back: metric and value, the variant column dropped", "[sweep]") {
    const auto m = report::parse_summary_csv("variant,metric,value\n\"a,b\",makespan_s,0.5\nx,drops,3\n");
    REQUIRE(m.size() == 2);
    CHECK(m[0].first == "makespan_s");
    CHECK(m[0].second == 0.5);
    CHECK(m[1].first == "drops");
    CHECK(m[1].second == 3);
}
