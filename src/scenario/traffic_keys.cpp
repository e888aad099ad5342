// `- traffic: incast` entries: the pattern is the kind key's value and its parameters sit beside
// it, as for collectives, one declaration per key. Each pattern takes only its own keys: a table
// per pattern, cut from the table of them all. The checks across keys and against the cluster
// follow the reading.
#include "core/units_format.hpp"
#include "scenario/input_limits.hpp"
#include "scenario/key_types.hpp"
#include "scenario/source_files.hpp"
#include "scenario/traffic_sender_rate.hpp"
#include "scenario/workload_keys.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fabricsim::scenario {

namespace {

using S = TrafficSpec;
using Ctx = EntryContext;

// At most this many flows per traffic entry (a guard against a typo that asks for billions).
constexpr std::int64_t kMaxTrafficFlows = 10'000'000;

const std::vector<std::string> kPatterns{"permutation", "incast", "all_to_all", "poisson", "storage", "gpu_pool"};

// The keys of each pattern, in kPatterns order, as its messages list them; `start` is everyone's.
const std::vector<std::vector<std::string>>& pattern_keys() {
    static const std::vector<std::vector<std::string>> keys{
        {"size", "senders", "start"},
        {"size", "senders", "receiver", "start"},
        {"size", "senders", "start"},
        {"senders", "load", "cdf", "start", "duration"},
        {"size", "ranks", "operation", "start"},
        {"ranks", "clients", "calls", "concurrency", "request", "response", "copy", "copy_back", "interval", "start"},
    };
    return keys;
}

bool read_load(const Node& node, const std::string& path, S& out, Ctx&, Issues& issues) {
    const auto load = node.is_scalar() ? parse_number(node.text) : std::nullopt;
    if (!load) {
        add_expected(issues, node, path, "a fraction of the senders' line rate in (0, 1]");
        return false;
    }
    if (!(*load > 0 && *load <= 1)) {
        issues.add(node.location, path, "{} is outside (0, 1]; the load is a fraction of each sender's NIC line rate",
                   node.text);
        return false;
    }
    out.load = *load;
    return true;
}

// `websearch`, `fb_hadoop` or a file, relative to the scenario file that names it.
bool read_cdf(const Node& node, const std::string& path, S& spec, Ctx&, Issues& issues) {
    auto name = read_text(node, path, issues);
    if (!name) return false;
    if (auto builtin = builtin_flow_size_cdf(*name)) {
        spec.cdf = *name;
        spec.sizes = *builtin;
        return true;
    }
    const std::string file = resolve_display(node.location.file, *name);
    // With the limits of every file a scenario names: a regular file of at most 16 MiB (a
    // device or a FIFO would never end).
    SourceFiles files;
    Issues why;
    const auto text = files.read(file, node.location, path, why);
    if (!text) {
        const std::string& m = why.list().front().message;  // cannot read "<file>": <reason>
        const auto reason = m.find("\": ") == std::string::npos ? m : m.substr(m.find("\": ") + 3);
        issues.add(node.location, path,
                   "cannot read the flow-size CDF file \"{}\"{}; give a readable file or a built-in CDF{}", file,
                   reason == "file not found" ? "" : fmt::format(" ({})", reason),
                   available_choices(*name, builtin_flow_size_cdf_names()));
        return false;
    }
    std::string error;
    auto parsed = parse_flow_size_cdf(*text, error);
    if (!parsed) {
        issues.add(node.location, path, "flow-size CDF file \"{}\": {}", file, error);
        return false;
    }
    spec.cdf = file;
    spec.sizes = *parsed;
    return true;
}

// A set of ranks as read_rank_set reads it (`skip`: the rank that is left out of a count).
Key<S, Ctx> ranks_key(std::string name, std::vector<RankId> S::*member, bool skip_receiver, std::string doc) {
    return custom_key<S, Ctx>(
        std::move(name), TypeDoc{"`all`, count, list", {"string", "integer", "array"}}, kAllModels, std::move(doc),
        [member, skip_receiver](const Node& n, const std::string& path, S& out, Ctx& ctx, Issues& issues) {
            auto s = read_rank_set(n, path, ctx.ranks, skip_receiver ? ctx.skip : -1, issues);
            if (!s) return false;
            out.*member = std::move(*s);
            const bool pairwise =
                out.pattern == TrafficPattern::permutation || out.pattern == TrafficPattern::all_to_all;
            if (skip_receiver && pairwise && (out.*member).size() == 1) {
                issues.add(n.location, path, "{} traffic needs at least 2 senders",
                           kPatterns[static_cast<int>(out.pattern)]);
                return false;
            }
            return true;
        },
        [member](const S& s) { return print_rank_set(s.*member); });
}

// The flows an entry makes, for the limit on them.
double flows_of(const S& spec, const ClusterSpec& cluster, std::int64_t senders) {
    const int ranks = cluster.ranks();
    switch (spec.pattern) {
        case TrafficPattern::permutation:
        case TrafficPattern::incast: return static_cast<double>(senders);
        case TrafficPattern::all_to_all: return static_cast<double>(senders) * static_cast<double>(senders - 1);
        case TrafficPattern::storage:
            return static_cast<double>(spec.ranks.empty() ? ranks : static_cast<int>(spec.ranks.size()));
        case TrafficPattern::poisson:
            return static_cast<double>(senders) * spec.load * traffic_sender_rate(cluster).bytes_per_second() *
                   spec.duration.seconds() / std::max(spec.sizes.mean(), 1.0);
        case TrafficPattern::gpu_pool:
            return 4.0 * (spec.clients == 0 ? cluster.clients.nodes : spec.clients) * spec.concurrency * spec.calls;
    }
    return 0;
}

// The checks against the cluster: enough ranks, and not more flows than a run can hold.
bool check_cluster(const S& spec, const Node& kind_node, const std::string& path, const ClusterSpec& cluster,
                   Issues& issues) {
    const int ranks = cluster.ranks();
    const std::string& pattern = kPatterns[static_cast<int>(spec.pattern)];
    const bool incast = spec.pattern == TrafficPattern::incast;
    const std::int64_t senders = spec.senders.empty() ? std::int64_t{incast ? ranks - 1 : ranks}
                                                      : static_cast<std::int64_t>(spec.senders.size());
    const bool pairwise =
        spec.pattern == TrafficPattern::permutation || spec.pattern == TrafficPattern::all_to_all || incast;
    const std::string at = key_path(path, "traffic");
    if (pairwise && senders < (incast ? 1 : 2)) {
        issues.add(kind_node.location, at, "{} traffic needs at least 2 ranks; the cluster has {}", pattern, ranks);
        return false;
    }
    if (spec.pattern == TrafficPattern::poisson && cluster.servers < 2) {
        issues.add(kind_node.location, at, "poisson traffic goes to ranks on other servers; the cluster has 1 server");
        return false;
    }
    const double flows = flows_of(spec, cluster, senders);
    if (flows > static_cast<double>(kMaxTrafficFlows)) {
        issues.add(kind_node.location, at, "this entry would make about {:.0f} flows; at most {} per entry", flows,
                   kMaxTrafficFlows);
        return false;
    }
    return true;
}

}  // namespace

const Table<S, Ctx>& traffic_table() {
    static const Table<S, Ctx> t{
        "workload.traffic",
        {
            key("traffic", &S::pattern,
                choice<TrafficPattern>("traffic pattern", {{"permutation", TrafficPattern::permutation},
                                                           {"incast", TrafficPattern::incast},
                                                           {"all_to_all", TrafficPattern::all_to_all},
                                                           {"poisson", TrafficPattern::poisson},
                                                           {"storage", TrafficPattern::storage},
                                                           {"gpu_pool", TrafficPattern::gpu_pool}}),
                kAllModels, "The pattern (docs/models/traffic.md).")
                .required(),
            key("size", &S::size, size(Zero::rejected), kAllModels,
                "permutation, incast, all_to_all, storage: bytes per flow (storage: per rank).")
                .required(),
            ranks_key("senders", &S::senders, true,
                      "permutation, incast, all_to_all, poisson: the sending ranks (incast: all but the receiver)."),
            custom_key<S, Ctx>(
                "receiver", TypeDoc{"rank", {"integer"}}, kAllModels, "incast: the rank everyone sends to.",
                [](const Node& n, const std::string& path, S& out, Ctx& ctx, Issues& issues) {
                    return store(out.receiver, read_rank(n, path, ctx.ranks, issues));
                },
                [](const S& s) { return Value{std::int64_t{s.receiver.value()}}; }),
            custom_key<S, Ctx>("load", TypeDoc{"number in (0, 1]", {"number"}}, kAllModels,
                               "poisson: offered load per sender, a fraction of its NIC line rate.", read_load,
                               [](const S& s) { return Value{s.load}; })
                .required(),
            custom_key<S, Ctx>("cdf", TypeDoc{"`websearch`, `fb_hadoop`, file", {"string"}}, kAllModels,
                               "poisson: the flow-size distribution; a file of \"<bytes> <percent>\" lines is "
                               "relative to the scenario.",
                               read_cdf, [](const S& s) { return Value{s.cdf}; }),
            key("duration", &S::duration, time(Zero::rejected), kAllModels,
                "poisson: arrivals in [start, start + duration).")
                .required(),
            ranks_key("ranks", &S::ranks, false, "storage, gpu_pool: the GPU ranks that read/write or serve calls."),
            key("operation", &S::operation,
                choice<StorageOperation>("storage operation",
                                         {{"read", StorageOperation::read}, {"write", StorageOperation::write}}),
                kAllModels, "storage: read, storage node → GPU; write (checkpoint), GPU → storage node."),
            custom_key<S, Ctx>(
                "clients", TypeDoc{"`all` or count", {"string", "integer"}}, kAllModels,
                "gpu_pool: the client hosts of `cluster.clients` that make calls.",
                [](const Node& n, const std::string& path, S& out, Ctx& ctx, Issues& issues) {
                    if (is_keyword(n, "all")) return true;
                    const ClusterSpec* c = ctx.cluster;
                    const auto v =
                        read_int(n, path, 1, c && c->clients.nodes > 0 ? c->clients.nodes : (1 << 30), issues);
                    if (v) out.clients = static_cast<int>(*v);
                    return v.has_value();
                },
                [](const S& s) { return s.clients == 0 ? Value{std::string("all")} : Value{std::int64_t{s.clients}}; }),
            key("calls", &S::calls, integer(1, 1'000'000), kAllModels, "gpu_pool: calls per chain.").required(),
            key("concurrency", &S::concurrency, integer(1, 1'024), kAllModels,
                "gpu_pool: chains (calls in flight) per client."),
            key("request", &S::request, size(Zero::rejected), kAllModels, "gpu_pool: the RPC's size, client → GPU."),
            key("response", &S::response, size(Zero::rejected), kAllModels,
                "gpu_pool: the RPC's answer, GPU → client."),
            key("copy", &S::copy, size(Zero::allowed), kAllModels, "gpu_pool: host → GPU bytes per call.").required(),
            key("copy_back", &S::copy_back, size(Zero::allowed), kAllModels, "gpu_pool: GPU → host bytes per call."),
            key("interval", &S::interval, time(Zero::allowed), kAllModels,
                "gpu_pool: a chain's call i starts no earlier than start + i·interval."),
            key("start", &S::start, time(Zero::allowed), kAllModels,
                "All patterns: when the entry's flows start (counted from when its `after` entry finished, if "
                "any)."),
        }};
    return t;
}

const Table<S, Ctx>& traffic_table(TrafficPattern pattern) {
    static const std::vector<Table<S, Ctx>> tables = [] {
        std::vector<Table<S, Ctx>> out;
        for (std::size_t i = 0; i < kPatterns.size(); ++i) {
            // The pattern's keys in the order they print: the kind key first, `start` last.
            std::vector<std::string> names{"traffic"};
            for (const auto& k : pattern_keys()[i])
                if (k != "start") names.push_back(k);
            names.emplace_back("start");
            std::vector<Key<S, Ctx>> keys;
            for (const std::string& name : names)
                for (const auto& k : traffic_table().keys_)
                    if (k.info.name == name) keys.push_back(k);
            for (auto& k : keys) k.info.missing = fmt::format("missing required key for {} traffic", kPatterns[i]);
            out.emplace_back(key_path("workload.traffic", kPatterns[i]), std::move(keys));
        }
        return out;
    }();
    return tables[static_cast<std::size_t>(pattern)];
}

const std::vector<std::string>& traffic_keys() {
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> all;
        for (const auto& list : pattern_keys())
            for (const auto& k : list)
                if (!contains(all, k)) all.push_back(k);
        return all;
    }();
    return keys;
}

std::optional<TrafficSpec> read_traffic(const Node& entry, const Node& kind_node, const std::string& path,
                                        EntryContext& ctx, Issues& issues) {
    auto pattern = read_choice(kind_node, key_path(path, "traffic"), "traffic pattern", kPatterns, issues);
    if (!pattern) return std::nullopt;
    const auto index =
        static_cast<std::size_t>(std::find(kPatterns.begin(), kPatterns.end(), *pattern) - kPatterns.begin());
    const auto& keys = pattern_keys()[index];
    bool ok = true;
    for (const auto& e : entry.entries) {
        if (contains(traffic_keys(), e.key) && !contains(keys, e.key)) {
            issues.add(e.key_location, key_path(path, e.key), "does not apply to {} traffic; it takes: {}", *pattern,
                       join(keys));
            ok = false;
        }
    }
    // The senders of an incast leave out its receiver (rank 0 unless one is read without an issue).
    ctx.skip = -1;
    if (index == static_cast<std::size_t>(TrafficPattern::incast)) {
        Issues unused;
        const Node* receiver = entry.find("receiver");
        const auto r = receiver != nullptr ? read_rank(*receiver, path, ctx.ranks, unused) : std::nullopt;
        ctx.skip = r ? std::int64_t{r->value()} : 0;
    }
    S spec;
    const SectionRead r = read_keys(entry, path, traffic_table(static_cast<TrafficPattern>(index)), spec, ctx, issues);
    ok = ok && r.failed.empty();
    const ClusterSpec* cluster = ctx.cluster;
    const std::string at = key_path(path, "traffic");
    if (spec.pattern == TrafficPattern::poisson && r.given("cdf") == nullptr)
        spec.sizes = *builtin_flow_size_cdf(spec.cdf);
    if (spec.pattern == TrafficPattern::storage && cluster && cluster->storage_nodes() == 0) {
        issues.add(kind_node.location, at,
                   "storage traffic needs storage nodes; the cluster has none (add cluster.storage or "
                   "cluster.storage_fabric.storage_nodes)");
        ok = false;
    }
    if (spec.pattern == TrafficPattern::gpu_pool) {
        if (cluster && cluster->clients.nodes == 0) {
            issues.add(kind_node.location, at,
                       "gpu_pool traffic needs client hosts; the cluster has none (add cluster.clients: { nodes: N })");
            ok = false;
        }
        // A chain's last call starts at start + (calls - 1)·interval: within the clock's limit.
        const Node* interval = r.given("interval");
        if (ok && interval != nullptr &&
            static_cast<__int128>(spec.interval.picoseconds()) * (spec.calls - 1) + spec.start.picoseconds() >
                kMaxTime.picoseconds()) {
            issues.add(interval->location, key_path(path, "interval"),
                       "the last of {} calls would start after {} + {} x {}, beyond the {} a run can "
                       "simulate; use fewer calls or a shorter interval",
                       spec.calls, to_string(spec.start), spec.calls - 1, to_string(spec.interval),
                       to_string(kMaxTime));
            ok = false;
        }
    }
    if (!ok || (cluster != nullptr && !check_cluster(spec, kind_node, path, *cluster, issues))) return std::nullopt;
    return spec;
}

}  // namespace fabricsim::scenario
