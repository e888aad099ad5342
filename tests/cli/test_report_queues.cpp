// The queue time series in the reports (docs/REPORTS.md): compare's queue rows over time,
// derived by hand, and the HTML report's queue-depth plot against the run's own queues.csv
// and ports.csv.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "report/comparison.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

using namespace fabricsim;
using namespace fabricsim::test;

namespace {

const report::ComparisonRow* row(const report::Comparison& c, const std::string& label) {
    for (const auto& r : c.rows)
        if (r.label == label) return &r;
    return nullptr;
}

QueueSeries queue_series(const std::string& port, std::initializer_list<std::pair<int, int>> us_bytes) {
    QueueSeries s{port, {}};
    for (const auto& [us, bytes] : us_bytes) s.samples.push_back(QueueSample{Time::us(us), Bytes{bytes}, false, false});
    return s;
}

// A row's value for variant i, which must be there.
double value(const report::ComparisonRow* r, std::size_t i) {
    REQUIRE(r->values[i].has_value());
    return *r->values[i];
}

PortReport port_report(const std::string& from, const std::string& to, std::int64_t max_queue, double queue_area) {
    PortReport p;
    p.from = from;
    p.to = to;
    p.max_queue = Bytes{max_queue};
    p.queue_area = queue_area;
    return p;
}

// Three plain hosts on one 100G RoCE switch, PFC alone; hosts 0 and 1 each send 16 packets of
// 4 KiB to host 2 at once (the incast of tests/cli/test_queue_output.cpp). `outputs` is the
// scenario's outputs section, or empty.
std::string incast(const std::string& outputs) {
    return "name: report-queues\n"
           "simulation: { model: packet }\n"
           "cluster:\n"
           "  servers: 3\n"
           "  server: { preset: host-1nic, nic: { preset: connectx-7, line_rate: 100Gbps } }\n"
           "  fabric: { topology: single-switch, mtu: 4KiB, switch: { preset: spectrum-4, port_speed: 100Gbps, radix: "
           "32 } }\n"
           "  roce: { ecn: { enabled: false }, dcqcn: { enabled: false } }\n"
           "workload:\n"
           "  - transfer: { from: 0, to: 2, size: 65536B }\n"
           "  - transfer: { from: 1, to: 2, size: 65536B }\n" +
           outputs;
}

// The plots' data the page hands to its script.
nlohmann::json page_plots(const std::string& html) {
    const std::string start = "window.FABRICSIM_PLOTS = ";
    const auto at = html.find(start);
    REQUIRE(at != std::string::npos);
    const auto end = html.find(";</script>", at);
    REQUIRE(end != std::string::npos);
    return nlohmann::json::parse(html.substr(at + start.size(), end - at - start.size()));
}

}  // namespace

TEST_CASE("compare: queue percentiles over time from the queue series, time-weighted, per-port maxima without one",
          "[cli][compare][queues]") {
    // Variant a sampled two ports. Each sample holds until that port's next one; the last weighs
    // nothing:
    //   leaf0->s0.nic0: 0 B for 1 µs, 100 B for 3 µs, 300 B for 1 µs;
    //   leaf0->s1.nic0: 50 B for 4 µs.
    // Sorted by depth: 0 (1 µs), 50 (4 µs, 5 so far), 100 (3 µs, 8), 300 (1 µs, 9) of 9 µs.
    // p50 (4.5 µs): 50 B. p80 (7.2 µs): 100 B. p99 (8.91 µs): 300 B. (Over the samples
    // unweighted the median of {0, 100, 300, 0, 50, 50, 50, 0} would be 50 too, but p80 would be
    // 100 and p50 of port 0 alone 0 B rather than 100 B, below.)
    report::VariantResult a;
    a.model = "packet";
    a.makespan = Time::us(5);
    a.queues = {queue_series("leaf0->s0.nic0", {{0, 0}, {1, 100}, {4, 300}, {5, 0}}),
                queue_series("leaf0->s1.nic0", {{0, 50}, {1, 50}, {4, 50}, {5, 0}})};
    // ports.csv's mean_queue_bytes = queue_area / makespan: 100 B and 300 B on two NIC-leaf
    // ports, a mean of 200 B for the tier.
    a.ports = {port_report("leaf0", "s0.nic0", 300, 100 * 5e-6), port_report("leaf0", "s1.nic0", 50, 300 * 5e-6)};
    // Variant b has no series: its rows are the percentiles of its ports' deepest queues,
    // nearest rank over {1000, 3000}: p50 the 1st, p99 the 2nd.
    report::VariantResult b;
    b.model = "packet";
    b.makespan = Time::us(5);
    b.ports = {port_report("leaf0", "s0.nic0", 1000, 0), port_report("leaf0", "s1.nic0", 3000, 0)};

    const auto weighted = report::queue_depth_over_time(a.queues);
    CHECK(weighted.size() == 6);
    CHECK(report::time_weighted_percentile(weighted, 0.5) == 50);
    CHECK(report::time_weighted_percentile(weighted, 0.8) == 100);
    CHECK(report::time_weighted_percentile(weighted, 0.99) == 300);
    CHECK(report::time_weighted_percentile(report::queue_depth_over_time({a.queues[0]}), 0.5) == 100);

    const auto c = report::compare({&a, &b}, {"a", "b"});
    const auto* p50 = row(c, "sampled ports' queue p50 over time");
    const auto* p99 = row(c, "sampled ports' queue p99 over time");
    REQUIRE(p50 != nullptr);
    REQUIRE(p99 != nullptr);
    CHECK(value(p50, 0) == Approx(50));
    CHECK(value(p99, 0) == Approx(300));
    CHECK_FALSE(p50->values[1].has_value());
    const auto* max50 = row(c, "port max queue p50");
    const auto* max99 = row(c, "port max queue p99");
    REQUIRE(max50 != nullptr);
    REQUIRE(max99 != nullptr);
    CHECK_FALSE(max50->values[0].has_value());
    CHECK(value(max50, 1) == Approx(1000));
    CHECK(value(max99, 1) == Approx(3000));
    const auto* mean = row(c, "nic-leaf time-average queue");
    REQUIRE(mean != nullptr);
    CHECK(value(mean, 0) == Approx(200));
    CHECK(value(mean, 1) == Approx(0));

    // Without any series the over-time rows are left out.
    const auto only_b = report::compare({&b}, {"b"});
    CHECK(row(only_b, "sampled ports' queue p50 over time") == nullptr);
    CHECK(row(only_b, "port max queue p50") != nullptr);
}

TEST_CASE("HTML report: the queue-depth plot holds the run's queue series, its peak within one sample of ports.csv's",
          "[cli][compare][queues]") {
    TempDir dir("report-queues");
    const auto file = dir.path() / "q.yaml";
    write_file(file, incast("outputs:\n  queues: { top: 1, interval: 1us }\n"));
    const auto run = run_fabricsim("run " + file.string() + " --quiet --out " + (dir.path() / "run").string());
    REQUIRE(run.exit_code == 0);
    const auto html = dir.path() / "r.html";
    const auto cmp = run_fabricsim("compare " + file.string() + " --html " + html.string());
    INFO(cmp.output);
    REQUIRE(cmp.exit_code == 0);
    const std::string page = read_file(html);
    CHECK(page.find("<figure id=\"plot-queue-0\">") != std::string::npos);
    CHECK(page.find("no-queue-series") == std::string::npos);
    const auto plots = page_plots(page);
    REQUIRE(plots.contains("plot-queue-0"));
    REQUIRE(plots["plot-queue-0"].size() == 1);  // one variant
    const auto& line = plots["plot-queue-0"][0];
    const std::string port = line["port"].get<std::string>();

    // The plotted points are queues.csv's samples of that port: time in µs, wire bytes.
    std::vector<std::pair<double, std::int64_t>> samples;
    for (const auto& f : csv_rows(read_file(dir.path() / "run" / "queues.csv")))
        if (f[1] == port) samples.emplace_back(std::stod(f[2]) * 1e6, std::stoll(f[3]));
    REQUIRE(samples.size() > 5);
    REQUIRE(line["points"].size() == samples.size());  // fewer than 2000: none thinned
    double plotted_max = 0;
    for (std::size_t k = 0; k < samples.size(); ++k) {
        CHECK(line["points"][k][0].get<double>() == Approx(samples[k].first));
        CHECK(line["points"][k][1].get<std::int64_t>() == samples[k].second);
        plotted_max = std::max(plotted_max, line["points"][k][1].get<double>());
    }
    // ports.csv's max_queue_bytes is the exact peak; a sample comes at most 1 µs after it, by
    // when the port has finished at most ceil(1 µs / τ) = 3 packets, τ = 4178 x 8 / 100 Gb/s =
    // 334.24 ns, each 4158 B in the queue (and arrivals only add): peak - 3 x 4158 <= plotted
    // max <= peak.
    std::int64_t peak = -1;
    for (const auto& f : csv_rows(read_file(dir.path() / "run" / "ports.csv")))
        if (f[1] + "->" + f[2] == port) peak = std::stoll(f[7]);
    REQUIRE(peak > 0);
    CHECK(plotted_max <= static_cast<double>(peak));
    CHECK(plotted_max >= static_cast<double>(peak - 3 * 4158));
}

TEST_CASE("HTML report: no queue plots without outputs.queues, and a sentence saying why", "[cli][compare][queues]") {
    TempDir dir("report-no-queues");
    const auto file = dir.path() / "q.yaml";
    write_file(file, incast(""));
    const auto html = dir.path() / "r.html";
    const auto cmp = run_fabricsim("compare " + file.string() + " --html " + html.string());
    INFO(cmp.output);
    REQUIRE(cmp.exit_code == 0);
    const std::string page = read_file(html);
    CHECK(page.find("<figure id=\"plot-queue-") == std::string::npos);
    CHECK(page.find("<figure id=\"plot-paused") == std::string::npos);
    CHECK(page.find("<figure id=\"plot-credit-stalled") == std::string::npos);
    const auto plots = page_plots(page);
    for (auto it = plots.begin(); it != plots.end(); ++it) CHECK(it.key().rfind("plot-queue-", 0) != 0);
    CHECK(page.find("id=\"no-queue-series\"") != std::string::npos);
    CHECK(page.find("<code>outputs.queues</code>") != std::string::npos);
}
