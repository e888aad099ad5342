// End-to-end: the fabricsim binary on the shipped quick-start scenario (ideal network).
#include <catch2/catch.hpp>

#include "cli/commands.hpp"
#include "cli_harness.hpp"
#include "core/errors.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <vector>

using fabricsim::test::csv_rows;
using fabricsim::test::read_file;
using fabricsim::test::run_fabricsim;
using fabricsim::test::TempDir;
using fabricsim::test::write_file;
using Json = nlohmann::json;

namespace {
// 1 GiB at 400 Gb/s = 2^33 bit / 4e11 bit/s = 21.47483648 ms; plus the 2 us latency.
constexpr double kGiBAt400G = 0.02147483648;
constexpr double kLatency = 2e-6;
}  // namespace

TEST_CASE("fabricsim run writes result.json with the fields README.md lists and closed-form times", "[cli]") {
    TempDir out("run");
    const auto r = run_fabricsim("run scenarios/ideal-transfers.yaml --quiet --out " + out.path().string());
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.empty());  // --quiet
    const Json j = Json::parse(read_file(out.path() / "result.json"));
    CHECK(j["schema_version"] == 1);
    CHECK(j["fabricsim_version"] == FABRICSIM_VERSION);
    CHECK(j["scenario"]["name"] == "ideal-transfers");
    REQUIRE(j["variants"].size() == 2);
    const Json& v400 = j["variants"][0];
    const Json& v200 = j["variants"][1];
    CHECK(v400["name"] == "nic-400g");
    CHECK(v200["name"] == "nic-200g");
    CHECK(v400["cost"]["model"] == "ideal");
    CHECK(v400["cost"]["events"].get<int>() >= 3);
    CHECK(v400["fabric"]["lossless_drops"] == 0);
    CHECK(v400["flows"]["count"] == 3);
    CHECK(v400["unfinished_ops"] == 0);

    // first-hop: latency + 1 GiB / 400G; second-hop starts when it ends.
    const Json& first = v400["transfers"][0];
    const Json& second = v400["transfers"][1];
    CHECK(first["name"] == "first-hop");
    CHECK(first["bytes"] == 1073741824);
    CHECK(first["fct_s"].get<double>() == Approx(kLatency + kGiBAt400G).epsilon(1e-12));
    CHECK(second["start_s"].get<double>() == Approx(first["end_s"].get<double>()).epsilon(1e-12));
    CHECK(v400["makespan_s"].get<double>() == Approx(2 * (kLatency + kGiBAt400G)).epsilon(1e-12));
    CHECK(first["slowdown"].get<double>() == 1.0);  // the ideal network is never loaded
    // At 200G the serialisation doubles.
    CHECK(v200["transfers"][0]["fct_s"].get<double>() == Approx(kLatency + 2 * kGiBAt400G).epsilon(1e-12));

    const std::string csv = read_file(out.path() / "transfers.csv");
    CHECK(csv.rfind("variant,name,from,to,bytes,start_s,end_s,fct_s,unloaded_s,slowdown,finished\n", 0) == 0);
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 2 * 3);
    CHECK(read_file(out.path() / "summary.csv").find("nic-200g,flows,3\n") != std::string::npos);
}

TEST_CASE("fabricsim run prints the side-by-side summary table", "[cli]") {
    TempDir out("table");
    const auto r = run_fabricsim("run scenarios/ideal-transfers.yaml --out " + out.path().string());
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("nic-400g") != std::string::npos);
    CHECK(r.output.find("nic-200g") != std::string::npos);
    // workload done at 2 x (2us + 21.47483648ms) = 42.95367296ms at 400G, and at 200G
    // 2 x (2us + 42.94967296ms) = 85.90334592ms, shown with three digits (result.json keeps
    // them exact)
    const auto done_row = r.output.substr(r.output.find("workload done at"));
    const auto line = done_row.substr(0, done_row.find('\n'));
    CHECK(line.find(" 43.0 ms ") != std::string::npos);
    CHECK(line.find(" 85.9 ms") != std::string::npos);
    CHECK(line.find(" 43.0 ms ") < line.find(" 85.9 ms"));  // the variants' order: 400G, 200G
    // A complete run's "unfinished ops 0" says nothing "result complete" does not: left out.
    CHECK(r.output.find("unfinished ops") == std::string::npos);
}

TEST_CASE("the same scenario and seed give byte-identical result.json apart from wall-clock cost",
          "[cli][determinism]") {
    TempDir a("det-a"), b("det-b");
    REQUIRE(
        run_fabricsim("run scenarios/ideal-transfers.yaml --quiet --seed 11 --out " + a.path().string()).exit_code ==
        0);
    REQUIRE(
        run_fabricsim("run scenarios/ideal-transfers.yaml --quiet --seed 11 --out " + b.path().string()).exit_code ==
        0);
    auto strip = [](const std::string& text) {
        Json j = Json::parse(text);
        for (auto& v : j["variants"])
            for (const char* k : {"wall_s", "events_per_s", "packet_hops_per_s", "peak_rss_bytes"}) v["cost"].erase(k);
        return j.dump();
    };
    const std::string ja = read_file(a.path() / "result.json");
    const std::string jb = read_file(b.path() / "result.json");
    CHECK(strip(ja) == strip(jb));
    CHECK(Json::parse(ja)["scenario"]["seed"] == 11);
    CHECK(read_file(a.path() / "transfers.csv") == read_file(b.path() / "transfers.csv"));
}

TEST_CASE("fabricsim validate accepts the quick-start scenario and names its variants", "[cli]") {
    const auto r = run_fabricsim("validate scenarios/ideal-transfers.yaml");
    CHECK(r.exit_code == 0);
    CHECK(r.output == "scenarios/ideal-transfers.yaml: ok (2 variants: nic-400g, nic-200g)\n");
}

TEST_CASE("every bench scenario is valid input", "[cli][bench]") {
    // bench/ runs them only by hand (run.sh, a2a_qps.sh, flow_vs_packet.sh, streaming/); a key
    // renamed in the loader must not break them unseen.
    const std::filesystem::path root(FABRICSIM_SOURCE_DIR);
    int scenarios = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "bench")) {
        if (entry.path().extension() != ".yaml") continue;
        ++scenarios;
        const std::string file = std::filesystem::relative(entry.path(), root).string();
        const auto r = run_fabricsim("validate " + file);
        INFO(r.output);
        CHECK(r.exit_code == 0);
        CHECK(r.output.rfind(file + ": ok (", 0) == 0);
    }
    CHECK(scenarios >= 26);  // 4 + 4 streaming + 3 all-to-all + 15 flow-vs-packet today
}

TEST_CASE("fabricsim validate --print shows every variant resolved with presets and overrides applied", "[cli]") {
    const auto r = run_fabricsim("validate scenarios/ideal-transfers.yaml --print --set simulation.ideal.latency=3us");
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("--- # variant: nic-400g\n") != std::string::npos);
    CHECK(r.output.find("line_rate: 400Gbps") != std::string::npos);
    CHECK(r.output.find("line_rate: 200Gbps") != std::string::npos);
    CHECK(r.output.find("servers: 16") != std::string::npos);
    CHECK(r.output.find("latency: 3us") != std::string::npos);
}

TEST_CASE("bad input exits 2 and names file and line and column and key path and the fix", "[cli]") {
    TempDir dir("bad");
    const auto file = dir.path() / "bad.yaml";
    write_file(file, "name: bad\n"
                     "cluster:\n"
                     "  servers: 2\n"
                     "  server: { preset: host-1nic, nic: { preset: connectx-7, line_rate: 400G } }\n"
                     "workload:\n"
                     "  - transfer: { from: 0, to: 1, size: 1MB }\n");
    const auto r = run_fabricsim("validate " + file.string());
    CHECK(r.exit_code == 2);
    CHECK(r.output == file.string() +
                          ":4:70: cluster.server.nic.line_rate: \"400G\" has no unit; did you mean \"400Gbps\"?\n"
                          "fabricsim: 1 error in the input\n");
}

TEST_CASE("a bad --set exits 2 and so do unknown flags and a missing file", "[cli]") {
    CHECK(run_fabricsim("run scenarios/ideal-transfers.yaml --set cluster.servers=0 --quiet --out /tmp/unused")
              .exit_code == 2);
    CHECK(run_fabricsim("run scenarios/ideal-transfers.yaml --frobnicate").exit_code == 2);
    CHECK(run_fabricsim("run scenarios/no-such-file.yaml").exit_code == 2);
    CHECK(run_fabricsim("").exit_code == 2);  // a subcommand is required
}

TEST_CASE("the version and help flags exit 0 and help shows examples", "[cli]") {
    const auto v = run_fabricsim("--version");
    CHECK(v.exit_code == 0);
    CHECK(v.output == std::string("fabricsim ") + FABRICSIM_VERSION + "\n");
    const auto h = run_fabricsim("--help");
    CHECK(h.exit_code == 0);
    CHECK(h.output.find("fabricsim run scenarios/quickstart.yaml") != std::string::npos);
}

TEST_CASE("errors map to exit codes: input 2 and model 3 and internal 1", "[cli]") {
    using namespace fabricsim;
    ConfigIssue issue;
    issue.location = SourceLocation{"x.yaml", 3, 5};
    issue.key_path = "cluster.servers";
    issue.message = "boom";
    const auto config = cli::describe_failure(ConfigError(issue));
    CHECK(config.exit_code == 2);
    CHECK(config.text == "x.yaml:3:5: cluster.servers: boom\nfabricsim: 1 error in the input\n");
    const auto model = cli::describe_failure(ModelError("deadlock: sw1 port 3 prio 3 -> sw2 port 1 prio 3"));
    CHECK(model.exit_code == 3);
    CHECK(model.text == "fabricsim: model error: deadlock: sw1 port 3 prio 3 -> sw2 port 1 prio 3\n");
    CHECK(cli::describe_failure(InternalError("x")).exit_code == 1);
    CHECK(cli::describe_failure(std::runtime_error("x")).exit_code == 1);
}

TEST_CASE("run rejects a cluster the topology cannot hold and states the largest buildable size", "[cli]") {
    const auto r =
        run_fabricsim("run scenarios/ideal-transfers.yaml --quiet --set cluster.servers=300 --out /tmp/unused");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(
              "scenarios/ideal-transfers.yaml: cluster.servers: 300 servers with 8 NICs each need 2400 endpoints; "
              "a leaf-spine fabric of 64-port switches at 1:1 holds at most 2048 endpoints (256 servers)") !=
          std::string::npos);
}

TEST_CASE("fabricsim topo prints the fabric of the README example", "[cli]") {
    const auto r = run_fabricsim("topo scenarios/topology-h100-leaf-spine.yaml --json");
    REQUIRE(r.exit_code == 0);
    const Json j = Json::parse(r.output);
    CHECK(j["gpus"] == 256);  // 32 HGX H100 servers x 8 GPUs
    CHECK(j["nics"].get<int>() >= 256);
}

TEST_CASE("run --check stops with exit 3 when the lossless class dropped packets", "[cli][packet]") {
    TempDir out("check");
    // 1 KiB of PFC headroom cannot hold what is on the cable when the pause goes out.
    const auto bad = run_fabricsim("run scenarios/roce-incast.yaml --check --quiet --set "
                                   "cluster.roce.pfc.headroom=1KiB --out " +
                                   out.path().string());
    CHECK(bad.exit_code == 3);
    CHECK(bad.output.find("invariant broken: ") != std::string::npos);
    CHECK(bad.output.find("dropped on the lossless class (PFC headroom or switch buffer too small)") !=
          std::string::npos);
    // With the headroom PFC computes, every invariant holds.
    const auto good = run_fabricsim("run scenarios/roce-incast.yaml --check --quiet --out " + out.path().string());
    CHECK(good.exit_code == 0);
}

TEST_CASE("run writes ports.csv for the packet model: bytes and pauses and marks per port", "[cli][packet]") {
    TempDir out("ports");
    const auto r = run_fabricsim("run scenarios/roce-incast.yaml --quiet --out " + out.path().string());
    REQUIRE(r.exit_code == 0);
    const std::string csv = read_file(out.path() / "ports.csv");
    CHECK(csv.rfind("variant,from,to,priority,bytes,busy_s,utilisation,max_queue_bytes,pauses_received,paused_s,"
                    "ecn_marks,mean_queue_bytes\n",
                    0) == 0);
    // The switch port to the incast's receiver carries all 16 x 4 MiB, busy most of the run.
    std::int64_t pauses = 0, to_receiver = 0;
    double utilisation = 0;
    for (const auto& f : csv_rows(csv)) {
        REQUIRE(f.size() == 12);
        if (f[0] != "pfc-only") continue;
        pauses += std::stoll(f[8]);
        if (f[2] == "s0.nic0" && f[1] != "s0.cpu") {
            to_receiver = std::stoll(f[4]);
            utilisation = std::stod(f[6]);
        }
    }
    CHECK(to_receiver == 16 * 4 * 1024 * 1024);
    CHECK(utilisation > 0.9);
    CHECK(pauses > 0);  // the senders' NICs were paused
}

TEST_CASE("outputs.qp_rates writes each QP's DCQCN rate over time to qp_rates.csv", "[cli][packet]") {
    TempDir out("qp_rates");
    const auto r = run_fabricsim("run scenarios/roce-incast.yaml --quiet --set outputs.qp_rates=20us --out " +
                                 out.path().string());
    REQUIRE(r.exit_code == 0);
    const std::string csv = read_file(out.path() / "qp_rates.csv");
    CHECK(csv.rfind("variant,qp,time_s,rate_bps,ccti\n", 0) == 0);
    // The dcqcn variant's 16 senders each start at the 100G line rate and are cut below it.
    std::map<std::string, std::vector<double>> rates;
    for (const auto& f : csv_rows(csv)) {
        REQUIRE(f.size() == 5);
        CHECK(f[0] != "pfc-only");  // the pfc-only variant runs no DCQCN: no QP rates
        CHECK(f[4].empty());        // DCQCN has no table index
        if (f[0] == "dcqcn") rates[f[1]].push_back(std::stod(f[3]));
    }
    CHECK(rates.size() == 16);
    for (const auto& [qp, series] : rates) {
        CHECK(series.front() == 100e9);
        CHECK(*std::min_element(series.begin(), series.end()) < 50e9);
    }
}

TEST_CASE("outputs.qp_rates writes each InfiniBand QP's CCTI and rate over time", "[cli][packet][infiniband]") {
    TempDir out("qp_ccti");
    const auto r = run_fabricsim("run scenarios/incast-roce-vs-ib.yaml --variant roce --variant infiniband --quiet "
                                 "--set outputs.qp_rates=1us --out " +
                                 out.path().string());
    REQUIRE(r.exit_code == 0);
    // 32 senders at 400G, each QP starting at CCTI 0 and the line rate; BECNs raise CCTI, and
    // each rate is the line rate slowed by its CCT entry: a higher CCTI never sends faster.
    std::map<std::string, std::vector<std::pair<int, double>>> series;
    for (const auto& f : csv_rows(read_file(out.path() / "qp_rates.csv"))) {
        REQUIRE(f.size() == 5);
        if (f[0] == "roce") {
            CHECK(f[4].empty());  // DCQCN has no table index
            continue;
        }
        REQUIRE(f[0] == "infiniband");
        series[f[1]].emplace_back(std::stoi(f[4]), std::stod(f[3]));
    }
    CHECK(series.size() == 32);
    int peak = 0;
    for (auto& [qp, s] : series) {
        CHECK(s.front() == std::make_pair(0, 400e9));
        std::sort(s.begin(), s.end());
        for (std::size_t i = 1; i < s.size(); ++i)
            if (s[i].first > s[i - 1].first) CHECK(s[i].second <= s[i - 1].second);
        peak = std::max(peak, s.back().first);
    }
    CHECK(peak >= 1);  // at least one BECN's CCTI_Increase (1, the Mellanox CC manager's default)
}

TEST_CASE("a sizes sweep prints its busbw curve in nccl-tests' columns, matching result.json", "[cli]") {
    TempDir out("sweep");
    const auto r = run_fabricsim("run scenarios/allreduce-sweep.yaml --out " + out.path().string());
    REQUIRE(r.exit_code == 0);
    const std::string head =
        "# all_reduce_perf: all_reduce, 32 ranks — variant default\n"
        "#       size         count      type   redop    root       time    algbw    busbw  algorithm\n"
        "#        (B)    (elements)                                 (us)   (GB/s)   (GB/s)\n";
    const auto at = r.output.find(head);
    REQUIRE(at != std::string::npos);
    // One row per size, 64 KiB to 1 GiB by 4: size, count = size / 4, float, sum, -1, then the
    // time, algbw and busbw that result.json holds, to the printed precision.
    const Json j = Json::parse(read_file(out.path() / "result.json"));
    std::vector<Json> runs;
    for (const auto& c : j["variants"][0]["collectives"])
        if (c["name"] == "all_reduce_perf") runs.push_back(c);
    REQUIRE(runs.size() == 8);
    std::istringstream rows(r.output.substr(at + head.size()));
    for (const Json& c : runs) {
        std::string line;
        REQUIRE(std::getline(rows, line));
        std::istringstream f(line);
        std::int64_t size = 0, count = 0;
        std::string type, redop, algorithm;
        int root = 0;
        double time_us = 0, algbw = 0, busbw = 0;
        f >> size >> count >> type >> redop >> root >> time_us >> algbw >> busbw >> algorithm;
        CHECK(size == c["bytes"].get<std::int64_t>());
        CHECK(count == size / 4);
        CHECK(type == "float");
        CHECK(redop == "sum");
        CHECK(root == -1);
        CHECK(time_us == Approx(c["time_s"].get<double>() * 1e6).margin(0.005));
        CHECK(algbw == Approx(c["algbw_GBps"].get<double>()).margin(0.005));
        CHECK(busbw == Approx(c["busbw_GBps"].get<double>()).margin(0.005));
        // nccl-tests' all-reduce factor, on the printed (2-decimal) values: algbw's rounding
        // (0.005) times 62/32 plus busbw's own (0.005) is at most 0.0147.
        CHECK(busbw == Approx(algbw * 2 * 31 / 32).margin(0.0147));
        CHECK(algorithm == c["algorithm"].get<std::string>());
    }
}
