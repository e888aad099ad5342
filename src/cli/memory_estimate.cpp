#include "cli/memory_estimate.hpp"

#include "core/errors.hpp"
#include "fabric/host_staging.hpp"
#include "workloads/traffic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <type_traits>
#include <variant>

namespace fabricsim::cli {

namespace {

using scenario::CollectiveAlgorithm;
using scenario::CollectiveOp;

// Bytes per item, measured with the peak resident size of runs at two sizes (the slope; see
// docs/SCENARIO.md, "Memory"): an op with its successor list, predecessor count, timing and
// the executor's state; a topology node with its name and ports; a link; a packet-model port
// with its queues, flow control and counters; a QP.
constexpr double kBytesPerOp = 160;
// A done op's record: a training job's 40 bytes (training_program.hpp), a traffic flow's 16-byte
// timing (0.4 record) or, with poisson's drawn arrival, 40 (traffic_program.hpp).
constexpr double kBytesPerRecord = 40;
// A training job's state per GPU: its breakdown tally (56 B), bytes by kind for two iterations
// (64 B), the schedule's exact and given durations, last op and job rank (36 B), its arrivals
// (8 B per stage step ahead), with the vectors' own overhead: about 250 B.
constexpr double kBytesPerRank = 250;
constexpr double kBytesPerNode = 200;
constexpr double kBytesPerLink = 100;
constexpr double kBytesPerPort = 600;
constexpr double kBytesPerQp = 400;
constexpr double kBytesPerRoute = 8;
// A chunk of a message in host staging or PXN (host_staging.hpp) with the message the network
// beneath holds for it: 82, 159 and 448 B on the ideal, flow and packet models (the slope of the
// peak resident size from 8 to 16 GiB flows of a permutation among 8 HGX H100 servers, 786,432
// chunks apart), with a margin.
double bytes_per_staged_chunk(scenario::NetworkModel model) {
    switch (model) {
        case scenario::NetworkModel::ideal: return 96;
        case scenario::NetworkModel::flow: return 192;
        case scenario::NetworkModel::packet: return 512;
    }
    return 512;
}
constexpr double kMessageBytes = 512.0 * 1024;  // workloads/collective.hpp
constexpr double kWindow = 8;                   // workloads/collective.hpp: sends in flight per connection

double ceil_div(double a, double b) { return std::ceil(a / std::max(b, 1.0)); }

int ranks_of(const std::vector<RankId>& listed, const scenario::ClusterSpec& cluster) {
    return listed.empty() ? cluster.ranks() : static_cast<int>(listed.size());
}

// collective.cpp's default_channels: two per NIC across servers, else up to 16 in a server.
double channels_of(const scenario::CollectiveSpec& spec, int n, const scenario::ClusterSpec& cluster) {
    if (spec.channels > 0) return spec.channels;
    if (n > cluster.server.ranks()) return 2.0 * std::max(cluster.server.nics, 1);
    return std::min(16, std::max(1, n));
}

double ring_ops(CollectiveOp op, double n, double c, double size) {
    const double steps = op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1;
    return c * n * steps * std::max(1.0, ceil_div(size, c * n * kMessageBytes));
}

double tree_ops(double n, double c, double size) {
    return c * 2 * (n - 1) * std::max(1.0, ceil_div(size, c * kMessageBytes));
}

// Units a cut run keeps to replay itself (workloads/periodic_run.hpp): its head of
// kTemplateUnits units per segment and a tail of one.
constexpr double kHeldUnits = 17 + 1;

// A tree run's ops held: per channel two trees of 2(n−1) sends per message, at most
// kHeldUnits messages of each.
double tree_held(double n, double c, double size) {
    return c * 2 * 2 * (n - 1) * std::min(kHeldUnits, std::max(1.0, ceil_div(size, 2 * c * kMessageBytes)));
}

double bytes_of(double v) { return std::min(v, 4.0e18); }

std::string human(Bytes b) {
    const double v = static_cast<double>(b.count());
    if (v >= 1024.0 * 1024 * 1024) return fmt::format("{:.1f}GiB", v / (1024.0 * 1024 * 1024));
    if (v >= 1024.0 * 1024) return fmt::format("{:.1f}MiB", v / (1024.0 * 1024));
    if (v >= 1024.0) return fmt::format("{:.1f}KiB", v / 1024.0);
    return fmt::format("{}B", b.count());
}

// The flows of a traffic entry (workloads/traffic.hpp).
double traffic_ops(const scenario::TrafficSpec& t, const scenario::ClusterSpec& cluster) {
    using scenario::TrafficPattern;
    const double senders = t.senders.empty() ? cluster.ranks() : static_cast<double>(t.senders.size());
    switch (t.pattern) {
        case TrafficPattern::permutation:
        case TrafficPattern::incast: return senders;
        case TrafficPattern::all_to_all: return senders * std::max(senders - 1, 0.0);
        case TrafficPattern::storage: return ranks_of(t.ranks, cluster);
        case TrafficPattern::poisson: {
            const double rate = static_cast<double>(cluster.server.nic.line_rate.bits_per_second()) / 8;
            return senders * t.load * rate * t.duration.seconds() / std::max(t.sizes.mean(), 1.0);
        }
        case TrafficPattern::gpu_pool:
            return 4.0 * (t.clients == 0 ? cluster.clients.nodes : t.clients) * t.concurrency * t.calls;
    }
    return 0;
}

// What a traffic entry's program holds at once (workloads/traffic_program.hpp), and its records.
// The patterns release every flow as the entry opens; poisson holds each sender's next arrival
// and the flows it has in flight, on average rho/(1-rho) at load rho (a processor-sharing queue
// at the sender's NIC, whatever the size distribution: Kleinrock, Queueing Systems Vol. II, 1976, ch. 4),
// counted at rho <= 0.95; gpu_pool one call's two flows a chain. A flow keeps its timing
// (16 B, 0.4 record), poisson's its drawn arrival too (40 B).
std::pair<double, double> traffic_held(const scenario::TrafficSpec& t, const scenario::ClusterSpec& cluster) {
    using scenario::TrafficPattern;
    const double flows = traffic_ops(t, cluster);
    switch (t.pattern) {
        case TrafficPattern::poisson: {
            const double senders = t.senders.empty() ? cluster.ranks() : static_cast<double>(t.senders.size());
            const double rho = std::min(t.load, 0.95);
            return {std::min(flows, senders * (1 + rho / (1 - rho))), flows};
        }
        case TrafficPattern::gpu_pool:
            return {2.0 * (t.clients == 0 ? cluster.clients.nodes : t.clients) * t.concurrency, 0.4 * flows};
        default: return {flows, 0.4 * flows};
    }
}

// Per iteration and micro-batch, every GPU computes forward and backward, sends to the next
// and previous stage, takes part in two TP ring all-reduces (one message per ring step; one
// channel inside a server, two per NIC across servers: training.cpp) and, with experts, four
// all-to-alls; each iteration ends with the DP gradient reduction: a ring in at most 8 buckets
// (training.cpp's kMaxBuckets), counted with the channels of a ring across servers. About four
// zero-time joins per GPU and micro-batch come with them.
double training_ops(const scenario::TrainingSpec& t, const scenario::ClusterSpec& cluster) {
    const double gpus = t.gpus();
    const double m = std::max(t.micro_batches(), 1);
    const double across = std::min(64, 2 * std::max(cluster.server.nics, 1));
    const double tp_channels = t.tp <= cluster.server.ranks() ? 1 : across;
    const double per_micro = 4 + 4 + 2 * 2.0 * (t.tp - 1) * tp_channels + 4.0 * (t.ep - 1) * across;
    const double dp = 2.0 * (t.dp - 1) * across * 8;
    return t.iterations * gpus * (m * per_micro + dp + 2);
}

}  // namespace

namespace {

// One run of a collective entry: the ops it runs, and the ops it holds at once. A ring run
// (all-reduce, reduce-scatter, all-gather) streams (workloads/collective_program.hpp): at most
// kWindow sends per connection in flight, c·n connections, and a counter per send of about
// two loops (1 B each, counted as 1/64 op); the other algorithms' runs are held as a graph,
// one per size, of at most kHeldUnits messages per channel where they cut the bytes into
// messages.
struct RunOps {
    double ops = 0;
    double held = 0;
    bool streams = false;
};

RunOps collective_run(const scenario::CollectiveSpec& spec, double n, double c, double s) {
    const double steps = spec.op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1;
    const bool ring_op = spec.op == CollectiveOp::all_reduce || spec.op == CollectiveOp::reduce_scatter ||
                         spec.op == CollectiveOp::all_gather;
    switch (spec.op) {
        case CollectiveOp::all_to_all: return {c * n * (n - 1), c * n * (n - 1), false};
        case CollectiveOp::broadcast:
        case CollectiveOp::send_recv: {
            const double messages = std::max(1.0, ceil_div(s, c * kMessageBytes));
            return {c * n * messages, c * n * std::min(messages, kHeldUnits), false};
        }
        default: break;
    }
    const double ring = ring_ops(spec.op, n, c, s);
    const RunOps streamed{ring, c * n * (kWindow + 2 * steps / 64) + 1, true};
    switch (spec.algorithm) {
        case CollectiveAlgorithm::ring: return ring_op ? streamed : RunOps{ring, ring, false};
        case CollectiveAlgorithm::tree: return {tree_ops(n, c, s), tree_held(n, c, s), false};
        case CollectiveAlgorithm::halving_doubling: return {c * n * 2 * std::log2(n), c * n * 2 * std::log2(n), false};
        case CollectiveAlgorithm::nvls:
        case CollectiveAlgorithm::sharp: return {4 * n, 4 * n, false};
        default: {  // auto: the larger of ring and tree, held whole when the tree is chosen
            return {std::max(ring, tree_ops(n, c, s)), std::max(streamed.held, tree_held(n, c, s)), false};
        }
    }
}

}  // namespace

double collective_ops(const scenario::CollectiveSpec& spec, const scenario::ClusterSpec& cluster) {
    return collective_held_ops(spec, cluster).first;
}

std::pair<double, double> collective_held_ops(const scenario::CollectiveSpec& spec,
                                              const scenario::ClusterSpec& cluster) {
    const double n = ranks_of(spec.ranks, cluster);
    if (n < 2) return {1, 1};
    const double c = channels_of(spec, static_cast<int>(n), cluster);
    double ops = 0, held = 0, graphs = 0;
    for (Bytes size : spec.sizes) {
        const RunOps run = collective_run(spec, n, c, static_cast<double>(size.count()));
        ops += (run.ops + 1) * spec.iterations;
        // Runs go one after the other: a streaming run holds its flight; the graph of every
        // size that does not stream is built before the entry starts and kept.
        if (run.streams)
            held = std::max(held, run.held);
        else
            graphs += run.held;
    }
    return {ops, held + graphs};
}

TrainingHeld training_held(const scenario::TrainingSpec& t, const scenario::ClusterSpec& cluster) {
    // The program makes a stage's next pipeline step when the run reaches the step before it
    // and forgets ops once done (training_program.hpp). A step is, per GPU of its stage: its
    // compute and pipeline send; with TP an open of the TP ring and a 2/tp share of its join
    // and barrier; with experts likewise an open of the all-to-all (a stream too,
    // all_to_all_stream.hpp) and a 2/ep share of its join and barrier. About kStepsHeld steps
    // per GPU are made and not done at once, and the streams' sends in flight: a training ring
    // sends one message per step, so one per connection, on its TP ring and on each of its 8 DP
    // buckets' rings (with overlap all 8 may run at once); an all-to-all one per member and
    // channel (one channel where the EP group, tp·ep ranks, fits in a server).
    // Records: one per op of the running iteration but the streams' sends (dropped at its end,
    // after the next iteration's first step is made): 2m + 1 steps per GPU, and after the last
    // backward the 8 chunks of its compute and an open per DP bucket with a 2/dp share of its
    // join and barrier.
    // A ring's window (ring_stream.hpp) keeps 16 bytes for each send between its oldest
    // unfinished and its newest touched one, up to the channel's 2(n-1)·n sends: per GPU, 16 B
    // x c x 2(n-1) for each ring it is in. A stage's 8 DP buckets run after its last backward;
    // 1F1B ends the stages' last backwards a micro-batch apart, and about kStagesReducing
    // stages' DP rings are found alive at once (calibrated on the 70B and 175B runs of
    // docs/BENCHMARKS.md, whose peak memory it puts within a factor of two). It is not derived:
    // the schedule puts 1 + t_dp / t_b stages' reductions at once (t_dp a stage's DP
    // all-reduce, 2(dp-1)/dp of 2 B per parameter of the GPU's share at its NIC's rate; t_b one
    // micro-batch's backward of a stage), 2.8 of 4 for the 70B job and 4.7 of 16 for the 175B
    // one, but with full windows that would put the 175B job at 2.5 GiB against its measured
    // 624 MiB: how full a live ring's window is depends on how far its members drift apart,
    // which only a run shows (docs/BENCHMARKS.md, "Streaming op graphs"). The buffer slots that
    // bound a tree's counters (SendChain::forward) would not derive it: applied to a ring they
    // would keep a member within 8 rounds of the next, where a DP ring of n members can already
    // drift no more than n − 1 rounds (a round needs the member behind's round before), and a
    // ring's window never exceeds its 2(n−1)·n sends per channel whatever the bytes (a training
    // ring sends one message per block). So the memory is bounded per ring; how many stages'
    // rings are alive at once is the schedule's, and how full their windows are, the run's.
    constexpr double kStepsHeld = 6;
    constexpr double kStagesReducing = 2;
    constexpr double kBytesPerTrack = 16;
    const double gpus = t.gpus();
    const double m = std::max(t.micro_batches(), 1);
    const double across = std::min(64, 2 * std::max(cluster.server.nics, 1));
    const double tp_channels = t.tp <= cluster.server.ranks() ? 1 : across;
    const double ep_channels = t.tp * t.ep <= cluster.server.ranks() ? 1 : across;
    const double per_step = 2 + (t.tp > 1 ? 1 + 2.0 / t.tp : 0) + (t.ep > 1 ? 1 + 2.0 / t.ep : 0);
    const double dp_records = 8 + (t.dp > 1 ? 8 * (1 + 2.0 / t.dp) : 0);
    const double reducing = std::min(1.0, kStagesReducing / std::max(t.pp, 1));
    TrainingHeld h;
    h.ops = gpus * kStepsHeld * per_step + gpus * (tp_channels + (t.ep > 1 ? ep_channels : 0) + 8 * across * reducing);
    h.records = gpus * ((2 * m + 1) * per_step + dp_records) + 1;
    h.ranks = gpus;
    h.window_bytes = gpus * kBytesPerTrack *
                     (tp_channels * 2 * std::max(t.tp - 1, 0) + 8 * reducing * across * 2 * std::max(t.dp - 1, 0));
    return h;
}

// The chunks host staging or PXN hands to the network at once (HostStagingNetwork::send): of
// each transfer and traffic flow whose plan relays it through a peer, or stages it without a
// host write before the network leg (poisson's flows arrive one by one and a gpu_pool's calls
// are small: not counted).
double staged_chunks(const scenario::ScenarioSpec& spec) {
    const scenario::ClusterSpec& cl = spec.cluster;
    if (!fabric::stages_through_host(cl) && !fabric::relays_through_peer(cl)) return 0;
    const fabric::HostStagingNetwork staging(nullptr, cl);
    const double chunk = static_cast<double>(cl.server.host.staging_chunk.count());
    const auto at_once = [&](RankId src, RankId dst, Bytes size) {
        Message m;
        m.src = src;
        m.dst = dst;
        m.size = size;
        const auto plan = staging.plan(m);
        const bool all = plan.relay >= 0 || (!plan.passes_through() && plan.before.empty());
        return all ? ceil_div(static_cast<double>(size.count()), chunk) : 0.0;
    };
    double n = 0;
    for (const auto& entry : spec.workload) {
        if (const auto* t = std::get_if<scenario::TransferSpec>(&entry.kind)) n += at_once(t->from, t->to, t->size);
        const auto* t = std::get_if<scenario::TrafficSpec>(&entry.kind);
        if (t == nullptr || t->pattern == scenario::TrafficPattern::poisson ||
            t->pattern == scenario::TrafficPattern::gpu_pool)
            continue;
        const workloads::TrafficFlows flows(*t, cl, spec.seed, entry.name);
        for (std::uint64_t i = 0; i < flows.count(); ++i) {
            const workloads::TrafficFlow f = flows[i];
            n += at_once(f.src, f.dst, f.size);
        }
    }
    return n;
}

MemoryEstimate estimate_memory(const scenario::ScenarioSpec& spec) {
    const scenario::ClusterSpec& cl = spec.cluster;
    const scenario::ServerSpec& sv = cl.server;
    MemoryEstimate e;

    // The workload.
    double ranks = 0;    // training jobs' GPUs
    double windows = 0;  // and their rings' windows, in bytes
    for (const auto& entry : spec.workload) {
        e.ops += std::visit(
            [&](const auto& kind) -> double {
                using Kind = std::decay_t<decltype(kind)>;
                if constexpr (std::is_same_v<Kind, scenario::TransferSpec>) return 1;
                if constexpr (std::is_same_v<Kind, scenario::CollectiveSpec>) {
                    const auto [ops, held] = collective_held_ops(kind, cl);
                    e.held_ops += held;
                    return ops;
                }
                if constexpr (std::is_same_v<Kind, scenario::TrainingSpec>) {
                    const TrainingHeld h = training_held(kind, cl);
                    e.held_ops += h.ops;
                    e.records += h.records;
                    ranks += h.ranks;
                    windows += h.window_bytes;
                    return training_ops(kind, cl);
                }
                if constexpr (std::is_same_v<Kind, scenario::TrafficSpec>) {
                    const auto [held, records] = traffic_held(kind, cl);
                    e.held_ops += held;
                    e.records += records;
                    return traffic_ops(kind, cl);
                }
                return 0.0;  // no other kind
            },
            entry.kind);
    }
    e.op_graph = Bytes{static_cast<std::int64_t>(
        bytes_of(e.held_ops * kBytesPerOp + e.records * kBytesPerRecord + ranks * kBytesPerRank + windows))};

    e.staged_chunks = staged_chunks(spec);
    e.host_staging =
        Bytes{static_cast<std::int64_t>(bytes_of(e.staged_chunks * bytes_per_staged_chunk(spec.simulation.model)))};

    // The topology: each server's CPU, GPUs, NICs and switches; storage nodes and clients; and
    // the fabric switches of a three-tier fabric at most.
    const double servers = cl.servers;
    const double per_server = 1.0 + sv.gpus + sv.nics + sv.storage_nics + sv.nvlink.switches + sv.pcie.switches;
    const double server_links =
        sv.gpus + sv.nics + sv.storage_nics + sv.pcie.switches + static_cast<double>(sv.gpus) * sv.nvlink.links_per_gpu;
    const double others = static_cast<double>(cl.storage_nodes()) * (1 + cl.nics_per_storage_node()) +
                          static_cast<double>(cl.clients.nodes) * (1 + cl.clients.nics_per_node);
    const double endpoints = servers * (sv.nics + sv.storage_nics) + others;
    const double switches = 3 * std::ceil(endpoints / std::max(cl.fabric.switch_spec.radix / 2, 1)) + 1;
    e.nodes = servers * per_server + others + switches;
    const double links = servers * server_links + others + 3 * endpoints;
    e.ports = 2 * links;
    e.topology = Bytes{static_cast<std::int64_t>(bytes_of(e.nodes * kBytesPerNode + links * kBytesPerLink))};

    if (spec.simulation.model == scenario::NetworkModel::packet) {
        const double n = cl.endpoints();
        const double connections = std::min(e.ops, n * n);
        double largest = 0;
        for (const auto& entry : spec.workload)
            if (const auto* t = std::get_if<scenario::TransferSpec>(&entry.kind))
                largest = std::max(largest, static_cast<double>(t->size.count()));
            else if (const auto* c = std::get_if<scenario::CollectiveSpec>(&entry.kind))
                for (Bytes b : c->sizes) largest = std::max(largest, static_cast<double>(b.count()) / std::max(n, 1.0));
        const bool out_of_order =
            cl.fabric.routing == scenario::RoutingKind::spray || cl.fabric.routing == scenario::RoutingKind::adaptive;
        const double bitmap =
            out_of_order ? largest / static_cast<double>(std::max<std::int64_t>(cl.fabric.mtu.count(), 1)) / 8 : 0;
        e.packet_model =
            Bytes{static_cast<std::int64_t>(bytes_of(e.ports * kBytesPerPort + switches * endpoints * kBytesPerRoute +
                                                     connections * sv.nic.qps_per_connection * kBytesPerQp + bitmap))};
    }
    return e;
}

std::string MemoryEstimate::describe() const {
    const std::string records_text = records > 0 ? fmt::format(", {:.0f} records", records) : "";
    std::string out =
        fmt::format("about {}: op graph {} ({:.0f} ops, {:.0f} held at once{}), topology {} ({:.0f} nodes)",
                    human(total()), human(op_graph), ops, held_ops, records_text, human(topology), nodes);
    if (host_staging > Bytes::zero())
        out += fmt::format(", host staging {} ({:.0f} chunks at once)", human(host_staging), staged_chunks);
    if (packet_model > Bytes::zero())
        out += fmt::format(", packet model {} ({:.0f} ports)", human(packet_model), ports);
    return out;
}

std::optional<Bytes> mem_available(std::string_view meminfo) {
    std::istringstream in{std::string(meminfo)};
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with("MemAvailable:")) continue;
        std::istringstream words(line.substr(13));
        std::int64_t kib = 0;
        std::string unit;
        if (!(words >> kib) || kib < 0) return std::nullopt;
        words >> unit;
        if (!unit.empty() && unit != "kB") return std::nullopt;
        return Bytes{kib * 1024};  // proc(5): the kernel's "kB" is KiB
    }
    return std::nullopt;
}

std::optional<Bytes> available_memory() {
    std::ifstream in("/proc/meminfo");
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return mem_available(text.str());
}

void check_memory(const MemoryEstimate& estimate, Bytes limit, std::string_view limit_source, const std::string& file,
                  const std::string& variant) {
    if (estimate.total() <= limit) return;
    ConfigIssue issue;
    issue.location.file = file;
    issue.message =
        fmt::format("{}this run would need {}; the limit is {} ({}): use fewer ranks, sizes, iterations or flows, "
                    "or set --max-memory",
                    variant.empty() ? "" : fmt::format("variant \"{}\": ", variant), estimate.describe(), human(limit),
                    limit_source);
    throw ConfigError(std::move(issue));
}

}  // namespace fabricsim::cli
