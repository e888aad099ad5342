// NicScheduler (nic_scheduler.hpp) on its own: which QP each class of a NIC uplink offers,
// round robin among equals, pacing at the congestion-control rate, a class held by flow
// control, and the pull window. Packets are bare records in a pool.
#include <catch2/catch.hpp>

#include "core/rng.hpp"
#include "core/simulator.hpp"
#include "fabric/packet/nic_scheduler.hpp"

#include <memory>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::literals;
using fabric::NicScheduler;

namespace {

// A congestion control at a fixed rate, without timers.
class FixedRate final : public congestion::CongestionControl {
public:
    explicit FixedRate(Bandwidth rate) : rate_(rate) {}
    void on_ack(Time, Bytes) override {}
    void on_cnp(Time) override {}
    void on_sent(Time, Bytes size) override { sent += size; }
    void on_timer(Time) override {}
    Time next_timer() const override { return Time::max(); }
    Bandwidth rate() const override { return rate_; }
    Bytes sent = Bytes::zero();

private:
    Bandwidth rate_;
};

// Holds back one queue, lets everything else go.
class HoldQueue final : public fabric::LinkFlowControl {
public:
    explicit HoldQueue(std::uint32_t held) : held_(held) {}
    bool may_send(std::uint32_t q, Bytes, Time&) override { return q != held_; }
    void on_sent(Simulator&, std::uint32_t, Bytes) override {}
    bool on_ingress(Simulator&, std::uint32_t, Bytes) override { return true; }
    void on_drained(Simulator&, std::uint32_t, Bytes) override {}
    bool blocked(std::uint32_t q) const override { return q == held_; }
    void add_counters(FabricCounters&) const override {}
    void on_event(Simulator&, std::uint64_t) override {}

private:
    std::uint32_t held_;
};

struct Nic {
    Nic() : sched(packets, 1, Time::zero()) {}
    std::uint32_t add_qp(std::uint8_t cls, std::unique_ptr<congestion::CongestionControl> cc = nullptr) {
        const auto qp = static_cast<std::uint32_t>(sched.qps());
        sched.add_qp(std::move(cc), Time::zero(), 0, cls, cls, fabric::NodeId{0}, fabric::NodeId{1}, qp);
        return qp;
    }
    void send(std::uint32_t qp, Time ready, std::uint32_t bytes = 4096) {
        fabric::PacketRecord p;
        p.bytes = bytes;
        p.ready = ready;
        packets.push_back(p);
        sched.enqueue(sim, qp, static_cast<std::uint32_t>(packets.size() - 1));
    }
    NicScheduler::Offer offer(Time free_at, fabric::LinkFlowControl* fc = nullptr, std::uint32_t classes = 1) {
        NicScheduler::Offer o;
        sched.offer(0, free_at, fc, 0, classes, o);
        return o;
    }
    // Takes class c's offer; the QP it came from.
    std::uint32_t take(const NicScheduler::Offer& o, std::uint32_t c = 0) {
        std::uint32_t qp = 0;
        sched.take(0, o.pos[c], qp);
        return qp;
    }
    Simulator sim{1};
    std::vector<fabric::PacketRecord> packets;
    NicScheduler sched;
};

}  // namespace

TEST_CASE("NicScheduler: a class offers the QP whose packet may start first", "[packet][nic]") {
    Nic n;
    const auto a = n.add_qp(0), b = n.add_qp(0), c = n.add_qp(0);
    n.send(a, 5_ns);
    n.send(b, 2_ns);
    n.send(c, 3_ns);
    // The port is free at 0: start = max(free, ready, next send) is 5, 2 and 3 ns.
    const auto o = n.offer(Time::zero());
    CHECK(o.ready == 1u);
    CHECK(o.best == 2_ns);
    CHECK(n.take(o) == b);
    // Free at 4 ns: c may start at 4, a at 5.
    const auto o2 = n.offer(4_ns);
    CHECK(o2.best == 4_ns);
    CHECK(n.take(o2) == c);
}

TEST_CASE("NicScheduler: QPs that may start together take turns from the one after the last served", "[packet][nic]") {
    Nic n;
    const auto a = n.add_qp(0), b = n.add_qp(0), c = n.add_qp(0);
    for (int i = 0; i < 2; ++i)
        for (const auto qp : {a, b, c}) n.send(qp, Time::zero());
    // Everything is ready before the port falls free at 10 ns: they all tie there.
    std::vector<std::uint32_t> order;
    for (int i = 0; i < 6; ++i) order.push_back(n.take(n.offer(10_ns)));
    CHECK(order == std::vector<std::uint32_t>{a, b, c, a, b, c});
    CHECK(n.sched.queued(a) == 0);
}

TEST_CASE("NicScheduler: classes that may start first are all offered, and last marks a class's only packet",
          "[packet][nic]") {
    Nic n;
    const auto lo = n.add_qp(0), hi = n.add_qp(1), late = n.add_qp(2);
    n.send(lo, Time::zero());
    n.send(lo, Time::zero());
    n.send(hi, Time::zero());
    n.send(late, 1_us);
    const auto o = n.offer(Time::zero(), nullptr, 3);
    CHECK(o.held == 0b111u);
    CHECK(o.ready == 0b011u);  // class 2 starts later
    CHECK(o.last == 0b010u);   // class 1 holds one packet in all, class 0 two
    CHECK(o.start[2] == 1_us);
    CHECK(n.take(o, 1) == hi);
}

TEST_CASE("NicScheduler: a class its flow control holds offers nothing", "[packet][nic]") {
    Nic n;
    const auto lo = n.add_qp(0), hi = n.add_qp(1);
    n.send(lo, Time::zero());
    n.send(hi, Time::zero());
    HoldQueue hold(1);  // queue 1 = class 1 at a port whose first queue is 0
    const auto o = n.offer(Time::zero(), &hold, 2);
    CHECK(o.ready == 0b01u);
    CHECK(o.held == 0b11u);
    CHECK(o.start[1] == Time::max());
}

TEST_CASE("NicScheduler: a congestion-controlled QP's next packet waits size / rate after the last start",
          "[packet][nic][dcqcn]") {
    Nic n;
    auto cc = std::make_unique<FixedRate>(50_Gbps);
    FixedRate* rate = cc.get();
    const auto qp = n.add_qp(0, std::move(cc));
    n.send(qp, Time::zero());
    n.send(qp, Time::zero());
    const auto o = n.offer(Time::zero());
    CHECK(n.take(o) == qp);
    // 4096 B at 50 Gb/s of payload on a link whose payload rate is its line rate: 655.36 ns,
    // rounded up to the picosecond: 655 360 ps.
    CHECK_FALSE(n.sched.sent(n.sim, qp, Time::zero(), 4_KiB, 100_Gbps, 100_Gbps));
    CHECK(rate->sent == 4_KiB);
    CHECK(n.offer(100_ns).best == Time::ps(655'360));
    // With a payload rate of 90 % of the line, the wire time of the same payload is longer:
    // the QP's rate is in wire bits, 50 x 0.9 = 45 Gb/s of payload: 4096 x 8 / 45e9 s.
    n.take(n.offer(Time::ps(655'360)));
    n.send(qp, Time::zero());
    n.sched.sent(n.sim, qp, Time::zero(), 4_KiB, 90_Gbps, 100_Gbps);
    CHECK(n.offer(Time::zero()).best ==
          Time::ps((4096LL * 8 * 1'000'000'000'000LL + 45'000'000'000LL - 1) / 45'000'000'000LL));
}

TEST_CASE("NicScheduler: a QP holding the pull window holds its source until it has sent half of it", "[packet][nic]") {
    Nic n;
    const auto qp = n.add_qp(0);
    for (std::uint32_t i = 0; i + 1 < NicScheduler::kPullWindow; ++i) n.send(qp, Time::zero());
    CHECK_FALSE(n.sched.pull_full(qp));  // 63 packets
    n.send(qp, Time::zero());
    CHECK(n.sched.pull_full(qp));  // 64: the source waits
    // Sending 31 leaves 33 > 32: still waiting; the 32nd leaves 32: go on, once.
    int resumed = 0;
    for (int i = 0; i < 33; ++i) {
        const auto o = n.offer(Time::zero());
        n.take(o);
        if (n.sched.sent(n.sim, qp, Time::zero(), 4_KiB, 100_Gbps, 100_Gbps)) {
            ++resumed;
            CHECK(n.sched.queued(qp) == NicScheduler::kPullWindow / 2);
        }
    }
    CHECK(resumed == 1);
}

// A PFC-like flow control: queue `q` paused from `since` (only what starts before goes), or
// resumed at `resumed` after a pause from `since` (a start inside the pause moves to its end).
class PauseWindow final : public fabric::LinkFlowControl {
public:
    bool may_send(std::uint32_t q, Bytes, Time& start) override {
        if (q != queue) return true;
        if (paused) return start < since;
        if (start >= since && start < resumed) start = resumed;
        return true;
    }
    void on_sent(Simulator&, std::uint32_t, Bytes) override {}
    bool on_ingress(Simulator&, std::uint32_t, Bytes) override { return true; }
    void on_drained(Simulator&, std::uint32_t, Bytes) override {}
    bool blocked(std::uint32_t) const override { return paused; }
    void add_counters(FabricCounters&) const override {}
    void on_event(Simulator&, std::uint64_t) override {}
    std::uint32_t queue = 0;
    bool paused = false;
    Time since = Time::max(), resumed = Time::zero();
};

TEST_CASE("NicScheduler: the ready heap offers what a scan of every QP in turn offers", "[packet][nic]") {
    // Invariant: two schedulers fed the same QPs, packets and sends, one answering from its
    // heaps (while more than kHeapAbove QPs hold packets) and one scanning its list, offer the same QP, class and start
    // at every step, under no flow control and under a pause that holds or moves a class.
    for (const bool with_fc : {false, true}) {
        Nic heap, scan;
        Rng rng(with_fc ? 7 : 3, "test/nic-heap");
        PauseWindow pause;
        constexpr int kQps = 40;
        for (int i = 0; i < kQps; ++i) {
            const auto cls = static_cast<std::uint8_t>(i % 3);
            const bool paced = i % 4 == 0;  // a quarter run congestion control at their own rate
            const Bandwidth rate = Bandwidth::Gbps(10 + 5 * (i % 7));
            heap.add_qp(cls, paced ? std::make_unique<FixedRate>(rate) : nullptr);
            scan.add_qp(cls, paced ? std::make_unique<FixedRate>(rate) : nullptr);
        }
        Time free_at = Time::zero();
        int taken = 0, heaped = 0;
        for (int step = 0; step < 4000; ++step) {
            // New packets, ready at a few distinct times (ties are the point).
            const int arrivals = static_cast<int>(rng.uniform01() * 4);
            for (int a = 0; a < arrivals; ++a) {
                const auto qp = static_cast<std::uint32_t>(rng.uniform01() * kQps);
                const Time ready = free_at + Time::ns(100 * static_cast<std::int64_t>(rng.uniform01() * 4));
                heap.send(qp, ready);
                scan.send(qp, ready);
            }
            if (with_fc) {
                pause.queue = static_cast<std::uint32_t>(rng.uniform01() * 3);
                pause.paused = rng.uniform01() < 0.3;
                pause.since = free_at + Time::ns(100 * static_cast<std::int64_t>(rng.uniform01() * 4));
                pause.resumed = pause.since + Time::ns(50 * static_cast<std::int64_t>(rng.uniform01() * 6));
            }
            heaped += heap.sched.heaped(0) ? 1 : 0;
            NicScheduler::Offer h, s;
            heap.sched.offer(0, free_at, with_fc ? &pause : nullptr, 0, 3, h);
            scan.sched.offer(0, free_at, with_fc ? &pause : nullptr, 0, 3, s, true);
            INFO("step " << step);
            REQUIRE(h.ready == s.ready);
            REQUIRE(h.held == s.held);
            REQUIRE(h.last == s.last);
            REQUIRE(h.best == s.best);
            for (std::uint32_t c = 0; c < 3; ++c) {
                REQUIRE(h.start[c] == s.start[c]);
                if (s.start[c] != Time::max()) REQUIRE(h.pos[c] == s.pos[c]);
            }
            if (s.ready == 0) {
                free_at += 1_us;  // nothing may go: time passes
                continue;
            }
            const auto c = static_cast<std::uint32_t>(__builtin_ctz(s.ready));
            std::uint32_t qh = 0, qs = 0;
            const std::uint32_t kh = heap.sched.take(0, h.pos[c], qh);
            const std::uint32_t ks = scan.sched.take(0, s.pos[c], qs);
            REQUIRE(qh == qs);
            REQUIRE(kh == ks);
            heap.sched.sent(heap.sim, qh, s.best, 4_KiB, 100_Gbps, 100_Gbps);
            scan.sched.sent(scan.sim, qs, s.best, 4_KiB, 100_Gbps, 100_Gbps);
            free_at = s.best + Time::ns(300);
            ++taken;
        }
        CHECK(taken > 1000);
        CHECK(heaped > 1000);  // the heaps answered most offers (more than kHeapAbove QPs held packets)
    }
}
