// A workload entry's own keys (name, after, priority), the transfer and trace kinds, and the
// printed workload (workload_keys.hpp).
#include "scenario/workload_keys.hpp"

#include "scenario/key_types.hpp"
#include "scenario/source_files.hpp"

#include <algorithm>

namespace fabricsim::scenario {

namespace {

constexpr std::int64_t kMaxRank = 1 << 30;

Value integer(std::int64_t v) { return Value{v}; }

// A rank of the cluster, as a key of S at `member`.
template <class S>
Key<S, EntryContext> rank_key(std::string name, RankId S::*member, std::string doc) {
    return custom_key<S, EntryContext>(
        std::move(name), TypeDoc{"rank", {"integer"}, 0, kMaxRank, {}}, kAllModels, std::move(doc),
        [member](const Node& n, const std::string& path, S& out, EntryContext& ctx, Issues& issues) {
            return store(out.*member, read_rank(n, path, ctx.ranks, issues));
        },
        [member](const S& s) { return integer((s.*member).value()); });
}

using E = WorkloadEntry;

}  // namespace

const Table<E, EntryContext>& workload_entry_table() {
    static const Table<E, EntryContext> t{
        "workload",
        {
            key("name", &E::name, name_field(), kAllModels,
                "Unique across the workload; names the entry in results and in `after`.")
                .shown_default("`<kind><index>`, e.g. `transfer0`"),
            key("after", &E::after, name_field(), kAllModels,
                "The entry starts when the named entry completes (its `start` counts "
                "from then). Unknown names and cycles are errors.")
                .printed_if([](const E& e) { return !e.after.empty(); }),
            custom_key<E, EntryContext>(
                "priority", TypeDoc{"integer, 0 to 7 on RoCE, 0 to 15 on InfiniBand", {"integer"}, 0, 15, {}},
                kAllModels,
                "The traffic class of the entry's messages: on RoCE an 802.1p priority, with its own egress queue at "
                "every Ethernet port (`cluster.roce.queues`, see [RoCE](#roce-clusterroce)); on InfiniBand a service "
                "level, which `cluster.infiniband.sl_to_vl` maps to a VL. None: the fabric's data class, the first of "
                "`cluster.roce.pfc.priority` on RoCE, SL 0 on InfiniBand. On RoCE a priority outside `pfc.priority` "
                "is lossy: its packets can be dropped, and lost ones are sent again by go-back-N (see [loss "
                "recovery](#loss-recovery)). `validate --print` shows it only where it is given.",
                [](const Node& n, const std::string& path, E& out, EntryContext& ctx, Issues& issues) {
                    // 802.1p has 8 priorities, InfiniBand 16 service levels.
                    const ClusterSpec* cluster = ctx.cluster;
                    const bool roce = cluster == nullptr || cluster->fabric.technology == Technology::roce;
                    const auto v = read_int(n, path, 0, roce ? 7 : 15, issues);
                    if (!v) return false;
                    if (roce && cluster != nullptr && *v == cluster->roce.control_priority) {
                        issues.add(n.location, path,
                                   "{} is the control priority (cluster.roce.control_priority) that CNPs "
                                   "and ACKs ride; expected a data priority other than {}",
                                   *v, *v);
                        return false;
                    }
                    out.priority = static_cast<int>(*v);
                    return true;
                },
                [](const E& e) { return e.priority ? integer(*e.priority) : Value{}; }),
        }};
    return t;
}

std::optional<RankId> read_rank(const Node& node, const std::string& path, std::optional<int> ranks, Issues& issues) {
    auto v = read_int(node, path, 0, kMaxRank, issues);
    if (!v) return std::nullopt;
    if (ranks && *v >= *ranks)
        return issues.reject(node.location, path, "rank {} does not exist; the cluster has {} rank{} (0..{})", *v,
                             *ranks, *ranks == 1 ? "" : "s", *ranks - 1);
    return RankId{static_cast<RankId::rep>(*v)};
}

Value print_rank_set(const std::vector<RankId>& ranks) {
    if (ranks.empty()) return Value{std::string("all")};
    return list_value(ranks, [](RankId r) { return integer(r.value()); });
}

Field<int> channels_field() { return keyword_for(integer(1, 64), "auto", 0, "`auto` or 1..64"); }

const Table<TransferSpec, EntryContext>& transfer_table() {
    using S = TransferSpec;
    static const Table<S, EntryContext> t{
        "workload.transfer",
        {
            rank_key("from", &S::from, "Sending rank, 0 to ranks − 1.").required(),
            rank_key("to", &S::to, "Receiving rank, 0 to ranks − 1, not `from`.").required(),
            key("size", &S::size, size(Zero::rejected), kAllModels, "Bytes to move.").required(),
            key("start", &S::start, time(Zero::allowed), kAllModels,
                "When the transfer starts (after its `after` entry, if any)."),
        }};
    return t;
}

std::optional<TransferSpec> read_transfer(const Node& kind_node, const std::string& path, EntryContext& ctx,
                                          Issues& issues) {
    const std::string here = key_path(path, "transfer");
    TransferSpec spec;
    const SectionRead r = read_table(kind_node, here, transfer_table(), spec, ctx, issues);
    if (r.map == nullptr) return std::nullopt;
    const Node* to = r.given("to");
    if (r.given("from") != nullptr && to != nullptr && r.ok("from") && r.ok("to") && spec.from == spec.to)
        return issues.reject(to->location, key_path(here, "to"),
                             "from and to are both rank {}; a transfer needs two different ranks", spec.to.value());
    if (!r.failed.empty()) return std::nullopt;
    return spec;
}

const Table<TraceSpec, EntryContext>& trace_table() {
    using S = TraceSpec;
    static const Table<S, EntryContext> t{
        "workload.trace",
        {
            key("format", &S::format, choice<TraceFormat>("format", {{"chakra", TraceFormat::chakra}}), kAllModels,
                "MLCommons Chakra execution traces (`third_party/chakra/et_def.proto`): a length-delimited "
                "GlobalMetadata, then Nodes."),
            custom_key<S, EntryContext>(
                "path", TypeDoc{"text with one `%d`", {"string"}}, kAllModels,
                "Each rank's file, `%d` the trace rank; relative to the scenario file.",
                [](const Node& n, const std::string& path, S& out, EntryContext&, Issues& issues) {
                    const auto s = read_text(n, path, issues);
                    if (!s) return false;
                    // One "%d" names each rank's file; without it every rank would read the same file.
                    const auto first = s->find("%d");
                    if (first == std::string::npos || s->find("%d", first + 2) != std::string::npos) {
                        issues.add(n.location, path,
                                   "\"{}\" needs exactly one \"%d\", which stands for the trace rank "
                                   "(e.g. \"traces/job.%d.et\")",
                                   *s);
                        return false;
                    }
                    out.path = resolve_display(n.location.file, *s);
                    return true;
                },
                [](const S& s) { return Value{s.path}; })
                .required(),
            custom_key<S, EntryContext>(
                "ranks", TypeDoc{"`all`, count or list", {"string", "integer", "array"}}, kAllModels,
                "`all`: rank 0, 1, … up to the first rank without a file; a count: the first N; a list: those ranks. "
                "Trace rank r runs on cluster rank r, which must exist.",
                [](const Node& n, const std::string& path, S& out, EntryContext& ctx, Issues& issues) {
                    const auto set = read_rank_set(n, path, ctx.ranks, -1, issues);
                    if (!set) return false;
                    for (RankId r : *set) out.ranks.push_back(static_cast<int>(r.value()));
                    std::sort(out.ranks.begin(), out.ranks.end());
                    return true;
                },
                [](const S& s) {
                    std::vector<RankId> ranks;
                    for (int r : s.ranks) ranks.emplace_back(static_cast<RankId::rep>(r));
                    return print_rank_set(ranks);
                }),
            key("algorithm", &S::algorithm,
                choice<CollectiveAlgorithm>(
                    "algorithm", {{"auto", CollectiveAlgorithm::automatic}, {"ring", CollectiveAlgorithm::ring}}),
                kAllModels,
                "The trace's all-reduce, all-gather and reduce-scatter collectives: as NCCL would choose per call, or "
                "ring; the others always as NCCL would."),
            key("channels", &S::channels, channels_field(), kAllModels,
                "Channels of the trace's collectives, as for a `collective` entry."),
        }};
    return t;
}

std::optional<TraceSpec> read_trace(const Node& kind_node, const std::string& path, EntryContext& ctx, Issues& issues) {
    TraceSpec spec;
    const SectionRead r = read_table(kind_node, key_path(path, "trace"), trace_table(), spec, ctx, issues);
    if (r.map == nullptr || !r.failed.empty()) return std::nullopt;
    return spec;
}

std::string trace_file(const std::string& path, int rank) {
    std::string out = path;
    const auto at = out.find("%d");
    if (at != std::string::npos) out.replace(at, 2, std::to_string(rank));
    return out;
}

Value describe_workload(const std::vector<WorkloadEntry>& entries) {
    Value::List list;
    for (const auto& e : entries) {
        Value::Map m = std::get<Value::Map>(print_table(workload_entry_table(), e).v);
        const auto kind = [&](const char* name, Value v) { m.push_back({name, std::move(v)}); };
        const auto beside = [&](Value v) {
            for (auto& item : std::get<Value::Map>(v.v)) m.push_back(std::move(item));
        };
        if (const auto* t = std::get_if<TransferSpec>(&e.kind)) kind("transfer", print_table(transfer_table(), *t));
        if (const auto* c = std::get_if<CollectiveSpec>(&e.kind)) beside(print_table(collective_table(), *c));
        if (const auto* t = std::get_if<TrafficSpec>(&e.kind)) beside(print_table(traffic_table(t->pattern), *t));
        if (const auto* t = std::get_if<TrainingSpec>(&e.kind)) kind("training", print_table(training_table(), *t));
        if (const auto* t = std::get_if<TraceSpec>(&e.kind)) kind("trace", print_table(trace_table(), *t));
        list.push_back(Value{std::move(m)});
    }
    return Value{std::move(list)};
}

const std::vector<std::string>& workload_kinds() {
    static const std::vector<std::string> kinds{"transfer", "collective", "traffic", "training", "trace"};
    return kinds;
}

}  // namespace fabricsim::scenario
