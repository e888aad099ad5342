// Queue time series of the packet model (outputs.queues; docs/models/packet.md, "Queue time
// series"): every `interval` of simulated time, on the grid k x interval, while the network
// carries packets, the sampler reads each chosen port's queues as the model holds them — wire
// bytes (payload and headers) over all its traffic classes, whether PFC pauses a class of it,
// whether a class waits for link-level credits — and once more when the network falls idle.
// It is an event of its own: nothing is added per packet, and without outputs.queues there is
// no sampler at all.
//
// Which ports: the ones `ports` names ("from->to": every link from node `from` to node `to`),
// or with `top: N` the N ports whose sampled queue got deepest, chosen at the end of the run
// from one pass: each sample keeps a row for every port whose queue is not empty or whose
// flags are set (sparse; an idle fabric costs nothing), with each port's deepest sample. Memory
// is bounded: at kMaxRows rows the top-N sampler keeps the rows of the N ports deepest so far
// and samples only those from then on; a `ports` sampler, or a top-N one that fills up again,
// stops sampling. Either says so in warnings().
#pragma once

#include "core/event_queue.hpp"
#include "core/network.hpp"
#include "core/units.hpp"
#include "fabric/topology.hpp"
#include "scenario/spec.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace fabricsim::fabric {

class PacketNetwork;

// A port's queues at one moment, as the packet model holds them.
struct PortQueueState {
    Bytes queued = Bytes::zero();  // wire bytes, all classes
    bool paused = false;           // PFC pauses a class of it
    bool credit_stalled = false;   // a class of it waits for credits
};

// The directed links (their indices) `spec.ports` names, in order, each "from->to" giving
// every link from `from` to `to`. A ConfigError at outputs.queues.ports[i] (with the name's
// place in the file) for a node name that does not exist or two nodes no link joins.
std::vector<std::uint32_t> resolve_queue_ports(const Topology& topology, const scenario::QueueOutputSpec& spec);

class QueueSampler final : public EventTarget {
public:
    // 16-byte rows: 8 Mi rows are 128 MiB.
    static constexpr std::size_t kMaxRows = std::size_t{1} << 23;

    // `max_rows`: the memory bound (smaller in tests).
    QueueSampler(const PacketNetwork& network, const Topology& topology, const scenario::QueueOutputSpec& spec,
                 std::size_t max_rows = kMaxRows);

    // Packets are in the network: sample on the grid from now on (idempotent).
    void arm(Simulator& sim);
    // The network fell idle: a last sample now, and none until arm().
    void idle(Simulator& sim);
    void on_event(Simulator& sim, std::uint64_t arg) override;

    std::vector<QueueSeries> series() const;
    std::vector<std::string> warnings() const { return warnings_; }
    // Rows held (for tests of the memory bound).
    std::size_t rows() const { return rows_.size(); }

private:
    struct Row {
        std::uint32_t port;
        std::uint8_t flags;  // bit 0: paused, bit 1: credit stalled
        Bytes queued;
    };
    void sample(Time now);
    void sample_dense(Time now);
    void freeze(Time now);
    std::vector<std::uint32_t> deepest() const;  // top mode: the N ports by deepest sample
    std::string port_name(std::uint32_t port) const;

    const PacketNetwork& network_;
    const Topology& topology_;
    Time interval_;
    std::size_t top_ = 0;  // 0: the named ports
    std::size_t max_rows_;
    std::vector<std::uint32_t> chosen_;  // the named ports; top mode once frozen, the N deepest
    bool frozen_ = false;
    bool stopped_ = false;
    std::vector<Time> times_;         // by sample
    std::vector<std::size_t> begin_;  // by sample: its first row
    std::vector<Row> rows_;
    std::vector<Bytes> deepest_;      // top mode: by port, its deepest sample
    std::vector<std::uint8_t> seen_;  // top mode: by port, it had a row
    bool pending_ = false;
    Time pending_at_ = Time::max();
    EventHandle handle_;
    std::vector<std::string> warnings_;
};

}  // namespace fabricsim::fabric
