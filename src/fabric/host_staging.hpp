// Host staging: the data paths of a server whose GPUDirect is off (cluster.server.gpudirect,
// docs/models/gpudirect.md), on top of any network model (ideal, packet, flow).
//
// Without GPUDirect RDMA a message between a GPU and its NIC is staged in host memory, in
// chunks of `host.staging_chunk` so the copies overlap (NCCL's proxy and its NCCL_STEPS
// buffers):
//
//   send side     S1  GPU writes the chunk into host memory: the GPU's PCIe switch uplink
//                     (root port, up) and the socket's memory (in)
//                 --  host.staging_latency (the proxy sees the chunk, posts the RDMA write)
//                 S2  the NIC reads it, while the chunk crosses the fabric: memory (out), the
//                     socket link when the NIC sits under the other socket, the NIC's switch
//                     uplink (down)
//   receive side  R1  the NIC writes it into host memory, while it arrives: NIC's uplink (up),
//                     socket link, memory (in)
//                 --  host.staging_latency
//                 R2  the GPU reads it: memory (out), the GPU's uplink (down)
//
// so the root port is crossed twice on each staging side (once each way) and each byte takes
// a trip through DRAM. The wrapped model carries the chunk GPU -> NIC -> fabric -> NIC -> GPU
// as it would with GPUDirect: the GPU's and the NIC's own PCIe links and the fabric. Without
// PCIe switches the GPU and the NIC sit on root ports, whose links the wrapped model already
// carries: only the memory (and socket link) stages remain.
// Without GPUDirect P2P a message between two GPUs of a server goes GPU -> host memory -> GPU
// (NCCL's SHM transport): S1 then R2 of the destination, here alone (GPU PCIe links included).
// Without GPUDirect Storage a storage read (storage node -> GPU) ends with R1, R2, and a
// checkpoint write starts with S1, S2.
//
// The host resources (uplinks each way, memory in and out per socket, the socket link each
// way, and for SHM the GPUs' PCIe links) are first-come first-served: each serves a chunk for
// chunk / its rate from when it is free, as the ideal model holds its ports, and a stage ends
// when the last of its resources has served the chunk. They are
// not shared with the wrapped model's own PCIe links: traffic that uses GPUDirect and staged
// traffic do not contend on an uplink (docs/models/gpudirect.md, "Limits").
//
// NCCL PXN (gpudirect.pxn, with NVLink and GPUDirect RDMA): a message from a GPU to a GPU of
// another server whose NIC has another rail index is relayed, chunk by chunk, over NVLink to
// the GPU of its own server that the destination's rail NIC serves, which sends it through that
// NIC: two legs of the wrapped model, so a rail-optimised fabric keeps it on one rail. Messages
// of rail-aligned rings (Message::rail set) already leave by the ring's NIC and are not relayed.
//
// The PCIe resources (uplinks, and for SHM the GPUs' links) carry transaction-layer packets,
// not bare bytes: a write of c bytes is c plus a header per max payload size (256 B); a read
// is its completions (c plus a smaller header per 256 B) towards the reader and its read
// requests (a header per 512-byte request, no data) the other way (Charge; PCI Express Base
// Specification; docs/models/gpudirect.md, "PCIe transactions"). So a staging side that
// both writes host memory and has it read (GPU -> host, host -> NIC) loads the uplink's
// upward direction with the writes and the read requests.
//
// A stage of k chunks through stages of rates B_1..B_m with waits L between stages takes
//   T = Σ c/B_i + Σ L + (k - 1) · c / min B_i      (chunk c; the last chunk may be smaller)
// which `pipeline_time` gives and the tests derive by hand.
#pragma once

#include "core/event_queue.hpp"
#include "core/network.hpp"
#include "scenario/spec.hpp"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace fabricsim::fabric {

// Whether any server of `cluster` stages (a GPUDirect path off on a server with GPUs).
bool stages_through_host(const scenario::ClusterSpec& cluster);
// Whether its servers relay messages to other rails through a peer GPU (NCCL PXN).
bool relays_through_peer(const scenario::ClusterSpec& cluster);

// `inner` unchanged when nothing stages or relays, else wrapped.
std::unique_ptr<Network> with_host_staging(std::unique_ptr<Network> inner, const scenario::ClusterSpec& cluster);

// The closed form above: `size` in chunks of `chunk` through stages of `rates`, with `wait`
// between consecutive stages.
Time pipeline_time(Bytes size, Bytes chunk, std::span<const Bandwidth> rates, Time wait);

// One line per data path of a server of `cluster` ("GPU -> NIC: ..."), for `fabricsim topo`.
std::vector<std::string> host_path_lines(const scenario::ClusterSpec& cluster);

class HostStagingNetwork final : public Network, private DeliveryListener, private EventTarget {
public:
    HostStagingNetwork(std::unique_ptr<Network> inner, const scenario::ClusterSpec& cluster);
    ~HostStagingNetwork() override;

    std::string_view model_name() const override { return inner_->model_name(); }
    void send(Simulator& sim, const Message& message, DeliveryListener& listener) override;
    Time unloaded_time(const Message& message) const override;
    bool offers(Offload offload, std::span<const RankId> ranks) const override {
        // A ring channel as one operation would skip the host stages (PXN never relays a ring's
        // messages: they name their rail).
        if (offload == Offload::ring_channel && stages_through_host(cluster_)) return false;
        return inner_->offers(offload, ranks);
    }
    void start_group(Simulator& sim, const GroupOperation& op, DeliveryListener& listener) override {
        inner_->start_group(sim, op, listener);
    }
    FabricCounters counters() const override { return inner_->counters(); }
    std::vector<PortReport> port_reports() const override { return inner_->port_reports(); }
    std::vector<QpRateSeries> qp_rates() const override { return inner_->qp_rates(); }
    std::vector<QueueSeries> queue_series() const override { return inner_->queue_series(); }
    void check_invariants(Time now) const override;
    std::unique_ptr<Network> tuning_model() const override;
    std::vector<std::string> warnings() const override { return inner_->warnings(); }

    Network& inner() { return *inner_; }

    // What a stage costs a resource per chunk: the bytes themselves (memory, socket link) or
    // the PCIe packets of a write, of a read's completions, or of a read's requests.
    enum class Charge : std::uint8_t { bytes, write, completion, request };
    struct Use {
        std::uint32_t resource = 0;
        Charge charge = Charge::bytes;
    };
    // Which resources a message holds in each stage (tests read them).
    struct Plan {
        std::vector<Use> before;  // S1 (source stages), before the wrapped model's leg
        std::vector<Use> during;  // S2 / R1, alongside it
        std::vector<Use> after;   // R2 (destination stages)
        bool inner = true;        // false: host memory alone (SHM), no wrapped leg
        int waits = 0;            // staging latencies on the way (0, 1 or 2)
        std::int64_t relay = -1;  // PXN: the rank that relays the message; -1: none
        bool passes_through() const { return before.empty() && during.empty() && after.empty() && relay < 0; }
    };
    Plan plan(const Message& message) const;  // all empty: GPUDirect, passed through
    Bandwidth rate(std::uint32_t resource) const { return resources_[resource].rate; }
    // The bytes a chunk of `size` puts on a resource under `charge`.
    Bytes wire_bytes(Charge charge, Bytes size) const;
    const std::string& resource_name(std::uint32_t resource) const { return resources_[resource].name; }

private:
    void on_delivered(Simulator& sim, MessageId id) override;
    void on_event(Simulator& sim, std::uint64_t arg) override;

    struct Resource {
        std::string name;
        Bandwidth rate;
        Time free_at;
    };
    struct Chunk {
        std::uint32_t message = 0;  // index into messages_
        Bytes size;
        Time during_end;  // when the stage alongside the wrapped leg ends
    };
    struct Staged {
        MessageId id;
        DeliveryListener* listener = nullptr;
        Message inner;  // the wrapped leg's message, size set per chunk
        Plan plan;
        std::int64_t chunks = 0, issued = 0, left = 0;
    };
    // A chunk's events: its S1 write ended; it is handed to the wrapped model; its wrapped leg
    // and the stage alongside ended; it is in the destination GPU.
    enum Phase : std::uint64_t { kWritten = 0, kHandOff = 1, kLegDone = 2, kDelivered = 3 };

    // Has each of `stage`'s resources serve `size` from `ready` (or when it is free); returns
    // when the last has.
    Time hold(const std::vector<Use>& stage, Bytes size, Time ready);
    // The next chunk of message `m`; its S1 write starts when the previous one's ends, so the
    // host resources serve chunks in the order they are ready.
    std::uint32_t next_chunk(std::uint32_t m);
    void written(Simulator& sim, std::uint32_t chunk);
    void hand_off(Simulator& sim, std::uint32_t chunk);
    void leg_done(Simulator& sim, std::uint32_t chunk);
    void chunk_done(Simulator& sim, std::uint32_t chunk);

    std::unique_ptr<Network> inner_;
    scenario::ClusterSpec cluster_;
    int ranks_per_server_ = 1;
    std::vector<Resource> resources_;
    std::uint32_t per_server_ = 0;  // resources of one server
    std::vector<Staged> messages_;
    std::vector<std::uint32_t> free_messages_;
    std::vector<Chunk> chunks_;
    std::vector<std::uint32_t> free_chunks_;
    std::int64_t chunks_in_flight_ = 0;
    bool pxn_ = false;
    // Per-packet overhead of a write, a completion and a read request on the PCIe resources.
    std::int64_t write_overhead_ = 0, completion_overhead_ = 0, request_overhead_ = 0;
};

}  // namespace fabricsim::fabric
