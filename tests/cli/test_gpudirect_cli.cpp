// `fabricsim topo` lists each server's data paths, GPUDirect or through host memory
// (docs/models/gpudirect.md): scenarios/gpudirect-on-off.yaml's four variants.
#include <catch2/catch.hpp>

#include "cli_harness.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace fabricsim::test;
using Json = nlohmann::json;

namespace {

// The data path line of `variant` that starts with `what`, or "" if there is none.
std::string path_of(const Json& variant, const std::string& what) {
    for (const auto& line : variant["data_paths"]) {
        std::string s = line.get<std::string>();
        if (s.rfind(what, 0) == 0) return s;
    }
    return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("topo shows GDR on and off, SHM without P2P, and PXN on and off as data paths", "[cli][gpudirect]") {
    const auto r = run_fabricsim("topo scenarios/gpudirect-on-off.yaml --json");
    REQUIRE(r.exit_code == 0);
    const Json j = Json::parse(r.output);
    REQUIRE(j["variants"].size() == 4);
    const Json& gdr_on = j["variants"][0];
    const Json& gdr_off = j["variants"][1];
    const Json& pxn_on = j["variants"][2];
    const Json& pxn_off = j["variants"][3];
    // pcie-l40s: GDR through its PCIe switch, no P2P (NCCL's SHM through host memory).
    CHECK(has(path_of(gdr_on, "GPU -> NIC:"), "GPUDirect RDMA through the PCIe switch"));
    CHECK(has(path_of(gdr_on, "GPU -> GPU:"), "(NCCL SHM)"));
    // GDR off: staged in host memory in the configured chunks, crossing the root port each way.
    const std::string off = path_of(gdr_off, "GPU -> NIC:");
    CHECK(has(off, "staged in host memory (512KiB chunks"));
    CHECK(has(off, "the root port crossed each way"));
    // HGX: P2P over NVLink; PXN on (NCCL's default) and off.
    CHECK(has(path_of(pxn_on, "GPU -> GPU:"), "over NVLink"));
    CHECK(has(path_of(pxn_on, "other rail:"), "PXN"));
    CHECK(has(path_of(pxn_off, "other rail:"), "the rank's own NIC"));
    // A PCIe server without NVLink has no other-rail line.
    CHECK(path_of(gdr_on, "other rail:").empty());
    // The text form prints the same lines.
    const auto text = run_fabricsim("topo scenarios/gpudirect-on-off.yaml");
    REQUIRE(text.exit_code == 0);
    CHECK(has(text.output, "data path     GPU -> NIC: staged in host memory"));
}
