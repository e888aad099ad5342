// `fabricsim sweep` end to end on the shipped sweep scenarios/sweeps/allreduce-nic-speed.yaml:
// one row per grid point, the ring's busbw at 1 GiB following the NICs' line rate (its header's
// closed form), a rerun that runs nothing, and the Slurm array's job scripts run by hand then
// gathered with --collect (tools/check_slurm_sweep.sh submits the same array to a real Slurm).
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <sstream>

using namespace fabricsim::test;
using Json = nlohmann::json;

namespace {

const std::string kSweep = "scenarios/sweeps/allreduce-nic-speed.yaml";

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

}  // namespace

TEST_CASE("sweep: one row per grid point, busbw following the line rate, a rerun skips every cached point",
          "[cli][sweep]") {
    TempDir dir("sweep");
    const auto out = dir.path() / "s";
    const auto r = run_fabricsim("sweep " + kSweep + " --out " + out.string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("6 runs (6 points, every variant at each), 0 done before, 6 run now") != std::string::npos);
    const auto csv = lines(read_file(out / "sweep.csv"));
    REQUIRE(csv.size() == 1 + 6);  // header + 3 line rates x 2 algorithms
    CHECK(csv[0].rfind("point,cluster.server.nic.line_rate,workload.0.algorithm,variant,hash,done,", 0) == 0);
    CHECK(csv[1].rfind("0,100Gbps,ring,default,", 0) == 0);
    CHECK(csv[6].rfind("5,400Gbps,tree,default,", 0) == 0);

    const Json j = Json::parse(read_file(out / "sweep.json"));
    REQUIRE(j["rows"].size() == 6);
    for (const Json& row : j["rows"]) {
        CHECK(row["done"] == true);
        if (row["values"]["workload.0.algorithm"] != "ring") continue;
        // 8 NICs per server at R Gb/s: the ring's busbw at 1 GiB is 8 x R / 8 GB/s (the header).
        const std::string rate = row["values"]["cluster.server.nic.line_rate"];
        const double gbps = std::stod(rate);
        CHECK(row["metrics"]["ar_1073741824_busbw_GBps"].get<double>() == Approx(8 * gbps / 8).epsilon(0.01));
    }
    CHECK(read_file(out / "sweep.html").find("<figure id=\"sweep-0\"") != std::string::npos);

    const auto again = run_fabricsim("sweep " + kSweep + " --out " + out.string());
    CHECK(again.exit_code == 0);
    CHECK(again.output.find("6 done before, 0 run now") != std::string::npos);
    // A changed point is a new hash: only the changed runs run.
    const auto seed = run_fabricsim("sweep " + kSweep + " --out " + out.string() + " --seed 7");
    CHECK(seed.output.find("0 done before, 6 run now") != std::string::npos);
}

TEST_CASE("sweep --emit-slurm: an array of self-contained jobs, run by hand here, gathered by --collect",
          "[cli][sweep]") {
    TempDir dir("slurm");
    const auto out = dir.path() / "s";
    const auto r = run_fabricsim("sweep " + kSweep + " --emit-slurm " + out.string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const std::string script = read_file(out / "sweep.sbatch");
    CHECK(script.find("#SBATCH --array=0-5\n") != std::string::npos);
    CHECK(lines(read_file(out / "jobs.txt")).size() == 6);
    CHECK(std::system(("bash -n " + (out / "sweep.sbatch").string()).c_str()) == 0);

    // Nothing run yet: collect says so and exits 3.
    const auto none = run_fabricsim("sweep --collect " + out.string());
    CHECK(none.exit_code == 3);
    CHECK(none.output.find("0 of 6 runs have results") != std::string::npos);

    const std::string binary = FABRICSIM_BINARY;
    for (int task = 0; task < 6; ++task) {
        const std::string cmd = "SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " FABRICSIM=" + binary + " bash " +
                                (out / "sweep.sbatch").string() + " > /dev/null";
        CHECK(std::system(cmd.c_str()) == 0);
    }
    const auto all = run_fabricsim("sweep --collect " + out.string());
    CHECK(all.exit_code == 0);
    CHECK(all.output.find("6 of 6 runs have results") != std::string::npos);
    const auto csv = lines(read_file(out / "sweep.csv"));
    REQUIRE(csv.size() == 7);
    CHECK(csv[3].rfind("2,200Gbps,ring,default,", 0) == 0);
    // A rerun of a task finds its results and runs nothing.
    const auto rerun = run_fabricsim("sweep " + kSweep + " --out " + out.string());
    CHECK(rerun.output.find("6 done before, 0 run now") != std::string::npos);
}

TEST_CASE("sweep: a scenario without a sweep section, and --collect of a folder without a manifest, are exit 2",
          "[cli][sweep]") {
    const auto r = run_fabricsim("sweep scenarios/quickstart.yaml");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("scenarios/quickstart.yaml: no sweep: section") != std::string::npos);
    TempDir dir("nomanifest");
    const auto c = run_fabricsim("sweep --collect " + dir.path().string());
    CHECK(c.exit_code == 2);
    CHECK(c.output.find("--collect: cannot read") != std::string::npos);
}
