// InfiniBand link-level flow control (IBA Vol. 1 §7.9): credits per virtual lane in 64-byte
// blocks. The receiver's buffer for each VL of a link is cluster.infiniband.vl_buffer, or with
// `auto`: into a switch, its share of the switch's buffer — the preset's `buffer` split evenly
// over its `radix` ports and the data VLs (NVIDIA publishes no per-port figure for Quantum-2,
// so the even split is fabricsim's reading) — but never less than the floor below, with a
// warning (warnings()) where the share is smaller; into an HCA (no buffer figure), the floor:
// the bytes the link carries in one credit round trip — a packet's serialisation, the cable
// out, the receiver's forwarding latency, the cable back — plus two MTU packets. The sender spends a packet's blocks —
// payload plus cluster.infiniband.header_bytes (26: LRH, BTH, ICRC and VCRC; 66 with a GRH), the packet as the link
// carries it, rounded up to 64 (IBA Vol. 1 §7.9.4) — when it starts it and never starts one
// without all of them. The receiver returns the blocks in a flow-control packet when the packet has left (or been
// delivered); the update takes the link's propagation delay back, and with credit_update_period > 0 at most one goes
// out per period per VL, carrying everything freed since. Nothing is ever dropped for lack of buffer; time a VL waits
// with a packet and no credits adds to credit_stall_time_s, and a VL that waited before a packet is, for IB CC, a
// victim of congestion when it sends it (waited()).
#pragma once

#include "fabric/ib_vl_buffer.hpp"
#include "fabric/packet/credit_ledger.hpp"
#include "fabric/packet/link_flow_control.hpp"
#include "fabric/topology.hpp"
#include "scenario/infiniband_spec.hpp"

#include <string>
#include <vector>

namespace fabricsim::fabric {

class IbCredits final : public LinkFlowControl {
public:
    static constexpr std::int64_t kBlock = kIbCreditBlock;
    static constexpr std::int64_t kHeaders = kIbHeaderBytes;  // the standard headers (VL arbitration's weights)

    IbCredits(const Topology& topology, const QueueLayout& layout, const scenario::InfinibandSpec& spec, Bytes mtu,
              FlowControlHost& host);

    static bool applies_to(const Link& link) {
        return link.type == LinkType::fabric || link.type == LinkType::storage_fabric;
    }
    // A packet of `payload` in credits: its wire bytes in 64-byte blocks, rounded up.
    std::int64_t blocks(Bytes payload) const { return (payload.count() + header_ + kBlock - 1) / kBlock; }

    bool may_send(std::uint32_t q, Bytes size, Time& start) override {
        const Time asked = start;
        const bool ok = ledger_.may_send(q, blocks(size), start);
        if (!ok || start != asked) waited_[q] = 1;
        return ok;
    }
    void on_sent(Simulator&, std::uint32_t q, Bytes size) override {
        ledger_.spend(q, blocks(size));
        waited_[q] = 0;
    }
    bool on_ingress(Simulator&, std::uint32_t, Bytes) override { return true; }
    void on_drained(Simulator& sim, std::uint32_t q, Bytes size) override;
    bool blocked(std::uint32_t q) const override { return ledger_.blocked(q); }
    void add_counters(FabricCounters& c) const override { c.credit_stall_time += ledger_.total_stall(); }
    void on_event(Simulator& sim, std::uint64_t arg) override;

    Bytes buffer(std::uint32_t q) const { return Bytes{limit_[q] * kBlock}; }
    // Queue q had to wait for credits before the packet it is starting now (asked before
    // on_sent): the IB CC victim test (congestion::FecnMarker).
    bool waited(std::uint32_t q) const { return waited_[q] != 0; }
    Time stall(std::uint32_t q) const { return ledger_.stall(q); }
    // One line per switch whose buffer share was under a link's round trip (the floor was used).
    const std::vector<std::string>& warnings() const { return warnings_; }

private:
    enum Kind : std::uint64_t { kReturn, kUpdate };
    void send_update(Simulator& sim, std::uint32_t q);

    const Topology& topology_;
    const QueueLayout& layout_;
    FlowControlHost& host_;
    std::int64_t header_;  // bytes beside the payload: cluster.infiniband.header_bytes
    Time period_;
    CreditLedger ledger_;              // in blocks
    std::vector<std::int64_t> limit_;  // by queue: the receiver's buffer in blocks
    std::vector<std::int64_t> freed_;  // by queue: blocks freed, not yet in an update
    std::vector<Time> next_update_;    // by queue: the earliest next update (period > 0)
    std::vector<bool> update_pending_;
    std::vector<std::uint8_t> waited_;  // by queue: held back by credits since its last packet
    std::vector<std::string> warnings_;
};

}  // namespace fabricsim::fabric
