#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/input_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <utility>

namespace fabricsim::scenario {

namespace {

// The slowest rate a message may cross in `cluster` (NICs, fabric links, NVLink), and what it is.
struct SlowestLink {
    Bandwidth rate;
    std::string what;  // "cluster.server.nic.line_rate"
};

SlowestLink slowest_link(const ClusterSpec& cluster) {
    SlowestLink s{cluster.server.nic.line_rate, "cluster.server.nic.line_rate"};
    const auto consider = [&s](Bandwidth rate, const char* what) {
        if (rate > Bandwidth::zero() && rate < s.rate) s = SlowestLink{rate, what};
    };
    consider(cluster.fabric.link_speed, "cluster.fabric.link_speed");
    if (cluster.server.gpus > 1 && cluster.server.nvlink.links_per_gpu > 0)
        consider(cluster.server.nvlink.link_bandwidth, "cluster.server.nvlink.link_bandwidth");
    if (cluster.storage_fabric.enabled) {
        consider(cluster.storage_fabric.fabric.link_speed, "cluster.storage_fabric.link_speed");
        if (cluster.server.storage_nics > 0)
            consider(cluster.server.storage_nic.line_rate, "cluster.server.storage_nic.line_rate");
        if (cluster.storage_fabric.storage_nodes > 0)
            consider(cluster.storage_fabric.storage_node_nic.line_rate,
                     "cluster.storage_fabric.storage_node_nic.line_rate");
    }
    if (cluster.storage.nodes > 0) consider(cluster.storage.nic.line_rate, "cluster.storage.nic.line_rate");
    if (cluster.clients.nodes > 0) consider(cluster.clients.nic.line_rate, "cluster.clients.nic.line_rate");
    return s;
}

// The largest single message an entry sends (a training job: its bf16 gradients, an upper bound).
Bytes largest_message(const WorkloadEntry& entry) {
    struct Largest {
        Bytes operator()(const TransferSpec& t) const { return t.size; }
        Bytes operator()(const CollectiveSpec& c) const {
            Bytes m = Bytes::zero();
            for (Bytes b : c.sizes) m = std::max(m, b);
            return m;
        }
        Bytes operator()(const TrafficSpec& t) const {
            Bytes m = std::max({t.size, t.request, t.response, t.copy, t.copy_back});
            // A poisson flow's size is at most the distribution's last point (at most kMaxBytes).
            if (t.pattern == TrafficPattern::poisson && !t.sizes.points.empty())
                m = std::max(m, Bytes{static_cast<std::int64_t>(t.sizes.points.back().bytes)});
            return m;
        }
        Bytes operator()(const TrainingSpec& t) const {
            // 2 bytes (bf16) per parameter; parameters <= 1e14 keeps this below 2^50 x 2.
            return Bytes{t.model.parameters * 2};
        }
        // A trace's sizes are in its files, read when the run is built.
        Bytes operator()(const TraceSpec&) const { return Bytes::zero(); }
    };
    return std::visit(Largest{}, entry.kind);
}

// The node at `path` under `root` (keys only), or the deepest one that exists: where an
// issue about a value that was left at its default goes.
const Node& deepest(const Node& root, std::initializer_list<std::string_view> path) {
    const Node* at = &root;
    for (auto key : path) {
        const Node* next = at->is_mapping() ? at->find(key) : nullptr;
        if (next == nullptr) break;
        at = next;
    }
    return *at;
}

// Bytes a link at `rate` carries while a signal crosses `cable` and back (5 ns/m each way):
// the cable term of the 802.1Qbb headroom (docs/models/pfc.md), a lower bound of the whole.
Bytes cable_headroom(Length cable, Bandwidth rate) {
    using i128 = __int128;
    const i128 ps = static_cast<i128>(2) * propagation_delay(cable).picoseconds();
    const i128 bits = ps * rate.bits_per_second();
    constexpr i128 kPsPerByte = static_cast<i128>(8) * 1'000'000'000'000;
    return Bytes{static_cast<std::int64_t>((bits + kPsPerByte - 1) / kPsPerByte)};
}

void check_fabric_pfc(const FabricSpec& fabric, Bandwidth link_rate, const RoceSpec& roce, const Node& root,
                      std::string_view section, Issues& issues) {
    const Bytes buffer = fabric.switch_spec.buffer;
    const auto lossless = static_cast<std::int64_t>(roce.pfc.priorities.size());
    const bool control_lossless = std::find(roce.pfc.priorities.begin(), roce.pfc.priorities.end(),
                                            roce.control_priority) != roce.pfc.priorities.end();
    const std::int64_t reserving = lossless + (control_lossless ? 0 : 1);
    const Bytes reserved = roce.mmu.reserved_per_queue * reserving;
    const std::string buffer_text =
        fmt::format("the {} switch buffer (cluster.{}.switch.buffer)", to_string(buffer), section);
    if (reserved >= buffer) {
        const Node& at = deepest(root, {"cluster", "roce", "mmu", "reserved_per_queue"});
        issues.add(at.location, "cluster.roce.mmu.reserved_per_queue",
                   "{} reserved for each of a port's {} queues ({} in all) does not fit {}",
                   to_string(roce.mmu.reserved_per_queue), reserving, to_string(reserved), buffer_text);
        return;
    }
    if (roce.pfc.headroom) {
        const Bytes need = *roce.pfc.headroom * lossless + reserved;
        if (need >= buffer) {
            const Node& at = deepest(root, {"cluster", "roce", "pfc", "headroom"});
            issues.add(at.location, "cluster.roce.pfc.headroom",
                       "{} of headroom for each of {} lossless priorities, with {} reserved, is {} for one "
                       "port; it does not fit {}",
                       to_string(*roce.pfc.headroom), lossless, to_string(reserved), to_string(need), buffer_text);
        }
        return;
    }
    if (link_rate <= Bandwidth::zero()) return;
    for (const auto& [key, cable] : {std::pair{"cable_length", fabric.cable_length},
                                     std::pair{"uplink_cable_length", fabric.uplink_cable_length}}) {
        const Bytes one = cable_headroom(cable, link_rate);
        const Bytes need = one * lossless + reserved;
        if (need < buffer) continue;
        const Node& at = deepest(root, {"cluster", section, key});
        issues.add(at.location, fmt::format("cluster.{}.{}", section, key),
                   "a {} cable at {} needs at least {} of PFC headroom per port and lossless priority (the "
                   "pause and the last data cross it both ways); {} for one port does not fit {}: use "
                   "shorter cables, or a lossy fabric (cluster.roce.lossless: false)",
                   to_string(cable), to_string(link_rate), to_string(one), to_string(need), buffer_text);
        return;
    }
}

}  // namespace

void check_pfc_buffers(const ScenarioSpec& spec, const Node& root, Issues& issues) {
    const ClusterSpec& c = spec.cluster;
    const RoceSpec& roce = c.roce;
    if (c.fabric.technology != Technology::roce || !roce.lossless || !roce.pfc.enabled) return;
    const Bandwidth link = c.fabric.link_speed > Bandwidth::zero() ? c.fabric.link_speed : c.server.nic.line_rate;
    check_fabric_pfc(c.fabric, link, roce, root, "fabric", issues);
    if (c.storage_fabric.enabled) {
        // As the builder's storage_link_rate(): the link speed, or the NICs' line rate.
        const Bandwidth storage_link = c.storage_fabric.fabric.link_speed > Bandwidth::zero()
                                           ? c.storage_fabric.fabric.link_speed
                                       : c.server.storage_nics > 0 ? c.server.storage_nic.line_rate
                                                                   : c.storage_fabric.storage_node_nic.line_rate;
        check_fabric_pfc(c.storage_fabric.fabric, storage_link, roce, root, "storage_fabric", issues);
    }
}

void check_training_times(const ScenarioSpec& spec, Issues& issues) {
    for (std::size_t i = 0; i < spec.workload.size(); ++i) {
        const auto* t = std::get_if<TrainingSpec>(&spec.workload[i].kind);
        if (t == nullptr || t->peak_flops <= 0 || t->gpus() <= 0) continue;
        // training.hpp: c·(P + 2·L·s·h)·tokens / GPUs / (peak·mfu), c = 6 (8 with recomputation);
        // all parameters counted, an upper bound of the active ones.
        const double c = t->recompute == Recompute::full ? 8 : 6;
        const double flops = c *
                             (static_cast<double>(t->model.parameters) +
                              2.0 * t->model.layers * t->model.sequence * static_cast<double>(t->model.hidden)) *
                             static_cast<double>(t->global_batch) * t->model.sequence / t->gpus();
        const double seconds = flops / (static_cast<double>(t->peak_flops) * t->mfu) * t->iterations;
        if (seconds <= kMaxTime.seconds()) continue;
        issues.add(spec.workload[i].location, index_path("workload", i),
                   "{} iteration{} of this job compute for {:.4g}s on each GPU; a run can simulate at most "
                   "{} (simulated time is int64 picoseconds): fewer iterations, a smaller batch or model, "
                   "or a faster GPU",
                   t->iterations, t->iterations == 1 ? "" : "s", seconds, to_string(kMaxTime));
    }
}

void check_message_times(const ScenarioSpec& spec, Issues& issues) {
    const SlowestLink slow = slowest_link(spec.cluster);
    if (slow.rate <= Bandwidth::zero()) return;
    using i128 = __int128;
    const i128 max_bits = static_cast<i128>(kMaxTime.picoseconds() / 1'000'000'000'000) * slow.rate.bits_per_second();
    for (std::size_t i = 0; i < spec.workload.size(); ++i) {
        const WorkloadEntry& e = spec.workload[i];
        const Bytes largest = largest_message(e);
        if (static_cast<i128>(largest.count()) * 8 <= max_bits) continue;
        const double seconds =
            static_cast<double>(largest.count()) * 8.0 / static_cast<double>(slow.rate.bits_per_second());
        issues.add(e.location, index_path("workload", i),
                   "a message of {} at {} ({}) takes {:.4g}s; a run can simulate at most {} "
                   "(simulated time is int64 picoseconds): send less or use faster links",
                   to_string(largest), to_string(slow.rate), slow.what, seconds, to_string(kMaxTime));
    }
}

}  // namespace fabricsim::scenario
