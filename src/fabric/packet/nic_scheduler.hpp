// The sending NIC's QPs (docs/models/packet.md, "Traffic classes", "NIC pull"; docs/models/
// dcqcn.md): each NIC uplink (NIC -> fabric switch) keeps one queue per QP — a QP is the
// (source, destination, NCCL channel) of a message, split over qps_per_connection QPs — and
// the QPs' congestion control, one object per QP (DCQCN on RoCE, IB CC on InfiniBand;
// src/congestion/), whose timer steps run when the QP next needs its rate (lazy_timers_), or
// as events of this component (an EventTarget) while rate samples are taken.
//
// Per class of the port (802.1Q priority or VL), the QP offered is the one whose next packet
// may start first, max(port free, packet ready, QP's next send time), round robin among equals
// from the QP after the last one served, skipping a QP whose class the port's flow control
// holds (offer()). A port with few QPs with packets (most NICs: a QP or two per uplink) scans
// them. From kHeapAbove on, a ready heap per port and class, keyed on max(packet ready, next
// send time), finds the earliest start without a scan of every QP; among the QPs that tie there
// (all those ready by the time the port falls free, when it is busy) round robin decides, from
// the heap's top when few tie, else from the port's list where the first QP in turn is
// almost always one of them. Flow control whose answer is the same for every packet of a
// class at a given time (PFC, none) is asked once per class; InfiniBand credits, which
// depend on each packet's size and record each refusal, are asked QP by QP in round-robin
// order, as a scan of the list (offer(..., scan = true)). The port goes back to scanning when
// fewer than kHeapBelow QPs hold packets. The port then arbitrates among the classes as a switch port does
// (PacketNetwork::serve) and takes the chosen QP's packet (take()). After a packet of wire
// size w starts at t, a congestion-controlled QP's next may start at t + w / R_C (sent()).
//
// A NIC reads a QP's data from host or GPU memory when it schedules it, a bounded number of
// reads ahead: the source holds a message's next packet while its QP holds kPullWindow
// (pull_full()), and is woken when the QP has sent half of them.
//
// State by QP, in arrays indexed by the QP's handle: the pacing record every decision reads
// (its packets, next send time, class), and apart from it the congestion-control objects,
// CNP pacers, timers and names; by port: the QPs with packets, in the order they got them,
// and the round-robin position.
#pragma once

#include "congestion/cnp_pacer.hpp"
#include "congestion/congestion_control.hpp"
#include "core/event_queue.hpp"
#include "core/network.hpp"
#include "fabric/packet/link_flow_control.hpp"
#include "fabric/packet/packet_record.hpp"
#include "fabric/topology.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fabricsim::fabric {

class NicScheduler final : public EventTarget {
public:
    static constexpr std::uint32_t kPullWindow = 64;
    static constexpr std::uint32_t kMaxClasses = 8;
    // A port keeps ready heaps while more than kHeapAbove of its QPs hold packets, and scans
    // its list again below kHeapBelow: for a few QPs the scan costs less than keeping heaps.
    static constexpr std::size_t kHeapAbove = 8, kHeapBelow = 4;
    enum class CcInput { sent, cnp, timer, ack };

    // `packets` (the network's pool) must outlive the scheduler; `ports`: directed links.
    NicScheduler(std::vector<PacketRecord>& packets, std::size_t ports, Time qp_rate_interval);

    // The first QP of the connection (`port`, src, dst, channel) and whether it is new: the
    // caller then adds the connection's QPs, in order, with add_qp().
    std::pair<std::uint32_t, bool> connection(std::uint32_t port, NodeId src, NodeId dst, std::uint32_t channel);
    // `cls`: the QP's class at its port (its queue there less the port's first queue).
    void add_qp(std::unique_ptr<congestion::CongestionControl> cc, Time cnp_interval, std::uint32_t port,
                std::uint8_t prio, std::uint8_t cls, NodeId src, NodeId dst, std::uint32_t number);

    // A data packet reaches the QP's queue (the caller then pumps the QP's port).
    void enqueue(Simulator& sim, std::uint32_t qp, std::uint32_t packet);

    // What the QPs of a port offer: per class, the QP's position in the port's list and when
    // its packet may start; the classes whose offer starts first (`ready`), those of them
    // holding one packet in all (`last`), those holding any (`held`), and that start.
    struct Offer {
        std::array<std::uint32_t, kMaxClasses> pos{};
        std::array<Time, kMaxClasses> start;
        std::uint32_t ready = 0, last = 0, held = 0;
        Time best = Time::max();
    };
    // `fc`: the port's flow control (may be null), `first`: its first queue. `scan`: ask the
    // flow control QP by QP, in turn (its answer depends on the packet, or has side effects).
    void offer(std::uint32_t port, Time free_at, LinkFlowControl* fc, std::uint32_t first, std::uint32_t classes,
               Offer& out, bool scan = false) const;
    // The bytes of the packet the QP at `pos` of the port's list offers.
    std::uint32_t head_bytes(std::uint32_t port, std::uint32_t pos) const {
        return packets_[pacing_[active_[port][pos]].fifo.head].bytes;
    }
    // Takes the next packet of the QP at `pos` of the port's list; `qp`: that QP.
    std::uint32_t take(std::uint32_t port, std::uint32_t pos, std::uint32_t& qp);
    // The port started the QP's packet of `size` payload bytes at `start`, at `payload` rate
    // on a link of line rate `line`: its next send time, and its congestion control hears of
    // it. True when its source waited for the pull window and may send again.
    bool sent(Simulator& sim, std::uint32_t qp, Time start, Bytes size, Bandwidth payload, Bandwidth line);
    // Whether the QP holds a full pull window; if so its source waits (sent() says when to go on).
    bool pull_full(std::uint32_t qp);

    // Feeds the QP's congestion control (bytes sent, a CNP, an ACK, its timer) and re-arms its
    // timer. The object's clock never goes back, though a send may be back-dated.
    void cc_call(Simulator& sim, std::uint32_t qp, CcInput why, Bytes size = Bytes::zero());
    void on_event(Simulator& sim, std::uint64_t qp) override;  // a QP's timer

    std::size_t qps() const { return cc_.size(); }
    // The port answers from its ready heaps (else it scans its QPs).
    bool heaped(std::uint32_t port) const { return heaped_[port] != 0; }
    bool controlled(std::uint32_t qp) const { return cc_[qp] != nullptr; }
    const congestion::CongestionControl* cc(std::uint32_t qp) const { return cc_[qp].get(); }
    congestion::CnpPacer& pacer(std::uint32_t qp) { return pacer_[qp]; }
    std::uint32_t port(std::uint32_t qp) const { return port_[qp]; }
    std::uint8_t prio(std::uint32_t qp) const { return prio_[qp]; }
    NodeId src(std::uint32_t qp) const { return src_[qp]; }
    NodeId dst(std::uint32_t qp) const { return dst_[qp]; }
    std::uint32_t number(std::uint32_t qp) const { return number_[qp]; }
    std::uint64_t queued(std::uint32_t qp) const { return pacing_[qp].queued; }
    const std::vector<QpSample>& rates(std::uint32_t qp) const { return rates_[qp]; }

private:
    void arm_timer(Simulator& sim, std::uint32_t qp);
    void scan_offer(std::uint32_t port, Time free_at, LinkFlowControl* fc, std::uint32_t first, Offer& out,
                    std::array<std::uint32_t, kMaxClasses>& last_packets) const;
    // The QP of the port's class heap `h` that is first in turn among those whose key is at
    // most `by` (the port's list from its round-robin position), and its place in the list.
    std::uint32_t first_in_turn(std::uint32_t port, std::uint32_t h, Time by) const;
    // The ready heap of one port and class, keyed on max(head ready, next send).
    Time compute_key(std::uint32_t qp) const {
        const Pacing& q = pacing_[qp];
        return std::max(packets_[q.fifo.head].ready, q.next_send);
    }
    void heap_push(std::uint32_t h, std::uint32_t qp);
    void build_heaps(std::uint32_t port);
    void drop_heaps(std::uint32_t port);
    void heap_remove(std::uint32_t qp);
    void heap_update(std::uint32_t qp);
    void sift_up(std::vector<std::uint32_t>& heap, std::uint32_t i);
    void sift_down(std::vector<std::uint32_t>& heap, std::uint32_t i);
    void heap_set(std::vector<std::uint32_t>& heap, std::uint32_t i, std::uint32_t qp) {
        heap[i] = qp;
        pacing_[qp].heap_pos = i;
    }

    // What every decision reads of a QP: one record, 32 bytes aligned, so one cache line (at
    // 48 bytes half the records straddled two; issue 19).
    struct alignas(32) Pacing {
        PacketFifo fifo;
        Time next_send = Time::zero();  // the earliest start of its next packet
        std::uint32_t queued = 0;       // packets in `fifo` (at most the pull window and a few more)
        std::uint32_t heap_pos = 0;     // its place in its heap
        std::uint8_t cls = 0;           // its class at its port
        bool listed = false;            // in its port's active list
        bool source_waits = false;      // its source holds packets back for the pull window
    };
    static_assert(sizeof(Pacing) == 32);
    // What only a port with ready heaps (many QPs with packets) reads of a QP.
    struct Order {
        Time key = Time::max();   // in its heap: max(head ready, next send)
        std::uint64_t stamp = 0;  // when it was last listed: the list is in stamp order
    };

    std::vector<PacketRecord>& packets_;
    Time qp_rate_interval_;
    // No timer events: a QP's congestion control runs the timer steps due by each input when
    // it comes (on_sent, on_cnp, on_ack each apply every step due by their time; sent() asks
    // for them before it reads the rate), which the CongestionControl contract makes the same
    // state as punctual on_timer calls. Nothing but the rate a packet is paced at reads that
    // state, so no event is needed: a DCQCN QP after a cut took one timer event per
    // microsecond (its α update) for at least 4 ms (docs/models/dcqcn.md). With rate samples
    // (outputs.qp_rates) the timers stay events, as the samples are taken at them.
    bool lazy_timers_;
    // By QP.
    std::vector<Pacing> pacing_;
    std::vector<Order> order_;
    std::vector<std::unique_ptr<congestion::CongestionControl>> cc_;
    std::vector<congestion::CnpPacer> pacer_;  // the receiving NIC's CNP spacing for the QP
    std::vector<std::uint32_t> port_;          // the NIC's uplink
    std::vector<std::uint8_t> prio_;
    std::vector<Time> timer_at_;   // the pending congestion-control timer
    std::vector<Time> last_call_;  // the CC object's clock never goes back
    // The pacing rate in payload terms, R_C x payload / line, and the rates (bit/s) it was
    // worked out for: the 128-bit product and division only when one changes, not per packet.
    struct PayloadPace {
        std::int64_t cc = -1, payload = 0, line = 0;
        Bandwidth rate;
    };
    std::vector<PayloadPace> pace_;
    std::vector<NodeId> src_, dst_;  // for the series' name and the CNP's way back
    std::vector<std::uint32_t> number_;
    std::vector<std::vector<QpSample>> rates_;  // sampled (outputs.qp_rates)
    // By port.
    std::vector<std::vector<std::uint32_t>> active_;  // QPs with packets, in the order they got them
    // The one QP with packets (most uplinks, most of the time), else kNoPacket: a flat array,
    // so that such a port's choice reads no list (a vector's header, then its heap block:
    // two dependent loads before the QP's record; issue 19).
    std::vector<std::uint32_t> solo_;
    std::vector<std::uint32_t> round_robin_;
    std::vector<std::uint32_t> heaps_of_;  // its first heap in heaps_ (kMaxClasses, one per class)
    std::vector<std::uint8_t> heaped_;     // its heaps are kept (many QPs hold packets)
    // By port and class (heaps_of_[port] + class).
    std::vector<std::vector<std::uint32_t>> heaps_;  // the listed QPs, a binary min-heap on key
    std::vector<std::uint64_t> class_packets_;       // packets its QPs hold
    std::uint64_t stamps_ = 0;
    // (port, src, dst, channel) -> the connection's first QP; asked once per message.
    struct ConnectionKey {
        std::uint64_t port_src, dst_channel;
        bool operator==(const ConnectionKey&) const = default;
    };
    struct ConnectionHash {
        std::size_t operator()(const ConnectionKey& k) const {
            return static_cast<std::size_t>((k.port_src * 0x9E3779B97F4A7C15ULL) ^
                                            (k.dst_channel + 0x632BE59BD9B4E019ULL));
        }
    };
    std::unordered_map<ConnectionKey, std::uint32_t, ConnectionHash> index_;
};

}  // namespace fabricsim::fabric
