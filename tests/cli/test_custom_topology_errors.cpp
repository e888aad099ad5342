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
