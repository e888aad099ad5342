// A custom topology that cannot be built is bad input, found before anything runs: the real
// binary exits 2 with the file, line and column of cluster.fabric.links (docs/SCENARIO.md).
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

using namespace fabricsim::test;

TEST_CASE("validate: a custom fabric in two pieces exits 2 at cluster.fabric.links, naming the pieces",
          "[cli][custom][errors]") {
    TempDir dir("custom-errors");
    const auto file = dir.path() / "split.yaml";
    write_file(file, "name: split\n"
                     "cluster:\n"
                     "  servers: 2\n"
                     "  server: { gpus: 0, nics: 1, nic: { line_rate: 100Gbps } }\n"
                     "  fabric:\n"
                     "    topology: custom\n"
                     "    switches: [{ name: sw0 }, { name: sw1 }]\n"
                     "    links:\n"
                     "      - { from: s0.nic0, to: sw0 }\n"
                     "      - { from: s1.nic0, to: sw1 }\n"
                     "workload:\n"
                     "  - transfer: { from: 0, to: 1, size: 1MiB }\n");
    const auto r = run_fabricsim("validate " + file.string());
    INFO(r.output);
    CHECK(r.exit_code == 2);
    // Line 9, column 7: the links list starts at its first item.
    CHECK(r.output.find(file.string() + ":9:7: cluster.fabric.links: the fabric falls apart into 2 pieces: "
                                        "{sw0, s0.nic0}, {sw1, s1.nic0}; expected one connected fabric in which every "
                                        "NIC reaches every other: link the pieces") != std::string::npos);
}

// A NIC link slower than DCQCN's floor cannot be run: congestion::Dcqcn refuses a QP whose
// line rate is below min_rate (the nic preset's is 1 Gb/s, congestion/dcqcn.cpp). validate
// refuses it before the run, naming the link; at exactly min_rate it runs.
TEST_CASE("validate: a NIC link below DCQCN's min_rate exits 2 at cluster.roce.dcqcn.min_rate, naming the link",
          "[cli][custom][errors]") {
    TempDir dir("dcqcn-floor");
    const auto file = dir.path() / "slow.yaml";
    const auto scenario = [](const std::string& speed) {
        return "name: slow\n"
               "simulation: { model: packet }\n"
               "cluster:\n"
               "  servers: 2\n"
               "  server: { gpus: 0, nics: 1, nic: { line_rate: 100Gbps } }\n"
               "  fabric:\n"
               "    topology: custom\n"
               "    switches: [{ name: sw0 }]\n"
               "    links:\n"
               "      - { from: s0.nic0, to: sw0, speed: " +
               speed +
               " }\n"
               "      - { from: s1.nic0, to: sw0 }\n"
               "workload:\n"
               "  - transfer: { from: 0, to: 1, size: 1MiB }\n";
    };
    write_file(file, scenario("999Mbps"));
    const auto r = run_fabricsim("validate " + file.string());
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(file.string() +
                        ": cluster.roce.dcqcn.min_rate: 1Gbps is above the 999Mbps line rate of "
                        "s0.nic0's link to sw0; DCQCN cuts a QP's rate down to min_rate, so expected "
                        "min_rate at most the slowest NIC link's rate (set cluster.roce.dcqcn.min_rate, "
                        "or make the link faster)") != std::string::npos);
    write_file(file, scenario("1Gbps"));
    const auto ok = run_fabricsim("validate " + file.string());
    INFO(ok.output);
    CHECK(ok.exit_code == 0);
}
