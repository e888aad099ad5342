// The Network interface: what a workload sees of a fabric model (docs/ARCHITECTURE.md).
//
// A workload hands the network Messages, rank to rank; the network calls the listener when
// the last byte has arrived. Which model carries them (ideal, packet, flow) the workload never
// knows. Some networks can also compute on the way — NVSwitch multicast and in-switch
// reduction (NVLS), switch aggregation trees (SHARP) — and say so through offers(); the
// collective layer asks before it plans an algorithm that needs one.
#pragma once

#include "core/ids.hpp"
#include "core/units.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabricsim {

class Simulator;

struct Message {
    MessageId id;
    RankId src;
    RankId dst;
    Bytes size;
    // Traffic class: an 802.1p priority (RoCE) or service level (InfiniBand); kDataClass: the
    // network's own data class (RoCE: its lossless priority).
    std::uint8_t priority = kDataClass;
    static constexpr std::uint8_t kDataClass = 0xFF;
    std::uint32_t flow_hint = 0;  // e.g. NCCL channel: a network may pin it to a QP / path
    // When the message leaves its server: the NIC index (rail) both servers use, as NCCL's
    // rings enter and leave a server through one NIC per channel. -1: each rank's own NIC.
    std::int16_t rail = -1;
};

// In-network operations a network may offer. One group operation covers a whole group of
// ranks: a collective of `size` bytes (nccl-tests' S) that the network computes on the way.
// The collective layer, which knows the algorithm's data movement (e.g. NVLS: multimem
// ld_reduce of each rank's slice, then a multicast store), says how many bytes each rank's
// port sends into and receives from the network; the network model adds its own costs.
enum class Offload {
    nvswitch_multicast,  // NVLS: one write reaches every GPU of the group through NVSwitch
    nvswitch_reduce,     // NVLS: NVSwitch reduces the group's buffers (all-reduce)
    switch_aggregation,  // SHARP: switches reduce on the way up an aggregation tree
    // Not in-network compute: one channel of a ring collective whose every step is one message
    // (ranks in ring order; each sends `steps` messages of egress / steps bytes to the next,
    // each after the message it forwards has arrived). A model that offers it carries the
    // channel as one operation instead of steps · ranks messages (the flow model: one coupled
    // flow, docs/models/flow.md "Rings as one flow").
    ring_channel,
};
std::string_view to_string(Offload offload);

struct GroupOperation {
    MessageId id;
    Offload offload;
    std::span<const RankId> ranks;  // valid for the duration of the call only
    Bytes size;
    Bytes egress;                 // per rank: bytes its port sends into the network
    Bytes ingress;                // per rank: bytes its port receives
    std::int16_t rail = -1;       // switch_aggregation: the NIC each server uses; -1: own
    std::uint32_t flow_hint = 0;  // ring_channel: its messages' Message::flow_hint (the channel)
    std::uint32_t steps = 0;      // ring_channel: messages each rank sends
};

class DeliveryListener {
public:
    // The last byte of message (or group operation) `id` has reached its destination(s).
    virtual void on_delivered(Simulator& sim, MessageId id) = 0;

protected:
    ~DeliveryListener() = default;
};

// Fabric counters in the README.md's "Using it" names; a model fills what it models and leaves the rest 0.
struct FabricCounters {
    std::int64_t drops = 0;
    std::int64_t lossless_drops = 0;
    std::int64_t pfc_pauses_sent = 0;
    Time paused_time = Time::zero();
    std::int64_t ecn_marks = 0;
    std::int64_t cnps = 0;
    Time credit_stall_time = Time::zero();
    std::int64_t fecn_marks = 0;
    std::int64_t becns = 0;  // InfiniBand: BECNs the destinations returned
    Bytes max_queue = Bytes::zero();
    std::int64_t packet_hops = 0;
    std::int64_t pfc_watchdog_triggers = 0;  // ports the PFC watchdog took out of PFC
    // Faults and recovery (docs/models/faults.md): packets the PFC watchdog dropped (counted in
    // lossless_drops too unless RC recovers them), packets lost to faults (down links, bit
    // errors), RC packets sent again and retransmission timeouts, and messages RC gave up on
    // (retry count exhausted without progress).
    std::int64_t watchdog_drops = 0;
    std::int64_t fault_drops = 0;
    std::int64_t retransmitted = 0;
    std::int64_t rc_timeouts = 0;
    std::int64_t messages_abandoned = 0;
};

// One egress port of a network model (a direction of a link) over a run, for ports.csv.
struct PortReport {
    std::string from, to;              // node names
    int priority = 0;                  // the traffic class these figures are for
    Bytes bytes;                       // payload put on the wire
    Time busy;                         // time spent sending
    Bytes max_queue;                   // deepest its queue got (wire bytes: payload and headers)
    std::int64_t pauses_received = 0;  // PFC pause frames that reached it (refreshes included)
    Time paused;                       // time it spent paused
    std::int64_t ecn_marks = 0;        // packets it marked
    double queue_area = 0;             // its queue's wire bytes integrated over time, in byte-seconds
};

// One queue pair's congestion-control state over a run: a sample at each change, at most one
// per sampling interval (for qp_rates.csv).
struct QpSample {
    Time at;
    Bandwidth rate;
    std::int32_t ccti = -1;  // IB CC's congestion control table index; -1 under DCQCN
};
struct QpRateSeries {
    std::string name;  // "s0.nic0 -> s2.nic0 qp 0"
    std::vector<QpSample> samples;
};

// One port's queue over a run (for queues.csv): a sample every sampling interval while the
// network carries packets, and one when it falls idle.
struct QueueSample {
    Time at;
    Bytes queued;                 // wire bytes in its queues, all traffic classes
    bool paused = false;          // a class of it is paused by PFC
    bool credit_stalled = false;  // a class of it waits for link-level credits
};
struct QueueSeries {
    std::string port;  // "leaf0->s0.nic0" (a second parallel link: "...#1")
    std::vector<QueueSample> samples;
};

class Network {
public:
    virtual ~Network() = default;

    // "ideal", "packet" or "flow": recorded in result.json's cost.model.
    virtual std::string_view model_name() const = 0;
    virtual void send(Simulator& sim, const Message& message, DeliveryListener& listener) = 0;

    // The time `message` takes alone on an idle network: the denominator of slowdown.
    virtual Time unloaded_time(const Message& message) const = 0;

    // Whether this network can run `offload` over exactly these ranks (e.g. NVLS only when
    // every rank's GPU hangs off the same NVSwitch). The default network offers nothing.
    virtual bool offers(Offload /*offload*/, std::span<const RankId> /*ranks*/) const { return false; }
    // Starts a group operation; throws ModelError when !offers(op.offload, op.ranks).
    virtual void start_group(Simulator& sim, const GroupOperation& op, DeliveryListener& listener);

    virtual FabricCounters counters() const { return {}; }
    // Per-port figures, for the ports that carried traffic (models without ports: none).
    virtual std::vector<PortReport> port_reports() const { return {}; }
    // Per-QP rate series, when the model has QPs and was asked to record them.
    virtual std::vector<QpRateSeries> qp_rates() const { return {}; }
    // Per-port queue series, when the model has queues and was asked to sample them.
    virtual std::vector<QueueSeries> queue_series() const { return {}; }

    // Checks the model's invariants and throws ModelError naming the first one broken: no drop
    // on a lossless class, no link above capacity, every byte sent delivered, dropped or in
    // flight. Cheap enough for the end of every run; `fabricsim run --check` (and a debug
    // build) also calls it during the run, between events.
    virtual void check_invariants(Time /*now*/) const {}

    // A new, idle α–β model of the same cluster, on which `algorithm: auto` runs each candidate
    // collective to choose the fastest (collective_tuner.hpp). Null: the tuner falls back to
    // closed-form estimates.
    virtual std::unique_ptr<Network> tuning_model() const { return nullptr; }

    // What the model chose in place of the input and the user should know, one sentence each
    // (e.g. an InfiniBand switch buffer below the credit round trip, so the round trip is used).
    virtual std::vector<std::string> warnings() const { return {}; }
};

}  // namespace fabricsim
