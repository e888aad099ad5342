// Credit-based flow control on the links inside a server (NVLink, NVSwitch, PCIe), as those
// links run it in hardware: a sender holds credits for the receiver's buffer, spends them on
// every packet it starts and gets them back when the receiver has passed the packet on; it
// never sends without them, so nothing is dropped and a stalled receiver stalls its senders
// (PCIe Base Specification, flow-control credits; NVLink's link-level credits).
//
// Here a link's credits are kCreditSegments of the largest packet that crosses it — a segment
// (simulation.packet.segment) of a message inside the server, or an MTU packet of a message on
// its way to or from the fabric, whichever is larger — enough to cover the link's round trip
// many times over; credits for fewer bytes than one packet would hold it back for ever. A
// packet's credits return one link propagation delay after it leaves the receiving node (or is
// delivered there). Time a queue spends with a packet waiting and no credit adds to
// credit_stall_time_s.
#pragma once

#include "fabric/packet/credit_ledger.hpp"
#include "fabric/packet/link_flow_control.hpp"
#include "fabric/topology.hpp"

namespace fabricsim::fabric {

class Credits final : public LinkFlowControl {
public:
    static constexpr std::int64_t kCreditSegments = 4;

    // `largest_packet`: max(segment, MTU), the most one packet on these links can carry.
    Credits(const Topology& topology, const QueueLayout& layout, Bytes largest_packet, FlowControlHost& host);

    // NVLink and PCIe links.
    static bool applies_to(const Link& link) { return link.type == LinkType::nvlink || link.type == LinkType::pcie; }
    bool may_send(std::uint32_t q, Bytes size, Time& start) override {
        return ledger_.may_send(q, size.count(), start);
    }
    void on_sent(Simulator&, std::uint32_t q, Bytes size) override { ledger_.spend(q, size.count()); }
    bool on_ingress(Simulator&, std::uint32_t, Bytes) override { return true; }
    void on_drained(Simulator& sim, std::uint32_t q, Bytes size) override;
    bool blocked(std::uint32_t q) const override { return ledger_.blocked(q); }
    void add_counters(FabricCounters& c) const override { c.credit_stall_time += ledger_.total_stall(); }
    void on_event(Simulator& sim, std::uint64_t arg) override;

private:
    FlowControlHost& host_;
    CreditLedger ledger_;  // in bytes
    // By queue: its link's propagation delay, after which drained credits are back (a flat
    // table, read once per packet, instead of the queue's port and then its link).
    std::vector<Time> return_delay_;
};

}  // namespace fabricsim::fabric
