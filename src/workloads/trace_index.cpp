#include "workloads/trace_index.hpp"

#include "core/errors.hpp"
#include "workloads/collective.hpp"
#include "workloads/trace_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <unordered_set>

namespace fabricsim::workloads {

namespace {

// Warnings a file may add before the rest are summed up in one line.
constexpr int kWarningsPerFile = 5;

// The sends and receives of one (source, destination, tag): matched in order, as MPI and NCCL
// match them, so their counts must be equal.
struct Channel {
    std::uint64_t sends = 0, recvs = 0;
    std::uint64_t last_send = 0, last_recv = 0;  // node ids, for the error
};

// What one rank ran on one group: how many collectives, and a hash of their (op, size) order.
struct GroupRun {
    std::uint64_t count = 0;
    std::uint64_t hash = 1469598103934665603ull;  // FNV-1a offset basis
    std::uint64_t first_node = 0;
};

void mix(std::uint64_t& h, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 1099511628211ull;  // FNV-1a prime
    }
}

[[noreturn]] void fail(const std::string& file, const std::string& key_path, const std::string& what) {
    throw_trace_error(file, key_path, what);
}

}  // namespace

int TraceIndex::index_of(std::int64_t trace_rank) const {
    const auto it = std::lower_bound(ranks.begin(), ranks.end(), trace_rank);
    return it != ranks.end() && *it == trace_rank ? static_cast<int>(it - ranks.begin()) : -1;
}

scenario::CollectiveSpec TraceIndex::collective(int group, scenario::CollectiveOp op, Bytes size) const {
    scenario::CollectiveSpec c;
    c.op = op;
    c.sizes = {size};
    for (int m : groups[static_cast<std::size_t>(group)].members)
        c.ranks.emplace_back(static_cast<RankId::rep>(ranks[static_cast<std::size_t>(m)]));
    c.root = c.ranks.front();  // a broadcast from the group's first rank
    c.channels = channels;
    const bool ring = op == scenario::CollectiveOp::all_reduce || op == scenario::CollectiveOp::all_gather ||
                      op == scenario::CollectiveOp::reduce_scatter;
    if (algorithm == scenario::CollectiveAlgorithm::ring && ring) c.algorithm = algorithm;
    return c;
}

int TraceIndex::group_of(const std::string& name) const {
    for (std::size_t g = 0; g < groups.size(); ++g)
        if (groups[g].name == name) return static_cast<int>(g);
    return -1;
}

TraceIndex index_trace(const scenario::TraceSpec& spec, const std::string& key_path,
                       const scenario::ClusterSpec& cluster, const Network& network) {
    TraceIndex ix;
    ix.key_path = key_path;
    ix.algorithm = spec.algorithm;
    ix.channels = spec.channels;
    if (spec.ranks.empty()) {
        for (int r = 0; std::filesystem::is_regular_file(scenario::trace_file(spec.path, r)); ++r)
            ix.ranks.push_back(r);
        if (ix.ranks.empty())
            fail(scenario::trace_file(spec.path, 0), key_path,
                 "cannot open the trace file of rank 0 (ranks: all replays rank 0, 1, ... up to the first missing "
                 "file)");
    } else {
        ix.ranks = spec.ranks;
    }
    for (int r : ix.ranks) {
        ix.files.push_back(scenario::trace_file(spec.path, r));
        if (r >= cluster.ranks())
            fail(ix.files.back(), key_path,
                 fmt::format("trace rank {} has no cluster rank to run on: the cluster has {} ranks (0..{})", r,
                             cluster.ranks(), cluster.ranks() - 1));
    }

    std::map<std::tuple<int, int, std::int64_t>, Channel> channels;             // (src, dst, tag) as indices
    std::map<std::string, std::map<int, GroupRun>> runs;                        // group -> member -> run
    std::map<std::tuple<std::string, int, std::int64_t>, std::uint64_t> sizes;  // (group, op, bytes) -> count
    std::vector<std::string> group_order;
    for (std::size_t i = 0; i < ix.ranks.size(); ++i) {
        TraceReader reader(ix.files[i], key_path);
        std::unordered_set<std::uint64_t> ids;
        TraceNode node;
        int warned = 0;
        while (reader.next(node)) {
            ++ix.nodes;
            if (!ids.insert(node.id).second) reader.fail(node.id, "the id appears twice in the file");
            for (std::uint64_t d : node.deps)
                if (d == node.id || ids.count(d) == 0)
                    reader.fail(node.id,
                                fmt::format("depends on node {}, which is not among the nodes before it in the "
                                            "file (an unknown id, or one listed after it)",
                                            d));
            if (!node.unknown.empty() && warned++ < kWarningsPerFile)
                ix.warnings.push_back(fmt::format("{}: node {}: {}", ix.files[i], node.id, node.unknown));
            const int me = static_cast<int>(i);
            switch (node.kind) {
                case TraceNodeKind::compute: ++ix.ops; break;
                case TraceNodeKind::send:
                case TraceNodeKind::recv: {
                    const bool send = node.kind == TraceNodeKind::send;
                    const int peer = ix.index_of(node.peer);
                    if (peer < 0 || peer == me)
                        reader.fail(node.id,
                                    fmt::format("{} rank {}, which {}", send ? "sends to" : "receives from", node.peer,
                                                peer == me ? "is its own rank" : "is not a replayed trace rank"));
                    Channel& c = channels[send ? std::tuple{me, peer, node.tag} : std::tuple{peer, me, node.tag}];
                    if (send) {
                        if (node.size > Bytes::zero()) ++ix.ops;  // an empty one is no message
                        ++c.sends;
                        c.last_send = node.id;
                    } else {
                        ++c.recvs;
                        c.last_recv = node.id;
                    }
                    break;
                }
                case TraceNodeKind::collective: {
                    if (runs.find(node.group) == runs.end()) group_order.push_back(node.group);
                    GroupRun& run = runs[node.group][me];
                    if (run.count++ == 0) run.first_node = node.id;
                    mix(run.hash, static_cast<std::uint64_t>(node.op));
                    mix(run.hash, static_cast<std::uint64_t>(node.size.count()));
                    ++sizes[{node.group, static_cast<int>(node.op), node.size.count()}];
                    break;
                }
                case TraceNodeKind::skipped: break;
            }
        }
        if (warned > kWarningsPerFile)
            ix.warnings.push_back(fmt::format("{}: {} more nodes with unknown types or attributes", ix.files[i],
                                              warned - kWarningsPerFile));
    }

    // Every send has its receive, in order (the k-th send of a channel meets its k-th receive).
    for (const auto& [key, c] : channels) {
        const auto [src, dst, tag] = key;
        if (c.sends > c.recvs)
            fail(ix.files[src], key_path,
                 fmt::format("node {}: a send to rank {} (tag {}) without its receive: rank {} sends {} and rank {} "
                             "receives {}",
                             c.last_send, ix.ranks[dst], tag, ix.ranks[src], c.sends, ix.ranks[dst], c.recvs));
        if (c.recvs > c.sends)
            fail(ix.files[dst], key_path,
                 fmt::format("node {}: a receive from rank {} (tag {}) without its send: rank {} sends {} and rank {} "
                             "receives {}",
                             c.last_recv, ix.ranks[src], tag, ix.ranks[src], c.sends, ix.ranks[dst], c.recvs));
    }

    // The groups: their members, who must run the same collectives in the same order.
    for (const std::string& name : group_order) {
        TraceGroup g;
        g.name = name;
        const auto& members = runs[name];
        if (name.empty()) {
            for (std::size_t i = 0; i < ix.ranks.size(); ++i) g.members.push_back(static_cast<int>(i));
        } else {
            for (const auto& [m, run] : members) g.members.push_back(m);
        }
        const int first = members.begin()->first;
        const GroupRun& ref = members.begin()->second;
        for (int m : g.members) {
            const auto it = members.find(m);
            const GroupRun run = it == members.end() ? GroupRun{} : it->second;
            if (run.count != ref.count || run.hash != ref.hash)
                fail(ix.files[m], key_path,
                     fmt::format(
                         "its {} collective{} on process group \"{}\" differ from rank {}'s {} (node {} there): "
                         "every member runs the same collectives, in the same order",
                         run.count, run.count == 1 ? "" : "s", name, ix.ranks[first], ref.count, ref.first_node));
        }
        ix.groups.push_back(std::move(g));
    }

    // Each distinct collective's network ops, as the run will make them.
    const RankLayout layout(cluster);
    for (const auto& [key, count] : sizes) {
        const auto& [name, op, bytes] = key;
        const TraceGroup& g = ix.groups[static_cast<std::size_t>(ix.group_of(name))];
        const std::uint64_t instances = count / g.members.size();
        if (g.members.size() < 2 || bytes == 0) continue;  // no network op (trace_program.cpp)
        const scenario::CollectiveSpec c =
            ix.collective(ix.group_of(name), static_cast<scenario::CollectiveOp>(op), Bytes{bytes});
        OpGraph scratch;
        scratch.add_entry("count");
        add_collective(scratch, 0, c, layout, &network);
        ix.ops += instances * scratch.ops_run();
    }
    return ix;
}

}  // namespace fabricsim::workloads
