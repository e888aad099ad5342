// cluster.server.gpudirect and cluster.server.host (docs/models/gpudirect.md): read, defaulted,
// taken from the presets, refused with the key table's messages, and printed back.
#include "scenario/describe.hpp"
#include "scenario/key_docs.hpp"
#include "scenario/loader.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::scenario;
using namespace fabricsim::literals;

namespace {

LoadOptions shipped_presets() {
    LoadOptions o;
    o.config_dirs = {std::filesystem::path(FABRICSIM_SOURCE_DIR) / "configs"};
    return o;
}

std::string with_server(const std::string& server) {
    return "name: g\ncluster:\n  servers: 2\n  server: " + server +
           "\nworkload:\n  - transfer: { from: 0, to: 1, size: 1MB }\n";
}

ServerSpec server_of(const std::string& server) {
    const auto loaded = load_scenario_text(with_server(server), "g.yaml", shipped_presets());
    REQUIRE(loaded.variants.size() == 1);
    return loaded.variants.front().spec.cluster.server;
}

std::vector<std::string> issues_of(const std::string& server) {
    try {
        load_scenario_text(with_server(server), "t.yaml", shipped_presets());
    } catch (const ConfigError& e) {
        std::vector<std::string> out;
        for (const auto& i : e.issues()) out.push_back(i.str());
        return out;
    }
    return {};
}

}  // namespace

TEST_CASE("gpudirect: every path on and PXN on unless a preset or the scenario says otherwise", "[loader][gpudirect]") {
    const ServerSpec inline_server = server_of("{ gpus: 2 }");
    CHECK(inline_server.gpudirect == GpuDirectSpec{true, true, true, true});
    CHECK(inline_server.host.sockets == 1);
    CHECK(inline_server.host.staging_chunk == 512_KiB);
    // The HGX presets keep everything on; pcie-l40s has no P2P (CUDA refuses peer access on
    // L40S) and no NVLink for PXN, and two sockets.
    CHECK(server_of("hgx-h100").gpudirect == GpuDirectSpec{true, true, true, true});
    const ServerSpec l40s = server_of("pcie-l40s");
    CHECK(l40s.gpudirect == GpuDirectSpec{true, false, true, false});
    CHECK(l40s.host.sockets == 2);
    // A scenario overrides one key and keeps the preset's others.
    const ServerSpec off =
        server_of("{ preset: pcie-l40s, gpudirect: { rdma: false }, host: { memory_copy: 40GB/s } }");
    CHECK(off.gpudirect == GpuDirectSpec{false, false, true, false});
    CHECK(off.host.memory_copy == Bandwidth::GBps(40));
    CHECK(off.host.sockets == 2);
}

TEST_CASE("gpudirect and host keys are refused with their path, what was found and the nearest key",
          "[loader][gpudirect]") {
    CHECK(issues_of("{ gpus: 2, gpudirect: { rdam: false } }") ==
          std::vector<std::string>{"t.yaml:4:35: cluster.server.gpudirect.rdam: unknown key; did you mean \"rdma\"?"});
    CHECK(issues_of("{ gpus: 2, host: { sockets: 3 } }") ==
          std::vector<std::string>{"t.yaml:4:39: cluster.server.host.sockets: expected an integer <= 2, found 3"});
}

TEST_CASE("validate --print, docs --keys and the JSON Schema show the gpudirect and host keys", "[loader][gpudirect]") {
    const auto loaded = load_scenario_text(with_server("pcie-l40s"), "g.yaml", shipped_presets());
    const std::string printed = to_yaml(describe(loaded.variants.front().spec));
    CHECK(printed.find("gpudirect:") != std::string::npos);
    CHECK(printed.find("p2p: false") != std::string::npos);
    CHECK(printed.find("sockets: 2") != std::string::npos);
    const std::string tables = key_tables_markdown();
    CHECK(tables.find("<!-- keys: cluster.server.gpudirect") != std::string::npos);
    CHECK(tables.find("| `staging_chunk` |") != std::string::npos);
    const Value schema = json_schema();
    const auto& root = std::get<Value::Map>(schema.v);
    const auto find = [](const Value::Map& m, const std::string& k) -> const Value& {
        for (const auto& [key, v] : m)
            if (key == k) return v;
        FAIL("no key " << k);
        static const Value none;
        return none;
    };
    const auto& props = std::get<Value::Map>(find(root, "properties").v);
    const auto& cluster = std::get<Value::Map>(find(std::get<Value::Map>(find(props, "cluster").v), "properties").v);
    const auto& server = std::get<Value::Map>(find(cluster, "server").v);
    const auto& server_props = std::get<Value::Map>(find(server, "properties").v);
    const auto& gpudirect = std::get<Value::Map>(find(server_props, "gpudirect").v);
    CHECK(std::get<Value::Map>(find(gpudirect, "properties").v).size() == 4);
}
