// Host staging (host_staging.hpp): the resources, the plan of each message, the chunk pipeline.
#include "fabric/host_staging.hpp"

#include "core/errors.hpp"
#include "core/simulator.hpp"
#include "core/units_format.hpp"
#include "fabric/link_classes.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace fabricsim::fabric {

namespace {

// PCIe transaction-layer packets on the host's PCIe resources (docs/models/gpudirect.md, "PCIe
// transactions"). Gen3..5 (docs/models/links.md): a memory write, or a read request, with a 4-DW
// header (64-bit addresses) costs STP 4 + header 16 + LCRC 4 = 24 bytes; a completion with data
// has a 3-DW header, one DW less: 20 bytes (Intel, "Throughput for Reads": a 512-byte read
// returns as 2 completions of 256 bytes with 2 x 20 bytes of overhead). Gen6 flit mode: the
// headers alone, 16 and 12 bytes, in flits that carry 236 TLP bytes of every 256.
constexpr std::int64_t kDword = 4;
// Max_Read_Request_Size: the PCI Express Base Specification's default (Device Control register,
// 010b), 512 bytes. Completions come in max-payload-size pieces (the Intel example above).
constexpr Bytes kMaxReadRequest = Bytes{512};

// The bytes per second a PCIe resource moves before per-packet overhead.
Bandwidth pcie_wire_rate(int generation, int lanes) {
    const LinkClass c = pcie_class(generation, lanes);  // validates generation and lanes
    if (generation < 6) return c.bandwidth;
    return Bandwidth::bps(c.bandwidth.bits_per_second() / kPcieFlitBytes * kPcieFlitTlpBytes);
}

// The index of the resources of one server, in the order they are made.
struct Layout {
    int switches = 0, sockets = 1, gpus = 0, nics = 1;
    std::uint32_t uplink(int sw, bool up) const { return static_cast<std::uint32_t>(2 * sw + (up ? 0 : 1)); }
    std::uint32_t memory(int socket, bool in) const {
        return static_cast<std::uint32_t>(2 * switches + 2 * socket + (in ? 0 : 1));
    }
    std::uint32_t socket_link(int from) const { return static_cast<std::uint32_t>(2 * switches + 2 * sockets + from); }
    std::uint32_t gpu_link(int g, bool up) const {
        return static_cast<std::uint32_t>(2 * switches + 2 * sockets + (sockets == 2 ? 2 : 0) + 2 * g + (up ? 0 : 1));
    }
    std::uint32_t size() const { return gpu_link(gpus, true); }
    // The PCIe switch device i of `count` hangs off (switches == 0: none).
    int switch_of(int i, int count) const { return switches == 0 ? -1 : i * switches / count; }
    int socket_of(int i, int count) const {
        return switches == 0 ? i * sockets / count : switch_of(i, count) * sockets / switches;
    }
};

Layout layout_of(const scenario::ServerSpec& s) {
    return Layout{s.pcie.switches, std::clamp(s.host.sockets, 1, 2), s.gpus, std::max(s.nics, 1)};
}

// The side of a message that is a GPU rank, and whether it stages towards `peer`.
struct Side {
    bool stages = false;
    int server = 0, local = 0;
};

}  // namespace

bool stages_through_host(const scenario::ClusterSpec& cluster) {
    const auto& g = cluster.server.gpudirect;
    return cluster.server.gpus > 0 && (!g.rdma || !g.p2p || !g.storage);
}

bool relays_through_peer(const scenario::ClusterSpec& cluster) {
    const scenario::ServerSpec& s = cluster.server;
    return cluster.servers > 1 && s.gpus >= 2 && s.nics >= 2 && s.nvlink.links_per_gpu > 0 && s.gpudirect.pxn &&
           s.gpudirect.rdma;
}

std::unique_ptr<Network> with_host_staging(std::unique_ptr<Network> inner, const scenario::ClusterSpec& cluster) {
    if (!stages_through_host(cluster) && !relays_through_peer(cluster)) return inner;
    return std::make_unique<HostStagingNetwork>(std::move(inner), cluster);
}

Time pipeline_time(Bytes size, Bytes chunk, std::span<const Bandwidth> rates, Time wait) {
    if (rates.empty() || size <= Bytes::zero()) return Time::zero();
    const Bytes first = std::min(size, chunk);
    const Bandwidth slowest = *std::min_element(rates.begin(), rates.end());
    Time t = wait * static_cast<std::int64_t>(rates.size() - 1);
    for (const Bandwidth b : rates) t += transmit_time(first, b);
    return t + transmit_time(size - first, slowest);
}

HostStagingNetwork::HostStagingNetwork(std::unique_ptr<Network> inner, const scenario::ClusterSpec& cluster)
    : inner_(std::move(inner)),
      cluster_(cluster),
      ranks_per_server_(cluster.server.ranks()),
      pxn_(relays_through_peer(cluster)) {
    const scenario::ServerSpec& s = cluster.server;
    const Layout l = layout_of(s);
    if (s.host.memory_copy <= Bandwidth::zero() || s.host.socket_link <= Bandwidth::zero() ||
        s.host.staging_chunk <= Bytes::zero())
        throw ModelError("host staging: memory_copy, socket_link and staging_chunk must be positive");
    const Bandwidth pcie = pcie_wire_rate(s.pcie.generation, s.pcie.lanes);
    write_overhead_ = request_overhead_ = s.pcie.generation >= 6 ? kPcieFlitHeader : kPcieTlpOverhead;
    completion_overhead_ = write_overhead_ - kDword;
    per_server_ = l.size();
    resources_.reserve(static_cast<std::size_t>(cluster.servers) * per_server_);
    for (int server = 0; server < cluster.servers; ++server) {
        const auto add = [&](std::string name, Bandwidth rate) {
            resources_.push_back({fmt::format("s{}.{}", server, name), rate, Time::zero()});
        };
        for (int w = 0; w < l.switches; ++w) {
            add(fmt::format("pcisw{}->cpu", w), pcie);
            add(fmt::format("cpu->pcisw{}", w), pcie);
        }
        for (int k = 0; k < l.sockets; ++k) {
            add(fmt::format("mem{} in", k), s.host.memory_copy);
            add(fmt::format("mem{} out", k), s.host.memory_copy);
        }
        if (l.sockets == 2) {
            add("cpu0->cpu1", s.host.socket_link);
            add("cpu1->cpu0", s.host.socket_link);
        }
        for (int g = 0; g < l.gpus; ++g) {
            add(fmt::format("gpu{}->pcie", g), pcie);
            add(fmt::format("pcie->gpu{}", g), pcie);
        }
    }
}

HostStagingNetwork::~HostStagingNetwork() = default;

Bytes HostStagingNetwork::wire_bytes(Charge charge, Bytes size) const {
    const auto packets = [&](Bytes unit) { return (size.count() + unit.count() - 1) / unit.count(); };
    switch (charge) {
        case Charge::write: return size + Bytes{packets(kPcieMaxPayload) * write_overhead_};
        case Charge::completion: return size + Bytes{packets(kPcieMaxPayload) * completion_overhead_};
        case Charge::request: return Bytes{packets(kMaxReadRequest) * request_overhead_};
        case Charge::bytes: break;
    }
    return size;
}

HostStagingNetwork::Plan HostStagingNetwork::plan(const Message& m) const {
    Plan p;
    const scenario::ServerSpec& s = cluster_.server;
    const Layout l = layout_of(s);
    const auto ranks = static_cast<std::uint32_t>(cluster_.ranks());
    const auto is_rank = [&](RankId r) { return r.value() < ranks; };
    const auto is_storage = [&](RankId r) {
        return !is_rank(r) && r.value() < ranks + static_cast<std::uint32_t>(cluster_.storage_nodes());
    };
    const auto server_of = [&](RankId r) { return static_cast<int>(r.value()) / ranks_per_server_; };
    const auto local_of = [&](RankId r) { return static_cast<int>(r.value()) % ranks_per_server_; };
    if (s.gpus == 0) return p;
    const auto at = [&](int server, std::uint32_t r, Charge charge = Charge::bytes) {
        return Use{static_cast<std::uint32_t>(server) * per_server_ + r, charge};
    };
    // A device reading host memory: the data comes down as completions, its requests go up.
    const auto read = [&](std::vector<Use>& stage, int server, std::uint32_t down, std::uint32_t up) {
        stage.push_back(at(server, down, Charge::completion));
        stage.push_back(at(server, up, Charge::request));
    };

    if (pxn_ && m.rail < 0 && is_rank(m.src) && is_rank(m.dst) && server_of(m.src) != server_of(m.dst)) {
        // PXN: the first GPU of the source server that the destination's rail NIC serves.
        const auto nic = [&](int local) { return local * l.nics / ranks_per_server_; };
        const int want = nic(local_of(m.dst));
        if (nic(local_of(m.src)) == want) return p;
        for (int g = 0; g < ranks_per_server_; ++g)
            if (nic(g) == want) {
                p.relay = static_cast<std::int64_t>(server_of(m.src)) * ranks_per_server_ + g;
                return p;
            }
        return p;
    }

    if (is_rank(m.src) && is_rank(m.dst) && server_of(m.src) == server_of(m.dst)) {
        if (s.gpudirect.p2p) return p;
        // NCCL's SHM transport: GPU -> host memory of the source GPU's socket -> GPU.
        const int server = server_of(m.src), a = local_of(m.src), b = local_of(m.dst);
        const int sa = l.socket_of(a, l.gpus), sb = l.socket_of(b, l.gpus);
        p.inner = false;
        p.waits = 1;
        p.before.push_back(at(server, l.gpu_link(a, true), Charge::write));
        if (l.switches > 0) p.before.push_back(at(server, l.uplink(l.switch_of(a, l.gpus), true), Charge::write));
        p.before.push_back(at(server, l.memory(sa, true)));
        p.after.push_back(at(server, l.memory(sa, false)));
        if (sa != sb) p.after.push_back(at(server, l.socket_link(sa)));
        if (l.switches > 0) {
            const int w = l.switch_of(b, l.gpus);
            read(p.after, server, l.uplink(w, false), l.uplink(w, true));
        }
        read(p.after, server, l.gpu_link(b, false), l.gpu_link(b, true));
        return p;
    }
    // A GPU rank talking over a NIC: does its side stage, and through which NIC?
    const auto stages = [&](RankId self, RankId peer) {
        if (!is_rank(self)) return false;
        return is_storage(peer) ? !s.gpudirect.storage : !s.gpudirect.rdma;
    };
    // The NIC's switch and socket: a compute NIC under the PCIe switches, a storage NIC on the
    // host (socket 0) when the cluster has a storage fabric.
    const auto nic_of = [&](RankId self, RankId peer) {
        const bool storage_nic = is_storage(peer) && cluster_.storage_fabric.enabled && s.storage_nics > 0;
        if (storage_nic) return std::pair{-1, 0};
        const int nic = m.rail >= 0 ? m.rail % l.nics : local_of(self) * l.nics / ranks_per_server_;
        return std::pair{l.switch_of(nic, l.nics), l.socket_of(nic, l.nics)};
    };
    if (stages(m.src, m.dst)) {
        const int server = server_of(m.src), g = local_of(m.src);
        const int gsock = l.socket_of(g, l.gpus);
        const auto [nsw, nsock] = nic_of(m.src, m.dst);
        ++p.waits;
        if (l.switches > 0) p.before.push_back(at(server, l.uplink(l.switch_of(g, l.gpus), true), Charge::write));
        p.before.push_back(at(server, l.memory(gsock, true)));
        p.during.push_back(at(server, l.memory(gsock, false)));
        if (gsock != nsock) p.during.push_back(at(server, l.socket_link(gsock)));
        if (nsw >= 0) read(p.during, server, l.uplink(nsw, false), l.uplink(nsw, true));
    }
    if (stages(m.dst, m.src)) {
        const int server = server_of(m.dst), g = local_of(m.dst);
        const int gsock = l.socket_of(g, l.gpus);
        const auto [nsw, nsock] = nic_of(m.dst, m.src);
        ++p.waits;
        if (nsw >= 0) p.during.push_back(at(server, l.uplink(nsw, true), Charge::write));
        if (gsock != nsock) p.during.push_back(at(server, l.socket_link(nsock)));
        p.during.push_back(at(server, l.memory(gsock, true)));
        p.after.push_back(at(server, l.memory(gsock, false)));
        if (l.switches > 0) {
            const int w = l.switch_of(g, l.gpus);
            read(p.after, server, l.uplink(w, false), l.uplink(w, true));
        }
    }
    return p;
}

// Each resource serves the chunk from when it is free, for the bytes the chunk puts on it / its
// rate; the stage ends when the last one has (a resource is not held idle while another one of
// the stage is busy, so two streams through one memory share it rather than queue behind each
// other's other resources).
Time HostStagingNetwork::hold(const std::vector<Use>& stage, Bytes size, Time ready) {
    Time end = ready;
    for (const Use u : stage) {
        Resource& res = resources_[u.resource];
        res.free_at = std::max(ready, res.free_at) + transmit_time(wire_bytes(u.charge, size), res.rate);
        end = std::max(end, res.free_at);
    }
    return end;
}

std::uint32_t HostStagingNetwork::next_chunk(std::uint32_t m) {
    Staged& st = messages_[m];
    const Bytes chunk = cluster_.server.host.staging_chunk;
    const Chunk c{m, std::min(chunk, st.inner.size - chunk * st.issued), Time::zero()};
    ++st.issued;
    ++chunks_in_flight_;
    if (free_chunks_.empty()) {
        chunks_.push_back(c);
        return static_cast<std::uint32_t>(chunks_.size() - 1);
    }
    const std::uint32_t i = free_chunks_.back();
    free_chunks_.pop_back();
    chunks_[i] = c;
    return i;
}

void HostStagingNetwork::send(Simulator& sim, const Message& message, DeliveryListener& listener) {
    Plan p = plan(message);
    if (p.passes_through()) {
        inner_->send(sim, message, listener);
        return;
    }
    std::uint32_t mi = 0;
    if (free_messages_.empty()) {
        messages_.emplace_back();
        mi = static_cast<std::uint32_t>(messages_.size() - 1);
    } else {
        mi = free_messages_.back();
        free_messages_.pop_back();
    }
    const Bytes chunk = cluster_.server.host.staging_chunk;
    Staged& st = messages_[mi];
    st.id = message.id;
    st.listener = &listener;
    st.inner = message;
    st.plan = std::move(p);
    st.chunks = std::max<std::int64_t>(1, (message.size.count() + chunk.count() - 1) / chunk.count());
    st.issued = 0;
    st.left = st.chunks;
    if (st.plan.relay >= 0) {  // PXN: every chunk over NVLink to the relay first
        while (messages_[mi].issued < messages_[mi].chunks) {
            const std::uint32_t c = next_chunk(mi);
            Message leg = messages_[mi].inner;
            leg.id = MessageId{std::uint64_t{c} << 1};
            leg.dst = RankId{static_cast<RankId::rep>(messages_[mi].plan.relay)};
            leg.size = chunks_[c].size;
            inner_->send(sim, leg, *this);
        }
        return;
    }
    if (!st.plan.before.empty()) {
        const std::uint32_t c = next_chunk(mi);
        sim.at(hold(messages_[mi].plan.before, chunks_[c].size, sim.now()), *this, (std::uint64_t{c} << 2) | kWritten);
        return;
    }
    while (messages_[mi].issued < messages_[mi].chunks) hand_off(sim, next_chunk(mi));
}

void HostStagingNetwork::written(Simulator& sim, std::uint32_t c) {
    const std::uint32_t mi = chunks_[c].message;
    if (messages_[mi].issued < messages_[mi].chunks) {
        const std::uint32_t n = next_chunk(mi);
        sim.at(hold(messages_[mi].plan.before, chunks_[n].size, sim.now()), *this, (std::uint64_t{n} << 2) | kWritten);
    }
    const Staged& s = messages_[mi];
    const Time ready = sim.now() + cluster_.server.host.staging_latency;
    if (!s.plan.inner) {  // SHM: the destination GPU reads it from host memory
        sim.at(hold(s.plan.after, chunks_[c].size, ready), *this, (std::uint64_t{c} << 2) | kDelivered);
        return;
    }
    if (ready == sim.now())
        hand_off(sim, c);
    else
        sim.at(ready, *this, (std::uint64_t{c} << 2) | kHandOff);
}

void HostStagingNetwork::hand_off(Simulator& sim, std::uint32_t c) {
    Chunk& ch = chunks_[c];
    Staged& s = messages_[ch.message];
    ch.during_end = hold(s.plan.during, ch.size, sim.now());
    Message leg = s.inner;
    leg.id = MessageId{(std::uint64_t{c} << 1) | 1};
    leg.size = ch.size;
    inner_->send(sim, leg, *this);
}

// A wrapped leg arrived: id = chunk << 1 | (0: PXN's NVLink leg, 1: the leg to the destination).
void HostStagingNetwork::on_delivered(Simulator& sim, MessageId id) {
    const auto c = static_cast<std::uint32_t>(id.value() >> 1);
    const Staged& s = messages_[chunks_[c].message];
    if (s.plan.relay >= 0) {
        if ((id.value() & 1) == 1) {
            chunk_done(sim, c);
            return;
        }
        Message leg = s.inner;  // from the relay, by its own NIC: the destination's rail
        leg.id = MessageId{(std::uint64_t{c} << 1) | 1};
        leg.src = RankId{static_cast<RankId::rep>(s.plan.relay)};
        leg.size = chunks_[c].size;
        inner_->send(sim, leg, *this);
        return;
    }
    if (chunks_[c].during_end > sim.now())
        sim.at(chunks_[c].during_end, *this, (std::uint64_t{c} << 2) | kLegDone);
    else
        leg_done(sim, c);
}

void HostStagingNetwork::leg_done(Simulator& sim, std::uint32_t c) {
    Chunk& ch = chunks_[c];
    const Staged& s = messages_[ch.message];
    if (s.plan.after.empty()) {
        chunk_done(sim, c);
        return;
    }
    const Time read = hold(s.plan.after, ch.size, sim.now() + cluster_.server.host.staging_latency);
    sim.at(read, *this, (std::uint64_t{c} << 2) | kDelivered);
}

void HostStagingNetwork::chunk_done(Simulator& sim, std::uint32_t c) {
    const std::uint32_t mi = chunks_[c].message;
    free_chunks_.push_back(c);
    --chunks_in_flight_;
    Staged& s = messages_[mi];
    if (--s.left > 0) return;
    DeliveryListener* listener = s.listener;
    const MessageId id = s.id;
    free_messages_.push_back(mi);
    listener->on_delivered(sim, id);
}

void HostStagingNetwork::on_event(Simulator& sim, std::uint64_t arg) {
    const auto c = static_cast<std::uint32_t>(arg >> 2);
    switch (arg & 3) {
        case kWritten: written(sim, c); return;
        case kHandOff: hand_off(sim, c); return;
        case kLegDone: leg_done(sim, c); return;
        default: chunk_done(sim, c); return;
    }
}

Time HostStagingNetwork::unloaded_time(const Message& m) const {
    const Plan p = plan(m);
    if (p.passes_through()) return inner_->unloaded_time(m);
    if (p.relay >= 0) {
        // A lower bound, as an unloaded time must be: the NVLink hop's latency (an empty
        // message), then every byte from the relay. Counting the first chunk's NVLink time too
        // overestimated it: the flow model delivered relayed transfers of traffic-patterns.yaml
        // up to 2 % sooner than that sum.
        Message first = m, rest = m;
        first.dst = rest.src = RankId{static_cast<RankId::rep>(p.relay)};
        first.size = Bytes::zero();
        return inner_->unloaded_time(first) + inner_->unloaded_time(rest);
    }
    const Bytes chunk = cluster_.server.host.staging_chunk;
    // A stage's payload rate: its slowest resource's rate x chunk / the bytes a chunk puts on it.
    const Bytes c = m.size > Bytes::zero() ? std::min(chunk, m.size) : chunk;
    const auto slowest = [&](const std::vector<Use>& stage) {
        double b = -1;
        for (const Use u : stage) {
            const double r = static_cast<double>(resources_[u.resource].rate.bits_per_second()) *
                             static_cast<double>(c.count()) / static_cast<double>(wire_bytes(u.charge, c).count());
            if (b < 0 || r < b) b = r;
        }
        return Bandwidth::bps(static_cast<std::int64_t>(std::ceil(b)));  // up: a lower bound on the time
    };
    std::vector<Bandwidth> rates;
    for (const auto* stage : {&p.before, &p.during, &p.after})
        if (!stage->empty()) rates.push_back(slowest(*stage));
    const Time wait = cluster_.server.host.staging_latency;
    const Time host = pipeline_time(m.size, chunk, rates, Time::zero()) + wait * p.waits;
    if (!p.inner) return host;
    // The wrapped leg carries every byte and the host adds its waits at least.
    return std::max(inner_->unloaded_time(m) + wait * p.waits, host);
}

void HostStagingNetwork::check_invariants(Time now) const {
    inner_->check_invariants(now);
    if (chunks_in_flight_ < 0)
        throw ModelError(
            fmt::format("invariant broken: host staging finished {} chunks more than it started", -chunks_in_flight_));
}

std::unique_ptr<Network> HostStagingNetwork::tuning_model() const {
    std::unique_ptr<Network> inner = inner_->tuning_model();
    if (inner == nullptr) return nullptr;
    return std::make_unique<HostStagingNetwork>(std::move(inner), cluster_);
}

std::vector<std::string> host_path_lines(const scenario::ClusterSpec& cluster) {
    const scenario::ServerSpec& s = cluster.server;
    std::vector<std::string> out;
    if (s.gpus == 0) return out;
    const auto& g = s.gpudirect;
    const std::string via = s.pcie.switches > 0 ? "PCIe switch" : "root complex";
    const std::string host =
        fmt::format("staged in host memory ({} chunks, copy {}/socket, +{} per staging side{})",
                    to_string(s.host.staging_chunk), to_string(s.host.memory_copy), to_string(s.host.staging_latency),
                    s.host.sockets == 2 ? fmt::format(", socket link {}", to_string(s.host.socket_link)) : "");
    const bool nvlink = s.gpus >= 2 && s.nvlink.links_per_gpu > 0;
    out.push_back(fmt::format(
        "GPU -> NIC: {}", g.rdma ? "GPUDirect RDMA through the " + via : host + ", the root port crossed each way"));
    if (s.gpus >= 2)
        out.push_back(fmt::format("GPU -> GPU: {}", !g.p2p   ? host + " (NCCL SHM)"
                                                    : nvlink ? "GPUDirect P2P over NVLink"
                                                             : "GPUDirect P2P through the " + via));
    out.push_back(fmt::format("storage -> GPU: {}", g.storage ? "GPUDirect Storage" : host));
    if (nvlink)
        out.push_back(fmt::format("other rail: {}", g.pxn && g.rdma && s.nics >= 2
                                                        ? "PXN, over NVLink to the rail's GPU, out by its NIC "
                                                          "(all-to-all, trees, transfers; rings keep to their rail)"
                                                        : "the rank's own NIC, across the fabric"));
    return out;
}

}  // namespace fabricsim::fabric
