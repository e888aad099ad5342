// TraceReader: one rank's Chakra execution trace (MLCommons Chakra, schema/protobuf/et_def.proto;
// third_party/chakra), read a node at a time so that a trace is never all in memory.
//
// The file is a stream of length-delimited messages: a varint byte count, then the message; a
// GlobalMetadata first, then the Nodes. Each Node becomes a TraceNode in fabricsim's terms (what
// is mapped and what is skipped: docs/models/traces.md); the protobuf classes stay in the .cpp.
#pragma once

#include "core/units.hpp"
#include "scenario/collective_spec.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fabricsim::workloads {

enum class TraceNodeKind : std::uint8_t {
    compute,     // COMP_NODE, MEM_LOAD_NODE, MEM_STORE_NODE: busy for their duration
    send,        // COMM_SEND_NODE: a message to `peer`
    recv,        // COMM_RECV_NODE: done when the matching send has arrived
    collective,  // COMM_COLL_NODE: one member's part of a collective over its process group
    skipped,     // METADATA_NODE and types fabricsim does not model: done at once
};

struct TraceNode {
    std::uint64_t id = 0;
    TraceNodeKind kind = TraceNodeKind::skipped;
    std::vector<std::uint64_t> deps;                                 // ctrl_deps, then data_deps
    Time duration;                                                   // compute
    Bytes size;                                                      // send, recv, collective
    std::int64_t peer = -1;                                          // send: comm_dst; recv: comm_src (trace ranks)
    std::int64_t tag = 0;                                            // send, recv: comm_tag
    scenario::CollectiveOp op = scenario::CollectiveOp::all_reduce;  // collective
    std::string group;                                               // collective: pg_name ("" = every rank)
    std::string name;
    // What the reader could not map, for a located warning: an unknown node type or attribute.
    std::string unknown;
};

class TraceReader {
public:
    // Opens `file` and reads its GlobalMetadata. Errors (ConfigError, at `file`, under
    // `key_path`): the file cannot be opened, or its stream is truncated or not a trace.
    TraceReader(std::string file, std::string key_path);
    ~TraceReader();
    TraceReader(TraceReader&&) noexcept;
    TraceReader& operator=(TraceReader&&) noexcept;

    // The next node, or false at the end of the file.
    bool next(TraceNode& out);
    const std::string& file() const { return file_; }
    std::uint64_t nodes_read() const { return read_; }
    // Throws the ConfigError of a problem with node `id` of this file.
    [[noreturn]] void fail(std::uint64_t id, const std::string& what) const;

private:
    struct Stream;
    std::string file_;
    std::string key_path_;
    std::unique_ptr<Stream> stream_;
    std::uint64_t read_ = 0;
};

// Throws the ConfigError of a problem with a trace file: "<file>: <key_path>: <what>".
[[noreturn]] void throw_trace_error(const std::string& file, const std::string& key_path, const std::string& what);

// Writes traces with the generated classes (tests, `fabricsim export-trace`): one rank's file,
// node by node.
class TraceWriter {
public:
    explicit TraceWriter(const std::string& file);  // writes the GlobalMetadata
    ~TraceWriter();
    void compute(std::uint64_t id, const std::string& name, Time duration, const std::vector<std::uint64_t>& deps);
    void send(std::uint64_t id, const std::string& name, std::int64_t dst, std::int64_t tag, Bytes size,
              const std::vector<std::uint64_t>& deps);
    void recv(std::uint64_t id, const std::string& name, std::int64_t src, std::int64_t tag, Bytes size,
              const std::vector<std::uint64_t>& deps);
    void collective(std::uint64_t id, const std::string& name, scenario::CollectiveOp op, Bytes size,
                    const std::string& group, const std::vector<std::uint64_t>& deps);

private:
    struct Out;
    std::unique_ptr<Out> out_;
};

}  // namespace fabricsim::workloads
