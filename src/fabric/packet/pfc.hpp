// PFC (IEEE 802.1Qbb; docs/models/pfc.md) on the shared-buffer MMU of a RoCE fabric switch
// or a NIC's receive buffer (SwitchMmu, switch_mmu.hpp), as the link flow control of every
// link into a RoCE fabric switch and from one into a NIC with a receive buffer.
//
// The MMU accounts the bytes each ingress port holds per priority. On the lossless
// priority, when they pass XOFF (SwitchMmu::threshold), PFC pauses that priority
// of the upstream port with a pause frame of 0xFFFF quanta (512 bit times each), refreshed
// every half quanta while the port stays above XON = XOFF - xon_delta, and resumes it with a
// zero-quanta frame when it drains below. Headroom above XOFF absorbs what is still on the
// way; a packet beyond it, or finding the buffer full, is a lossless drop. Other priorities
// (and every priority in lossy mode) are never paused: at a switch, a packet whose egress
// queue is past its dynamic threshold (SwitchMmu::admits_lossy), or that finds the buffer full,
// is tail-dropped; at a NIC's receive buffer, one past the buffer's XOFF.
//
// PFC watchdog (pfc.watchdog; Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM'16
// §4.3): a queue paused without a break for longer than the watchdog time stops honouring
// pauses and drops what it holds and what reaches it (lossless drops, counted) until the
// peer resumes it.
#pragma once

#include "fabric/packet/link_flow_control.hpp"
#include "fabric/packet/switch_mmu.hpp"
#include "fabric/topology.hpp"
#include "scenario/roce_spec.hpp"

#include <array>

namespace fabricsim::fabric {

class Pfc final : public LinkFlowControl {
public:
    // Runs on the links into the fabric switches of `topology`; `layout` must outlive it.
    Pfc(const Topology& topology, const QueueLayout& layout, const scenario::RoceSpec& roce, Bytes mtu,
        FlowControlHost& host);

    // Links into a fabric switch, and from a fabric switch into a NIC with a receive buffer.
    bool applies_to(DirectedLink link) const;
    // Paused: only what started before the pause. Resumed since: not inside the last pause.
    bool may_send(std::uint32_t q, Bytes, Time& start) override {
        if (!ever_paused(q)) return true;  // its record would say so: not read
        const Pause& p = pause_[q];
        if (p.paused) return start < p.since;
        if (start >= p.since && start < p.resumed) start = p.resumed;
        return true;
    }
    void on_sent(Simulator&, std::uint32_t, Bytes) override {}
    // Into a NIC's receive buffer (no egress queue: lossy frames meet its XOFF). `payload`: the
    // packet's; the MMU counts it as the buffer holds it (SwitchMmu::frame).
    bool on_ingress(Simulator& sim, std::uint32_t q, Bytes payload) override { return admit(sim, q, payload, nullptr); }
    // Into a switch, bound for its egress queue `out`, which holds `out_held` bytes now (the
    // port's depth, frame bytes): the switch looks the egress port up before its MMU admits the packet.
    // By reference: only a lossy packet reads the depth, so a lossless one does not wait here
    // for the queue's line, which its enqueue reads next (issue 19).
    bool on_switch_ingress(Simulator& sim, std::uint32_t q, Bytes payload, std::uint32_t out, const Bytes& out_held) {
        const Egress egress{out, out_held};
        return admit(sim, q, payload, &egress);
    }
    // Inline: once per frame that leaves a switch or NIC; the XON check only while pausing.
    void on_drained(Simulator& sim, std::uint32_t q, Bytes payload) override {
        mmu_.release(q, mmu_.frame(payload));
        if (mmu_.pause_state(q).pausing) maybe_resume_upstream(sim, q);
    }
    bool blocked(std::uint32_t q) const override { return pause_[q].paused; }
    void add_counters(FabricCounters& c) const override;
    void on_event(Simulator& sim, std::uint64_t arg) override;

    bool lossless_priority(int p) const { return ((lossless_ >> p) & 1u) != 0; }
    // Queue q ignores pauses and drops what reaches it (the watchdog took it out of PFC).
    bool dropping(std::uint32_t q) const { return ever_paused(q) && pause_[q].watchdog_dropping; }
    // Statistics by queue (the ingress side: q is the upstream port's queue).
    Bytes max_ingress(std::uint32_t q) const { return mmu_.max_held(q); }
    Bytes headroom(std::uint32_t q) const { return mmu_.headroom(q); }
    const SwitchMmu& mmu() const { return mmu_; }
    // The records admit() reads for a frame through q into `node` (SwitchMmu::ingress_line).
    std::array<const void*, 2> admit_lines(std::uint32_t q, NodeId node) const {
        return {mmu_.ingress_line(q), mmu_.buffer_line(node)};
    }
    Time paused_time(std::uint32_t q) const { return pause_[q].total; }
    std::int64_t pause_frames(std::uint32_t q) const { return pause_[q].frames; }
    std::int64_t watchdog_triggers() const { return watchdog_triggers_; }
    std::int64_t lossless_drops() const { return lossless_drops_; }
    std::int64_t drops() const { return drops_; }
    // Lossy packets a switch refused for its egress queue `out` (its threshold or a full buffer).
    std::int64_t egress_drops(std::uint32_t out) const { return egress_drops_[out]; }

private:
    enum Kind : std::uint64_t { kPause, kResume, kRefresh, kExpiry, kWatchdog };
    // The upstream side of a queue: PFC received.
    struct Pause {
        bool paused = false;  // nothing starts in [since, until)
        bool watchdog_dropping = false;
        Time since, until;
        Time resumed;  // the end of the last pause
        Time total = Time::zero();
        std::int64_t frames = 0;  // pause frames received (refreshes included)
    };
    // The downstream side, the pause frames the switch sends for what came in through the
    // queue's link, is in the MMU's record of the queue (SwitchMmu::PauseState), but for a
    // pause's refresh time (refresh_at_).

    struct Egress {
        std::uint32_t queue;
        const Bytes& held;
    };
    bool admit(Simulator& sim, std::uint32_t q, Bytes payload, const Egress* out);
    // Queue q has received a pause frame. Until then its Pause record is the default one
    // (nothing held, not dropping), which a hop need not read: a bit by queue (8 KiB for 64 k
    // queues) stays in cache where the 48-byte records, one per queue, do not (issue 19: the
    // first read of the egress queue's record, per hop, was ~4 % of perm-1024's cache misses).
    bool ever_paused(std::uint32_t q) const { return ((ever_paused_[q >> 6] >> (q & 63)) & 1u) != 0; }
    bool lossless(std::uint32_t q) const { return mmu_.pause_state(q).lossless; }
    static std::uint8_t lossless_mask(const scenario::RoceSpec& roce);
    void send_pause(Simulator& sim, std::uint32_t q, bool pause);
    // While our pause frames hold q's upstream queue: resume it once below XON.
    void maybe_resume_upstream(Simulator& sim, std::uint32_t q);
    void on_pause(Simulator& sim, std::uint32_t q, bool pause);
    void resume(Simulator& sim, std::uint32_t q);

    const Topology& topology_;
    const QueueLayout& layout_;
    scenario::RoceSpec roce_;
    FlowControlHost& host_;
    bool pfc_ = false;           // PFC on the lossless priorities (lossless mode)
    std::uint8_t lossless_ = 0;  // bit p: priority p is lossless
    SwitchMmu mmu_;
    std::vector<Pause> pause_;                // by queue
    std::vector<std::uint64_t> ever_paused_;  // by queue, a bit (ever_paused)
    std::vector<Time> refresh_at_;            // by queue: the pause frame's next refresh
    std::vector<Time> quanta_;                // by port: 0xFFFF x 512 bit times at its rate
    std::vector<std::int64_t> egress_drops_;  // by queue: lossy drops for a switch egress queue
    std::int64_t pauses_sent_ = 0, lossless_drops_ = 0, drops_ = 0, watchdog_triggers_ = 0;
};

// Inline: once per frame into a switch or a NIC's receive buffer. `payload`: the packet's; the MMU counts it as the
// buffer holds it (SwitchMmu::frame), as does `out->held`, the egress queue's depth.
inline bool Pfc::admit(Simulator& sim, std::uint32_t q, Bytes payload, const Egress* out) {
    const Bytes size = mmu_.frame(payload);
    SwitchMmu::PauseState& ps = mmu_.pause_state(q);
    const Bytes threshold = mmu_.threshold(q);
    if (!lossless(q)) {
        // Lossy: tail drop when the buffer is full, or past the egress queue's dynamic threshold
        // at a switch (the ingress XOFF at a NIC's receive buffer). The ingress accounting below
        // still counts it: PFC's thresholds see the pool it takes.
        const bool room = mmu_.fits(q, size) &&
                          (out != nullptr ? mmu_.admits_lossy(q, out->held, size) : mmu_.held(q) + size <= threshold);
        if (!room) {
            ++drops_;
            if (out != nullptr) ++egress_drops_[out->queue];
            return false;
        }
    } else if (!mmu_.fits(q, size) || (ps.pausing && mmu_.held(q) + size > ps.limit)) {
        ++lossless_drops_;
        return false;
    }
    mmu_.admit(q, size);
    if (lossless(q) && !ps.pausing && mmu_.held(q) > threshold) {
        ps.pausing = true;
        ps.limit = threshold + mmu_.headroom(q);
        send_pause(sim, q, true);
    }
    return true;
}

}  // namespace fabricsim::fabric
