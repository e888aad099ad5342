// The console table of `fabricsim run` for people: numbers with three digits and a unit, no
// row that says nothing (docs/REPORTS.md), while summary.csv keeps every exact value.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "report/display_units.hpp"

#include <nlohmann/json.hpp>

#include <regex>
#include <sstream>

using namespace fabricsim;
using namespace fabricsim::test;

namespace {

// The console row whose label is `label`: its cells, split at runs of two or more spaces.
std::vector<std::string> row(const std::string& output, const std::string& label) {
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(label + "  ", 0) != 0) continue;
        std::vector<std::string> cells;
        const std::regex gap("  +");
        const std::string rest = line.substr(label.size());
        for (std::sregex_token_iterator it(rest.begin(), rest.end(), gap, -1), end; it != end; ++it)
            if (!it->str().empty()) cells.push_back(it->str());
        return cells;
    }
    return {};
}

bool is_time(const std::string& cell) {
    static const std::regex time(R"(^(0 s|[0-9]{1,3} ps|[0-9.]{3,4} (ns|µs|ms|s)|[0-9]{3,} s)$)");
    return std::regex_match(cell, time);
}

}  // namespace

TEST_CASE("si_count: three digits and an SI prefix, never an exponent", "[cli][report][units]") {
    CHECK(report::si_count(830) == "830");
    CHECK(report::si_count(140000) == "140 k");
    CHECK(report::si_count(30289732) == "30.3 M");
    CHECK(report::si_count(999600) == "1.00 M");  // not "1000 k"
    CHECK(report::si_count(2.5e9) == "2.50 G");
    CHECK(report::si_count(0.5) == "0.500");
}

TEST_CASE("run's console for a training job: times in s/ms with three digits, the bubble that closes the sum, "
          "no 'unfinished ops 0'",
          "[cli][report][units]") {
    TempDir dir("console-training");
    const auto r = run_fabricsim("run scenarios/training-llama70b.yaml --out " + dir.path().string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    for (const char* label : {"workload done at", "llama70b iteration", "llama70b compute", "llama70b pipeline bubble",
                              "llama70b exposed comm", "wall time"}) {
        const auto cells = row(r.output, label);
        INFO(label);
        REQUIRE(cells.size() == 1);
        CHECK(is_time(cells[0]));
    }
    CHECK(r.output.find("unfinished ops") == std::string::npos);  // "result complete" says so
    CHECK(r.output.find("e+") == std::string::npos);              // no exponent anywhere
    // The CSV keeps what the console leaves out, exactly.
    const std::string csv = read_file(dir.path() / "summary.csv");
    CHECK(csv.find("default,unfinished_ops,0\n") != std::string::npos);
    // compute + bubble + exposed comm = the iteration, in the CSV's exact seconds (the split of
    // the critical rank's iteration: training_result.hpp).
    double iteration = 0, parts = 0;
    for (const auto& cells : csv_rows(csv)) {
        if (cells.size() != 3) continue;
        const double v = std::stod(cells[2]);
        if (cells[1] == "llama70b_iteration_time_s") iteration = v;
        if (cells[1] == "llama70b_compute_s" || cells[1] == "llama70b_bubble_s" ||
            cells[1] == "llama70b_exposed_comm_s")
            parts += v;
    }
    REQUIRE(iteration > 0);
    CHECK(parts == Approx(iteration).epsilon(1e-9));
}

TEST_CASE("run's console for traffic: achieved load in %, no per-entry FCT row repeating the only entry's",
          "[cli][report][units]") {
    // One Poisson entry at load 0.5 on 2 servers of the ideal network: its FCT p99 row would be
    // the run's FCT p99 row again.
    TempDir dir("console-traffic");
    const auto yaml = dir.path() / "p.yaml";
    write_file(yaml, R"(name: poisson-one
simulation: { model: ideal }
cluster: { servers: 2, server: hgx-h100 }
workload:
  - traffic: poisson
    name: web
    load: 0.5
    duration: 500us
    cdf: websearch
)");
    const auto r = run_fabricsim("run " + yaml.string() + " --out " + (dir.path() / "out").string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto load = row(r.output, "web achieved load");
    REQUIRE(load.size() == 1);
    CHECK(std::regex_match(load[0], std::regex(R"(^[0-9.]+ %$)")));
    CHECK(r.output.find("web FCT p99") == std::string::npos);
    CHECK(row(r.output, "FCT p99").size() == 1);
    CHECK(read_file(dir.path() / "out" / "summary.csv").find("default,web_fct_p99_s,") != std::string::npos);
}
