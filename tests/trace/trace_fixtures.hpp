// Chakra traces written by the tests themselves, with the classes protoc generates from
// third_party/chakra/et_def.proto, and scenarios that replay them on plain hosts on the ideal
// model: one rank and one 400 Gb/s NIC per server, latency α = 2 µs (docs/models/ideal.md).
#pragma once

#include "cli/run_variant.hpp"
#include "cli_harness.hpp"
#include "et_def.pb.h"
#include "scenario/loader.hpp"

#include <fmt/format.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace trace_test {

using namespace fabricsim;
namespace pb = ChakraProtoMsg;

inline constexpr Time kAlpha = Time::us(2);
inline constexpr double kBps = 400e9;  // the NIC's line rate, bit/s

// S / B on a 400 Gb/s port, exact in picoseconds for the sizes the tests use.
inline Time wire(std::int64_t bytes) { return Time::ps(bytes * 8 * 1'000'000'000'000 / 400'000'000'000); }

inline void attr(pb::Node& n, const std::string& name, std::int64_t v) {
    auto* a = n.add_attr();
    a->set_name(name);
    a->set_int64_val(v);
}

inline pb::Node node(std::uint64_t id, pb::NodeType type, std::vector<std::uint64_t> deps = {}) {
    pb::Node n;
    n.set_id(id);
    n.set_type(type);
    n.set_name(fmt::format("node {}", id));
    for (auto d : deps) n.add_data_deps(d);
    return n;
}

inline pb::Node compute(std::uint64_t id, std::uint64_t micros, std::vector<std::uint64_t> deps = {}) {
    pb::Node n = node(id, pb::COMP_NODE, std::move(deps));
    n.set_duration_micros(micros);
    return n;
}

inline pb::Node all_reduce(std::uint64_t id, std::int64_t bytes, std::vector<std::uint64_t> deps = {},
                           const std::string& group = "") {
    pb::Node n = node(id, pb::COMM_COLL_NODE, std::move(deps));
    attr(n, "comm_type", pb::ALL_REDUCE);
    attr(n, "comm_size", bytes);
    if (!group.empty()) {
        auto* a = n.add_attr();
        a->set_name("pg_name");
        a->set_string_val(group);
    }
    return n;
}

inline pb::Node send(std::uint64_t id, int dst, std::int64_t bytes, std::vector<std::uint64_t> deps = {}) {
    pb::Node n = node(id, pb::COMM_SEND_NODE, std::move(deps));
    attr(n, "comm_dst", dst);
    attr(n, "comm_tag", 7);
    attr(n, "comm_size", bytes);
    return n;
}

inline pb::Node recv(std::uint64_t id, int src, std::int64_t bytes, std::vector<std::uint64_t> deps = {}) {
    pb::Node n = node(id, pb::COMM_RECV_NODE, std::move(deps));
    attr(n, "comm_src", src);
    attr(n, "comm_tag", 7);
    attr(n, "comm_size", bytes);
    return n;
}

// A length-delimited stream: the GlobalMetadata, then the nodes.
inline void write_trace(const std::filesystem::path& file, const std::vector<pb::Node>& nodes) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    google::protobuf::io::OstreamOutputStream raw(&out);
    pb::GlobalMetadata meta;
    meta.set_version("0.0.4");
    google::protobuf::util::SerializeDelimitedToZeroCopyStream(meta, &raw);
    for (const auto& n : nodes) google::protobuf::util::SerializeDelimitedToZeroCopyStream(n, &raw);
}

// A scenario on `servers` plain hosts whose workload replays <dir>/job.%d.et; `extra` is added
// to the trace's keys (", algorithm: ring").
inline std::string scenario_text(const std::filesystem::path& dir, int servers, const std::string& extra = "",
                                 const std::string& model = "ideal") {
    return fmt::format("name: trace-test\n"
                       "simulation: {{ model: {}, ideal: {{ latency: 2us }} }}\n"
                       "cluster: {{ servers: {}, server: {{ gpus: 0, nics: 1 }} }}\n"
                       "workload:\n"
                       "  - name: job\n"
                       "    trace: {{ format: chakra, path: \"{}\"{} }}\n",
                       model, servers, (dir / "job.%d.et").string(), extra);
}

inline report::VariantResult replay(const std::string& text) {
    scenario::LoadOptions options;
    options.config_dirs = {std::filesystem::path(FABRICSIM_SOURCE_DIR) / "configs"};
    const auto loaded = scenario::load_scenario_text(text, "trace-test.yaml", options);
    return cli::run_variant(loaded.variants.front());
}

}  // namespace trace_test
