#include "workloads/trace_reader.hpp"

#include "core/errors.hpp"
#include "et_def.pb.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <optional>

namespace fabricsim::workloads {

namespace {

namespace pb = ChakraProtoMsg;

// Attributes the reader knows: those it maps, and those Chakra's PyTorch converter writes that
// say nothing the network sees (mlcommons/chakra src/converter/pytorch_converter.py; ASTRA-sim's
// feeder reads the same names). Anything else is an unknown attribute, worth a warning.
constexpr const char* kIgnored[] = {"rf_id",      "fw_parent",     "seq_id",    "scope",       "tid",
                                    "fw_tid",     "op_schema",     "stream",    "num_ops",     "tensor_size",
                                    "tensor_loc", "comm_priority", "is_cpu_op", "involved_dim"};

std::optional<std::int64_t> integer(const pb::AttributeProto& a) {
    switch (a.value_case()) {
        case pb::AttributeProto::kInt32Val: return a.int32_val();
        case pb::AttributeProto::kInt64Val: return a.int64_val();
        case pb::AttributeProto::kUint32Val: return static_cast<std::int64_t>(a.uint32_val());
        case pb::AttributeProto::kUint64Val: return static_cast<std::int64_t>(a.uint64_val());
        case pb::AttributeProto::kSint32Val: return a.sint32_val();
        case pb::AttributeProto::kSint64Val: return a.sint64_val();
        case pb::AttributeProto::kFixed32Val: return static_cast<std::int64_t>(a.fixed32_val());
        case pb::AttributeProto::kFixed64Val: return static_cast<std::int64_t>(a.fixed64_val());
        case pb::AttributeProto::kSfixed32Val: return a.sfixed32_val();
        case pb::AttributeProto::kSfixed64Val: return a.sfixed64_val();
        default: return std::nullopt;
    }
}

// Chakra's CollectiveCommType as this project's collectives; the others are not modelled.
std::optional<scenario::CollectiveOp> collective_op(std::int64_t type) {
    switch (type) {
        case pb::ALL_REDUCE: return scenario::CollectiveOp::all_reduce;
        case pb::ALL_GATHER: return scenario::CollectiveOp::all_gather;
        case pb::REDUCE_SCATTER:
        case pb::REDUCE_SCATTER_BLOCK: return scenario::CollectiveOp::reduce_scatter;
        case pb::ALL_TO_ALL: return scenario::CollectiveOp::all_to_all;
        case pb::BROADCAST: return scenario::CollectiveOp::broadcast;
        default: return std::nullopt;
    }
}

void note(std::string& unknown, const std::string& what) { unknown += (unknown.empty() ? "" : "; ") + what; }

}  // namespace

void throw_trace_error(const std::string& file, const std::string& key_path, const std::string& what) {
    ConfigIssue issue;
    issue.location.file = file;
    issue.key_path = key_path;
    issue.message = what;
    throw ConfigError(std::move(issue));
}

struct TraceReader::Stream {
    std::ifstream file;
    google::protobuf::io::IstreamInputStream raw{&file};
    Stream(const std::string& name) : file(name, std::ios::binary) {}
};

TraceReader::TraceReader(std::string file, std::string key_path)
    : file_(std::move(file)), key_path_(std::move(key_path)) {
    stream_ = std::make_unique<Stream>(file_);
    if (!stream_->file) throw_trace_error(file_, key_path_, "cannot open the trace file");
    pb::GlobalMetadata meta;
    bool clean_eof = false;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&meta, &stream_->raw, &clean_eof))
        throw_trace_error(file_, key_path_,
                          clean_eof ? "the trace is empty; expected a GlobalMetadata, then the nodes"
                                    : "the stream is truncated or is not a Chakra trace: its GlobalMetadata cannot be "
                                      "read");
}

TraceReader::~TraceReader() = default;
TraceReader::TraceReader(TraceReader&&) noexcept = default;
TraceReader& TraceReader::operator=(TraceReader&&) noexcept = default;

void TraceReader::fail(std::uint64_t id, const std::string& what) const {
    throw_trace_error(file_, key_path_, fmt::format("node {}: {}", id, what));
}

bool TraceReader::next(TraceNode& out) {
    pb::Node node;
    bool clean_eof = false;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&node, &stream_->raw, &clean_eof)) {
        if (clean_eof) return false;
        throw_trace_error(file_, key_path_,
                          fmt::format("the stream is truncated after {} node{}: the next length-delimited Node cannot "
                                      "be read",
                                      read_, read_ == 1 ? "" : "s"));
    }
    ++read_;
    out = TraceNode{};
    out.id = node.id();
    out.name = node.name();
    out.deps.assign(node.ctrl_deps().begin(), node.ctrl_deps().end());
    out.deps.insert(out.deps.end(), node.data_deps().begin(), node.data_deps().end());
    // duration_micros is whole microseconds; fabricsim's own attribute `duration_ps` (written by
    // `fabricsim export-trace`) keeps a simulated duration exact.
    out.duration = Time::us(static_cast<std::int64_t>(node.duration_micros()));
    bool cpu = false;
    std::optional<std::int64_t> comm_type, comm_size, src, dst, tag;
    for (const auto& a : node.attr()) {
        const std::string& n = a.name();
        if (n == "comm_type")
            comm_type = integer(a);
        else if (n == "comm_size")
            comm_size = integer(a);
        else if (n == "comm_src")
            src = integer(a);
        else if (n == "comm_dst")
            dst = integer(a);
        else if (n == "comm_tag")
            tag = integer(a);
        else if (n == "pg_name")
            out.group = a.string_val();
        else if (n == "duration_ps") {
            if (auto ps = integer(a); ps && *ps >= 0) out.duration = Time::ps(*ps);
        } else if (n == "is_cpu_op")
            cpu = a.bool_val();
        else if (std::find_if(std::begin(kIgnored), std::end(kIgnored), [&](const char* k) { return n == k; }) ==
                 std::end(kIgnored))
            note(out.unknown, fmt::format("unknown attribute \"{}\" (ignored)", n));
    }
    if (comm_size && *comm_size < 0) fail(out.id, fmt::format("comm_size {} is negative", *comm_size));
    out.size = Bytes{comm_size.value_or(0)};
    out.tag = tag.value_or(0);
    switch (node.type()) {
        case pb::COMP_NODE:
        case pb::MEM_LOAD_NODE:
        case pb::MEM_STORE_NODE:
            out.kind = TraceNodeKind::compute;
            // A CPU op launches the GPU kernels that carry the time (Chakra's converter marks
            // it is_cpu_op); counting it too would count the time twice.
            if (cpu) out.duration = Time::zero();
            break;
        case pb::COMM_SEND_NODE:
        case pb::COMM_RECV_NODE: {
            const bool send = node.type() == pb::COMM_SEND_NODE;
            out.kind = send ? TraceNodeKind::send : TraceNodeKind::recv;
            const auto& peer = send ? dst : src;
            if (!peer)
                fail(out.id, fmt::format("a {} without its {} attribute (the peer's rank)", send ? "send" : "receive",
                                         send ? "comm_dst" : "comm_src"));
            out.peer = *peer;
            if (!comm_size)
                fail(out.id, fmt::format("a {} without its comm_size attribute", send ? "send" : "receive"));
            break;
        }
        case pb::COMM_COLL_NODE: {
            if (!comm_type) fail(out.id, "a collective without its comm_type attribute");
            if (!comm_size) fail(out.id, "a collective without its comm_size attribute");
            const auto op = collective_op(*comm_type);
            if (!op) {
                note(out.unknown, fmt::format("comm_type {} ({}) is not modelled; the node takes no time", *comm_type,
                                              pb::CollectiveCommType_IsValid(static_cast<int>(*comm_type))
                                                  ? pb::CollectiveCommType_Name(static_cast<int>(*comm_type))
                                                  : std::string("unknown")));
                out.kind = TraceNodeKind::skipped;
                break;
            }
            out.kind = TraceNodeKind::collective;
            out.op = *op;
            break;
        }
        case pb::METADATA_NODE: out.kind = TraceNodeKind::skipped; break;
        default:
            out.kind = TraceNodeKind::skipped;
            note(out.unknown,
                 fmt::format("node type {} is not modelled; the node takes no time", static_cast<int>(node.type())));
    }
    return true;
}

struct TraceWriter::Out {
    std::ofstream file;
    google::protobuf::io::OstreamOutputStream raw{&file};
    Out(const std::string& name) : file(name, std::ios::binary | std::ios::trunc) {}
    void write(const google::protobuf::MessageLite& m) {
        if (!google::protobuf::util::SerializeDelimitedToZeroCopyStream(m, &raw))
            throw Error("cannot write a trace node");
    }
};

namespace {

pb::Node base(std::uint64_t id, const std::string& name, pb::NodeType type, const std::vector<std::uint64_t>& deps) {
    pb::Node n;
    n.set_id(id);
    n.set_name(name);
    n.set_type(type);
    for (auto d : deps) n.add_data_deps(d);
    return n;
}

void attr(pb::Node& n, const char* name, std::int64_t v) {
    auto* a = n.add_attr();
    a->set_name(name);
    a->set_int64_val(v);
}

}  // namespace

TraceWriter::TraceWriter(const std::string& file) : out_(std::make_unique<Out>(file)) {
    if (!out_->file) throw Error(fmt::format("cannot write {}", file));
    pb::GlobalMetadata meta;
    meta.set_version("0.0.4");
    out_->write(meta);
}

TraceWriter::~TraceWriter() = default;

void TraceWriter::compute(std::uint64_t id, const std::string& name, Time duration,
                          const std::vector<std::uint64_t>& deps) {
    pb::Node n = base(id, name, pb::COMP_NODE, deps);
    n.set_duration_micros(static_cast<std::uint64_t>(duration.picoseconds() / 1'000'000));
    attr(n, "duration_ps", duration.picoseconds());
    out_->write(n);
}

namespace {

// A send or a receive: its peer's rank under `peer_attr`, its tag and size.
pb::Node message(std::uint64_t id, const std::string& name, pb::NodeType type, const char* peer_attr, std::int64_t peer,
                 std::int64_t tag, Bytes size, const std::vector<std::uint64_t>& deps) {
    pb::Node n = base(id, name, type, deps);
    attr(n, peer_attr, peer);
    attr(n, "comm_tag", tag);
    attr(n, "comm_size", size.count());
    return n;
}

}  // namespace

void TraceWriter::send(std::uint64_t id, const std::string& name, std::int64_t dst, std::int64_t tag, Bytes size,
                       const std::vector<std::uint64_t>& deps) {
    out_->write(message(id, name, pb::COMM_SEND_NODE, "comm_dst", dst, tag, size, deps));
}

void TraceWriter::recv(std::uint64_t id, const std::string& name, std::int64_t src, std::int64_t tag, Bytes size,
                       const std::vector<std::uint64_t>& deps) {
    out_->write(message(id, name, pb::COMM_RECV_NODE, "comm_src", src, tag, size, deps));
}

void TraceWriter::collective(std::uint64_t id, const std::string& name, scenario::CollectiveOp op, Bytes size,
                             const std::string& group, const std::vector<std::uint64_t>& deps) {
    pb::Node n = base(id, name, pb::COMM_COLL_NODE, deps);
    pb::CollectiveCommType type = pb::ALL_REDUCE;
    switch (op) {
        case scenario::CollectiveOp::all_reduce: type = pb::ALL_REDUCE; break;
        case scenario::CollectiveOp::all_gather: type = pb::ALL_GATHER; break;
        case scenario::CollectiveOp::reduce_scatter: type = pb::REDUCE_SCATTER; break;
        case scenario::CollectiveOp::all_to_all: type = pb::ALL_TO_ALL; break;
        case scenario::CollectiveOp::broadcast: type = pb::BROADCAST; break;
        case scenario::CollectiveOp::send_recv: throw InternalError("a trace has no send_recv collective");
    }
    attr(n, "comm_type", type);
    attr(n, "comm_size", size.count());
    if (!group.empty()) {
        auto* a = n.add_attr();
        a->set_name("pg_name");
        a->set_string_val(group);
    }
    out_->write(n);
}

}  // namespace fabricsim::workloads
