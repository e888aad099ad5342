// `- traffic: incast` entries: the pattern is the kind key's value and its parameters sit
// beside it, as for collectives. Each pattern takes only its own keys (docs/SCENARIO.md).
#include "scenario/validate_traffic.hpp"

#include "core/units_format.hpp"
#include "scenario/field_readers.hpp"
#include "scenario/input_limits.hpp"
#include "scenario/source_files.hpp"
#include "scenario/traffic_sender_rate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace fabricsim::scenario {

namespace {

const std::vector<std::string> kPatterns{"permutation", "incast", "all_to_all", "poisson", "storage", "gpu_pool"};

// The keys of each pattern, in kPatterns order; `start` is everyone's.
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

bool contains(const std::vector<std::string>& list, const std::string& s) {
    return std::find(list.begin(), list.end(), s) != list.end();
}

std::optional<double> read_load(const Node& node, const std::string& path, Issues& issues) {
    double v = 0;
    bool parsed = false;
    if (node.is_scalar()) {
        const char* begin = node.text.data();
        const char* end = begin + node.text.size();
        const auto [at, ec] = std::from_chars(begin, end, v);
        parsed = ec == std::errc{} && at == end && std::isfinite(v);
    }
    if (!parsed) {
        issues.add(
            node.location, path,
            fmt::format("expected a fraction of the senders' line rate in (0, 1], found {}", describe_found(node)));
        return std::nullopt;
    }
    if (!(v > 0 && v <= 1)) {
        issues.add(
            node.location, path,
            fmt::format("{} is outside (0, 1]; the load is a fraction of each sender's NIC line rate", node.text));
        return std::nullopt;
    }
    return v;
}

// `websearch`, `fb_hadoop` or a file, relative to the scenario file that names it.
bool read_cdf(const Node& node, const std::string& path, TrafficSpec& spec, Issues& issues) {
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
                   fmt::format("cannot read the flow-size CDF file \"{}\"{}; give a readable file or a built-in CDF{}",
                               file, reason == "file not found" ? "" : fmt::format(" ({})", reason),
                               available_choices(*name, builtin_flow_size_cdf_names())));
        return false;
    }
    std::string error;
    auto parsed = parse_flow_size_cdf(*text, error);
    if (!parsed) {
        issues.add(node.location, path, fmt::format("flow-size CDF file \"{}\": {}", file, error));
        return false;
    }
    spec.cdf = file;
    spec.sizes = *parsed;
    return true;
}

StorageOperation operation_of(const std::string& s) {
    return s == "write" ? StorageOperation::write : StorageOperation::read;
}

}  // namespace

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

std::optional<TrafficSpec> validate_traffic(const Node& entry, const Node& kind_node, const std::string& path,
                                            const ClusterSpec* cluster, Issues& issues) {
    auto pattern = read_choice(kind_node, key_path(path, "traffic"), "traffic pattern", kPatterns, issues);
    if (!pattern) return std::nullopt;
    TrafficSpec spec;
    spec.pattern =
        static_cast<TrafficPattern>(std::find(kPatterns.begin(), kPatterns.end(), *pattern) - kPatterns.begin());
    const auto& keys = pattern_keys()[static_cast<std::size_t>(spec.pattern)];
    bool ok = true;
    for (const auto& e : entry.entries) {
        if (contains(traffic_keys(), e.key) && !contains(keys, e.key)) {
            issues.add(e.key_location, key_path(path, e.key),
                       fmt::format("does not apply to {} traffic; it takes: {}", *pattern, join(keys)));
            ok = false;
        }
    }
    const std::optional<int> ranks = cluster ? std::optional(cluster->ranks()) : std::nullopt;
    const auto find = [&](const char* key) { return contains(keys, key) ? entry.find(key) : nullptr; };
    const auto required = [&](const char* key) {
        const Node* n = find(key);
        if (n == nullptr) {
            issues.add(entry.location, key_path(path, key),
                       fmt::format("missing required key for {} traffic", *pattern));
            ok = false;
        }
        return n;
    };
    const auto bytes = [&](const Node* n, const char* key, Zero zero, Bytes& out) {
        if (n == nullptr) return;
        auto b = read_bytes(*n, key_path(path, key), zero, issues);
        ok = ok && b.has_value();
        if (b) out = *b;
    };
    const auto count = [&](const char* key, std::int64_t max, int& out) {
        if (const Node* n = find(key)) {
            auto v = read_int(*n, key_path(path, key), 1, max, issues);
            ok = ok && v.has_value();
            if (v) out = static_cast<int>(*v);
        }
    };

    const bool sized = spec.pattern != TrafficPattern::poisson && spec.pattern != TrafficPattern::gpu_pool;
    if (sized) bytes(required("size"), "size", Zero::rejected, spec.size);
    if (const Node* n = find("start")) {
        auto t = read_time(*n, key_path(path, "start"), Zero::allowed, issues);
        ok = ok && t.has_value();
        if (t) spec.start = *t;
    }
    if (const Node* n = find("receiver")) {
        auto v = read_int(*n, key_path(path, "receiver"), 0, (1 << 30), issues);
        if (v && ranks && *v >= *ranks) {
            issues.add(n->location, key_path(path, "receiver"),
                       fmt::format("rank {} does not exist; the cluster has {} ranks (0..{})", *v, *ranks, *ranks - 1));
            v.reset();
        }
        ok = ok && v.has_value();
        if (v) spec.receiver = RankId{static_cast<RankId::rep>(*v)};
    }
    if (const Node* n = find("senders")) {
        const std::int64_t skip = spec.pattern == TrafficPattern::incast ? std::int64_t{spec.receiver.value()} : -1;
        auto s = read_rank_set(*n, key_path(path, "senders"), ranks, skip, issues);
        ok = ok && s.has_value();
        if (s) spec.senders = *s;
        const bool pairwise = spec.pattern == TrafficPattern::permutation || spec.pattern == TrafficPattern::all_to_all;
        if (s && pairwise && s->size() == 1) {
            issues.add(n->location, key_path(path, "senders"),
                       fmt::format("{} traffic needs at least 2 senders", *pattern));
            ok = false;
        }
    }
    if (const Node* n = find("ranks")) {
        auto s = read_rank_set(*n, key_path(path, "ranks"), ranks, -1, issues);
        ok = ok && s.has_value();
        if (s) spec.ranks = *s;
    }

    if (spec.pattern == TrafficPattern::poisson) {
        if (const Node* n = required("load")) {
            auto v = read_load(*n, key_path(path, "load"), issues);
            ok = ok && v.has_value();
            if (v) spec.load = *v;
        }
        if (const Node* n = find("cdf"))
            ok = read_cdf(*n, key_path(path, "cdf"), spec, issues) && ok;
        else
            spec.sizes = *builtin_flow_size_cdf(spec.cdf);
        if (const Node* n = required("duration")) {
            auto t = read_time(*n, key_path(path, "duration"), Zero::rejected, issues);
            ok = ok && t.has_value();
            if (t) spec.duration = *t;
        }
    }
    if (spec.pattern == TrafficPattern::storage) {
        if (const Node* n = find("operation")) {
            auto o = read_choice(*n, key_path(path, "operation"), "storage operation", {"read", "write"}, issues);
            ok = ok && o.has_value();
            if (o) spec.operation = operation_of(*o);
        }
        if (cluster && cluster->storage_nodes() == 0) {
            issues.add(kind_node.location, key_path(path, "traffic"),
                       "storage traffic needs storage nodes; the cluster has none (add cluster.storage or "
                       "cluster.storage_fabric.storage_nodes)");
            ok = false;
        }
    }
    if (spec.pattern == TrafficPattern::gpu_pool) {
        count("calls", 1'000'000, spec.calls);
        if (find("calls") == nullptr) required("calls");
        count("concurrency", 1'024, spec.concurrency);
        if (const Node* n = find("clients")) {
            if (!(n->is_scalar() && n->text == "all")) {
                const int have = cluster && cluster->clients.nodes > 0 ? cluster->clients.nodes : (1 << 30);
                auto v = read_int(*n, key_path(path, "clients"), 1, have, issues);
                ok = ok && v.has_value();
                if (v) spec.clients = static_cast<int>(*v);
            }
        }
        bytes(find("request"), "request", Zero::rejected, spec.request);
        bytes(find("response"), "response", Zero::rejected, spec.response);
        bytes(required("copy"), "copy", Zero::allowed, spec.copy);
        bytes(find("copy_back"), "copy_back", Zero::allowed, spec.copy_back);
        if (const Node* n = find("interval")) {
            auto t = read_time(*n, key_path(path, "interval"), Zero::allowed, issues);
            ok = ok && t.has_value();
            if (t) spec.interval = *t;
        }
        if (cluster && cluster->clients.nodes == 0) {
            issues.add(kind_node.location, key_path(path, "traffic"),
                       "gpu_pool traffic needs client hosts; the cluster has none (add cluster.clients: { nodes: N })");
            ok = false;
        }
        // A chain's last call starts at start + (calls - 1)·interval: within the clock's limit.
        const Node* interval = find("interval");
        if (ok && interval != nullptr &&
            static_cast<__int128>(spec.interval.picoseconds()) * (spec.calls - 1) + spec.start.picoseconds() >
                kMaxTime.picoseconds()) {
            issues.add(interval->location, key_path(path, "interval"),
                       fmt::format("the last of {} calls would start after {} + {} x {}, beyond the {} a run can "
                                   "simulate; use fewer calls or a shorter interval",
                                   spec.calls, to_string(spec.start), spec.calls - 1, to_string(spec.interval),
                                   to_string(kMaxTime)));
            ok = false;
        }
    }
    if (!ok || cluster == nullptr) return ok ? std::optional(spec) : std::nullopt;

    // Checks against the cluster: enough ranks, and not more flows than a run can hold.
    const auto n_of = [&](const std::vector<RankId>& list, int all) {
        return list.empty() ? static_cast<std::int64_t>(all) : static_cast<std::int64_t>(list.size());
    };
    const std::int64_t senders = n_of(spec.senders, spec.pattern == TrafficPattern::incast ? *ranks - 1 : *ranks);
    double flows = 0;
    switch (spec.pattern) {
        case TrafficPattern::permutation: flows = static_cast<double>(senders); break;
        case TrafficPattern::incast: flows = static_cast<double>(senders); break;
        case TrafficPattern::all_to_all: flows = static_cast<double>(senders) * static_cast<double>(senders - 1); break;
        case TrafficPattern::storage: flows = static_cast<double>(n_of(spec.ranks, *ranks)); break;
        case TrafficPattern::poisson:
            flows = static_cast<double>(senders) * spec.load * traffic_sender_rate(*cluster).bytes_per_second() *
                    spec.duration.seconds() / std::max(spec.sizes.mean(), 1.0);
            break;
        case TrafficPattern::gpu_pool:
            flows = 4.0 * (spec.clients == 0 ? cluster->clients.nodes : spec.clients) * spec.concurrency * spec.calls;
            break;
    }
    const bool pairwise = spec.pattern == TrafficPattern::permutation || spec.pattern == TrafficPattern::all_to_all ||
                          spec.pattern == TrafficPattern::incast;
    if (pairwise && senders < (spec.pattern == TrafficPattern::incast ? 1 : 2)) {
        issues.add(kind_node.location, key_path(path, "traffic"),
                   fmt::format("{} traffic needs at least 2 ranks; the cluster has {}", *pattern, *ranks));
        return std::nullopt;
    }
    if (spec.pattern == TrafficPattern::poisson && cluster->servers < 2) {
        issues.add(kind_node.location, key_path(path, "traffic"),
                   "poisson traffic goes to ranks on other servers; the cluster has 1 server");
        return std::nullopt;
    }
    if (flows > static_cast<double>(kMaxTrafficFlows)) {
        issues.add(
            kind_node.location, key_path(path, "traffic"),
            fmt::format("this entry would make about {:.0f} flows; at most {} per entry", flows, kMaxTrafficFlows));
        return std::nullopt;
    }
    return spec;
}

}  // namespace fabricsim::scenario
