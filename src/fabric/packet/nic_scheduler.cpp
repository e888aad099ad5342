#include "fabric/packet/nic_scheduler.hpp"

#include "core/simulator.hpp"
#include "core/time_limits.hpp"

#include <algorithm>

namespace fabricsim::fabric {

NicScheduler::NicScheduler(std::vector<PacketRecord>& packets, std::size_t ports, Time qp_rate_interval)
    : packets_(packets),
      qp_rate_interval_(qp_rate_interval),
      lazy_timers_(qp_rate_interval <= Time::zero()),
      active_(ports),
      solo_(ports, kNoPacket),
      round_robin_(ports, 0),
      heaps_of_(ports, UINT32_MAX),
      heaped_(ports, 0) {}

std::pair<std::uint32_t, bool> NicScheduler::connection(std::uint32_t port, NodeId src, NodeId dst,
                                                        std::uint32_t channel) {
    const ConnectionKey key{std::uint64_t{port} << 32 | src.value(), std::uint64_t{dst.value()} << 32 | channel};
    const auto [it, inserted] = index_.try_emplace(key, static_cast<std::uint32_t>(cc_.size()));
    return {it->second, inserted};
}

void NicScheduler::add_qp(std::unique_ptr<congestion::CongestionControl> cc, Time cnp_interval, std::uint32_t port,
                          std::uint8_t prio, std::uint8_t cls, NodeId src, NodeId dst, std::uint32_t number) {
    Pacing p;
    p.cls = cls;
    pacing_.push_back(p);
    order_.emplace_back();
    if (heaps_of_[port] == UINT32_MAX) {  // the port's first QP: its heaps
        heaps_of_[port] = static_cast<std::uint32_t>(heaps_.size());
        heaps_.resize(heaps_.size() + kMaxClasses);
        class_packets_.resize(heaps_.size(), 0);
    }
    cc_.push_back(std::move(cc));
    pacer_.emplace_back(cnp_interval);
    port_.push_back(port);
    prio_.push_back(prio);
    timer_at_.push_back(Time::max());
    last_call_.push_back(Time::zero());
    pace_.emplace_back();
    src_.push_back(src);
    dst_.push_back(dst);
    number_.push_back(number);
    rates_.emplace_back();
}

void NicScheduler::enqueue(Simulator& sim, std::uint32_t qp, std::uint32_t packet) {
    Pacing& q = pacing_[qp];
    // With timer events (rate samples), a QP with nothing to send keeps none (arm_timer); when
    // data comes back its congestion control first catches up on the timer events it missed, in
    // order, as the CongestionControl contract allows. Without, sent() catches up.
    if (!lazy_timers_ && cc_[qp] != nullptr && q.fifo.empty() && cc_[qp]->next_timer() <= sim.now())
        cc_call(sim, qp, CcInput::timer);
    q.fifo.push(packets_, packet);
    ++q.queued;
    const std::uint32_t h = heaps_of_[port_[qp]] + q.cls;
    ++class_packets_[h];
    if (!q.listed) {
        q.listed = true;
        order_[qp].stamp = stamps_++;
        const std::uint32_t port = port_[qp];
        active_[port].push_back(qp);
        solo_[port] = active_[port].size() == 1 ? qp : kNoPacket;
        if (heaped_[port] != 0)
            heap_push(h, qp);
        else if (active_[port].size() > kHeapAbove)
            build_heaps(port);
    }
}

void NicScheduler::build_heaps(std::uint32_t port) {
    heaped_[port] = 1;
    for (const std::uint32_t qp : active_[port]) heap_push(heaps_of_[port] + pacing_[qp].cls, qp);
}

void NicScheduler::drop_heaps(std::uint32_t port) {
    heaped_[port] = 0;
    for (std::uint32_t c = 0; c < kMaxClasses; ++c) heaps_[heaps_of_[port] + c].clear();
}

void NicScheduler::offer(std::uint32_t port, Time free_at, LinkFlowControl* fc, std::uint32_t first,
                         std::uint32_t classes, Offer& out, bool scan) const {
    out.start.fill(Time::max());
    if (const std::uint32_t qp = solo_[port]; qp != kNoPacket) {  // one QP holds packets: its head is the offer
        const Pacing& q = pacing_[qp];
        const PacketRecord& head = packets_[q.fifo.head];
        Time start = std::max({free_at, head.ready, q.next_send});
        out.held = 1u << q.cls;
        if (start == Time::max() || (fc != nullptr && !fc->may_send(first + q.cls, Bytes{head.bytes}, start))) return;
        out.start[q.cls] = start;
        out.pos[q.cls] = 0;
        out.best = start;
        out.ready = out.held;
        out.last = q.queued == 1 ? out.held : 0;
        return;
    }
    std::array<std::uint32_t, kMaxClasses> last_packets{};  // packets the class holds, up to 2
    if (scan || heaped_[port] == 0) {
        scan_offer(port, free_at, fc, first, out, last_packets);
    } else {
        for (std::uint32_t c = 0; c < classes; ++c) {
            const std::uint32_t h = heaps_of_[port] + c;
            const std::vector<std::uint32_t>& heap = heaps_[h];
            if (heap.empty()) continue;
            out.held |= 1u << c;
            last_packets[c] = static_cast<std::uint32_t>(std::min<std::uint64_t>(2, class_packets_[h]));
            // The earliest start of any of its QPs; the flow control's answer for then holds
            // for every packet of the class (it moves the start past a pause that ended, or
            // refuses what a pause holds, the same for each).
            Time start = std::max(free_at, order_[heap[0]].key);
            if (fc != nullptr && !fc->may_send(first + c, Bytes{packets_[pacing_[heap[0]].fifo.head].bytes}, start))
                continue;
            // Every QP whose start comes to the same: round robin among them.
            out.start[c] = start;
            out.pos[c] = first_in_turn(port, h, start);
        }
    }
    for (std::uint32_t c = 0; c < classes; ++c) {
        if (out.start[c] > out.best || out.start[c] == Time::max()) continue;
        if (out.start[c] < out.best) {
            out.best = out.start[c];
            out.ready = 0;
            out.last = 0;
        }
        out.ready |= 1u << c;
        if (last_packets[c] == 1) out.last |= 1u << c;
    }
}

// The scan of every listed QP in turn, asking the flow control for each.
void NicScheduler::scan_offer(std::uint32_t port, Time free_at, LinkFlowControl* fc, std::uint32_t first, Offer& out,
                              std::array<std::uint32_t, kMaxClasses>& last_packets) const {
    const std::vector<std::uint32_t>& active = active_[port];
    const std::size_t n = active.size();
    const std::uint32_t rr = round_robin_[port];
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t pos = (rr + i) % n;
        const Pacing& q = pacing_[active[pos]];
        const std::uint32_t c = q.cls;
        out.held |= 1u << c;
        last_packets[c] = std::min<std::uint32_t>(
            2, last_packets[c] + static_cast<std::uint32_t>(std::min<std::uint64_t>(2, q.queued)));
        const PacketRecord& head = packets_[q.fifo.head];
        Time start = std::max({free_at, head.ready, q.next_send});
        if (start >= out.start[c]) continue;
        if (fc != nullptr && !fc->may_send(first + c, Bytes{head.bytes}, start)) continue;  // credits hold it
        if (start >= out.start[c]) continue;
        out.start[c] = start;
        out.pos[c] = static_cast<std::uint32_t>(pos);
    }
}

std::uint32_t NicScheduler::first_in_turn(std::uint32_t port, std::uint32_t h, Time by) const {
    const std::vector<std::uint32_t>& active = active_[port];
    const std::vector<std::uint32_t>& heap = heaps_[h];
    const std::uint32_t rr = round_robin_[port];
    // The QP in turn is ready (always so when all tie, the port busy): it is the one, in O(1).
    if (pacing_[active[rr]].cls == pacing_[heap[0]].cls && order_[active[rr]].key <= by) return rr;
    const std::uint64_t from = order_[active[rr]].stamp;  // the list is in stamp order
    // Few QPs tie (a paced QP's next send time is its own): walk the heap's top, where they are.
    constexpr std::uint32_t kFew = 16;
    std::array<std::uint32_t, kFew> todo;
    std::uint32_t todo_n = 0, seen = 0;
    std::uint32_t best = UINT32_MAX;
    std::uint64_t best_turn = UINT64_MAX;
    todo[todo_n++] = 0;
    while (todo_n > 0 && seen < kFew) {
        const std::uint32_t i = todo[--todo_n];
        const std::uint32_t qp = heap[i];
        ++seen;
        const std::uint64_t stamp = order_[qp].stamp;
        // Its turn after `from`: those at or after it first, then the list from its start.
        const std::uint64_t turn = stamp >= from ? stamp - from : stamp + (UINT64_MAX / 2);
        if (turn < best_turn) {
            best_turn = turn;
            best = qp;
        }
        for (std::uint32_t child = 2 * i + 1; child <= 2 * i + 2 && child < heap.size(); ++child)
            if (order_[heap[child]].key <= by) {
                if (todo_n == kFew) {
                    seen = kFew;  // too many: walk the list instead
                    break;
                }
                todo[todo_n++] = child;
            }
    }
    if (seen < kFew) {
        // Its place in the list, which is in stamp order.
        const auto it = std::lower_bound(active.begin(), active.end(), order_[best].stamp,
                                         [&](std::uint32_t qp, std::uint64_t s) { return order_[qp].stamp < s; });
        return static_cast<std::uint32_t>(it - active.begin());
    }
    // Many tie (the port is busy and they all wait for it): the first in turn is near.
    const std::size_t n = active.size();
    const std::uint8_t cls = pacing_[heap[0]].cls;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t pos = (rr + i) % n;
        if (pacing_[active[pos]].cls == cls && order_[active[pos]].key <= by) return static_cast<std::uint32_t>(pos);
    }
    return 0;  // unreachable: the heap's top is in the list
}

std::uint32_t NicScheduler::take(std::uint32_t port, std::uint32_t pos, std::uint32_t& qp) {
    std::vector<std::uint32_t>& active = active_[port];
    const bool solo = solo_[port] != kNoPacket;  // the list holds it alone: pos is 0
    qp = solo ? solo_[port] : active[pos];
    Pacing& q = pacing_[qp];
    const std::uint32_t k = q.fifo.pop(packets_);
    --q.queued;
    --class_packets_[heaps_of_[port] + q.cls];
    if (q.fifo.empty()) {
        q.listed = false;
        if (heaped_[port] != 0) heap_remove(qp);
        active.erase(active.begin() + static_cast<std::ptrdiff_t>(pos));
        solo_[port] = active.size() == 1 ? active[0] : kNoPacket;
        round_robin_[port] = active.empty() ? 0 : static_cast<std::uint32_t>(pos % active.size());
        if (heaped_[port] != 0 && active.size() < kHeapBelow) drop_heaps(port);
    } else {
        round_robin_[port] = solo ? 0 : static_cast<std::uint32_t>((pos + 1) % active.size());
        if (heaped_[port] != 0) {
            heap_update(qp);  // its next packet's ready time
        } else {
            // The QP's next packet waited behind this one long enough to go cold; the next
            // choice at this port reads its ready time.
            __builtin_prefetch(&packets_[q.fifo.head]);
        }
    }
    return k;
}

bool NicScheduler::sent(Simulator& sim, std::uint32_t qp, Time start, Bytes size, Bandwidth payload, Bandwidth line) {
    Pacing& q = pacing_[qp];
    if (cc_[qp] == nullptr) {  // no congestion control: the port's pace alone
        q.next_send = start;
    } else {
        // The rate after every timer event due by now (see lazy_timers_).
        if (lazy_timers_) {
            const Time t = std::max(last_call_[qp], sim.now());
            if (cc_[qp]->next_timer() <= t) {
                cc_[qp]->on_timer(t);
                last_call_[qp] = t;
            }
        }
        // Pace in wire bytes: the payload at the link's efficiency.
        const std::int64_t rc = cc_[qp]->rate().bits_per_second();
        PayloadPace& pace = pace_[qp];
        if (rc != pace.cc || payload.bits_per_second() != pace.payload || line.bits_per_second() != pace.line) {
            pace = {rc, payload.bits_per_second(), line.bits_per_second(),
                    std::max(Bandwidth::bps(static_cast<std::int64_t>(
                                 static_cast<__int128>(rc) * payload.bits_per_second() / line.bits_per_second())),
                             Bandwidth::bps(1))};
        }
        q.next_send = checked_add(start, transmit_time(size, pace.rate), "packet model: a paced QP's next packet");
        cc_call(sim, qp, CcInput::sent, size);
    }
    if (q.listed && heaped_[port_[qp]] != 0) heap_update(qp);
    if (!pacing_[qp].source_waits || pacing_[qp].queued > kPullWindow / 2) return false;
    pacing_[qp].source_waits = false;
    return true;
}

bool NicScheduler::pull_full(std::uint32_t qp) {
    Pacing& q = pacing_[qp];
    if (q.queued < kPullWindow) return false;
    q.source_waits = true;
    return true;
}

void NicScheduler::heap_push(std::uint32_t h, std::uint32_t qp) {
    std::vector<std::uint32_t>& heap = heaps_[h];
    order_[qp].key = compute_key(qp);
    heap.push_back(qp);
    pacing_[qp].heap_pos = static_cast<std::uint32_t>(heap.size() - 1);
    sift_up(heap, pacing_[qp].heap_pos);
}

void NicScheduler::heap_remove(std::uint32_t qp) {
    std::vector<std::uint32_t>& heap = heaps_[heaps_of_[port_[qp]] + pacing_[qp].cls];
    const std::uint32_t i = pacing_[qp].heap_pos;
    const std::uint32_t moved = heap.back();
    heap.pop_back();
    if (moved == qp) return;
    heap_set(heap, i, moved);
    sift_up(heap, i);
    sift_down(heap, pacing_[moved].heap_pos);
}

void NicScheduler::heap_update(std::uint32_t qp) {
    std::vector<std::uint32_t>& heap = heaps_[heaps_of_[port_[qp]] + pacing_[qp].cls];
    order_[qp].key = compute_key(qp);
    sift_up(heap, pacing_[qp].heap_pos);
    sift_down(heap, pacing_[qp].heap_pos);
}

void NicScheduler::sift_up(std::vector<std::uint32_t>& heap, std::uint32_t i) {
    const std::uint32_t qp = heap[i];
    while (i > 0) {
        const std::uint32_t parent = (i - 1) / 2;
        if (order_[heap[parent]].key <= order_[qp].key) break;
        heap_set(heap, i, heap[parent]);
        i = parent;
    }
    heap_set(heap, i, qp);
}

void NicScheduler::sift_down(std::vector<std::uint32_t>& heap, std::uint32_t i) {
    const std::uint32_t qp = heap[i];
    const auto n = static_cast<std::uint32_t>(heap.size());
    for (;;) {
        std::uint32_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && order_[heap[child + 1]].key < order_[heap[child]].key) ++child;
        if (order_[qp].key <= order_[heap[child]].key) break;
        heap_set(heap, i, heap[child]);
        i = child;
    }
    heap_set(heap, i, qp);
}

void NicScheduler::cc_call(Simulator& sim, std::uint32_t qp, CcInput why, Bytes size) {
    congestion::CongestionControl* cc = cc_[qp].get();
    if (cc == nullptr) return;  // a QP without congestion control
    const Time t = std::max(last_call_[qp], sim.now());
    last_call_[qp] = t;
    switch (why) {
        case CcInput::sent: cc->on_sent(t, size); break;
        case CcInput::cnp: cc->on_cnp(t); break;
        case CcInput::ack: cc->on_ack(t, size); break;
        case CcInput::timer: cc->on_timer(t); break;
    }
    if (qp_rate_interval_ > Time::zero()) {
        std::vector<QpSample>& rates = rates_[qp];
        const QpSample now{t, cc->rate(), cc->table_index()};
        if (rates.empty() || ((now.rate != rates.back().rate || now.ccti != rates.back().ccti) &&
                              t >= rates.back().at + qp_rate_interval_))
            rates.push_back(now);
    }
    arm_timer(sim, qp);
}

void NicScheduler::arm_timer(Simulator& sim, std::uint32_t qp) {
    const congestion::CongestionControl* cc = cc_[qp].get();
    if (cc == nullptr || lazy_timers_) return;
    const Time next = cc->next_timer();
    if (next == Time::max() || pacing_[qp].fifo.empty()) return;  // idle QPs catch up when data returns
    const Time at = std::max(next, sim.now());
    if (timer_at_[qp] <= at && timer_at_[qp] >= sim.now()) return;  // an earlier or equal one is pending
    timer_at_[qp] = at;
    sim.post(at, *this, qp);
}

void NicScheduler::on_event(Simulator& sim, std::uint64_t arg) {
    const auto qp = static_cast<std::uint32_t>(arg);
    if (timer_at_[qp] != sim.now()) return;  // re-armed since
    timer_at_[qp] = Time::max();
    cc_call(sim, qp, CcInput::timer);
}

}  // namespace fabricsim::fabric
