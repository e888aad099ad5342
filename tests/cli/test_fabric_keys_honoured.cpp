// Keys of the fabric sections that a model reads or that are refused or warned of, never quietly
// ignored: cluster.storage_fabric's technology and MTU (the packet model runs every fabric with
// cluster.fabric's), its routing (no model reads one, so it is not a key),
// and the NIC's receive buffer (docs/models/pfc.md).
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

using namespace fabricsim::test;

namespace {

// Two servers with one storage NIC each on a storage fabric; `storage` is the storage_fabric
// mapping's extra keys, `model` the simulation model.
std::string storage_scenario(const std::string& model, const std::string& storage) {
    return "name: storage-keys\n"
           "simulation: { model: " +
           model +
           " }\n"
           "cluster:\n"
           "  servers: 2\n"
           "  server: { preset: host-1nic, storage_nics: 1, storage_nic: connectx-7 }\n"
           "  fabric: { technology: roce, mtu: 4KiB }\n"
           "  storage_fabric: { storage_nodes: 1, " +
           storage +
           " }\n"
           "workload:\n"
           "  - transfer: { from: 0, to: 1, size: 1MB }\n";
}

}  // namespace

TEST_CASE("packet model: a storage fabric of another technology is a located input error, not RoCE in disguise",
          "[cli][storage]") {
    TempDir dir("storage-keys");
    const auto file = dir.path() / "s.yaml";
    write_file(file, storage_scenario("packet", "technology: infiniband, mtu: 2KiB"));
    const auto r = run_fabricsim("validate " + file.string());
    CHECK(r.exit_code == 2);
    // Both keys are named, each where it is written (line 7), with what the model would run.
    CHECK(r.output.find(file.string() + ":7:") != std::string::npos);
    CHECK(r.output.find("cluster.storage_fabric.technology: \"infiniband\"; the packet model runs the storage fabric "
                        "with the compute fabric's technology (roce)") != std::string::npos);
    CHECK(r.output.find("cluster.storage_fabric.mtu: \"2KiB\"; the packet model runs the storage fabric with the "
                        "compute fabric's MTU (4KiB)") != std::string::npos);
}

TEST_CASE("packet model: a storage fabric that repeats the compute fabric's values, or the ideal model, is fine",
          "[cli][storage]") {
    TempDir dir("storage-keys-ok");
    const auto same = dir.path() / "same.yaml";
    write_file(same, storage_scenario("packet", "technology: roce, mtu: 4KiB"));
    CHECK(run_fabricsim("validate " + same.string()).exit_code == 0);
    // The ideal run builds and checks the storage fabric's links, whose classes both set.
    const auto ideal = dir.path() / "ideal.yaml";
    write_file(ideal, storage_scenario("ideal", "technology: infiniband, mtu: 2KiB"));
    CHECK(run_fabricsim("validate " + ideal.string()).exit_code == 0);
}

TEST_CASE("a storage fabric has no routing: every model routes it with cluster.fabric.routing", "[cli][storage]") {
    TempDir dir("storage-routing");
    const auto file = dir.path() / "s.yaml";
    for (const char* model : {"ideal", "packet", "flow"}) {
        INFO(model);
        write_file(file, storage_scenario(model, "routing: adaptive"));
        const auto r = run_fabricsim("validate " + file.string());
        CHECK(r.exit_code == 2);
        CHECK(r.output.find(file.string() + ":7:39: cluster.storage_fabric.routing: unknown key") != std::string::npos);
    }
}

TEST_CASE("a NIC receive buffer below its link's PFC headroom is a located input error at run time", "[cli][nic]") {
    TempDir dir("rx-buffer");
    const auto file = dir.path() / "rx.yaml";
    write_file(file, "name: rx\n"
                     "simulation: { model: packet }\n"
                     "cluster:\n"
                     "  servers: 2\n"
                     "  server: { preset: host-1nic, nic: { preset: connectx-7, receive_buffer: 8KiB } }\n"
                     "workload:\n"
                     "  - transfer: { from: 0, to: 1, size: 1MB }\n");
    const auto r = run_fabricsim("run " + file.string() + " --quiet --out " + (dir.path() / "out").string());
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("cluster.server.nic.receive_buffer: NIC s0.nic0: its receive buffer of 8KiB must hold more "
                        "than the PFC headroom") != std::string::npos);
}
