// Credit flow control inside servers (credits.cpp). A NIC uplink reads each QP's data from
// memory when it schedules it (roce_nic.cpp, "NIC pull"), with or without DCQCN: a NIC held
// by PFC takes no PCIe credits for what waits in its QPs, and the host waits on the QPs' pull
// windows instead.
#include <catch2/catch.hpp>

#include "fabric/packet/credits.hpp"
#include "flow_control_fixtures.hpp"
#include "packet_fixtures.hpp"

#include <memory>
#include <optional>
#include <vector>

using namespace packet_test;

TEST_CASE("credits: a paused NIC holds its QPs' pull windows, not PCIe credits, and the host waits",
          "[packet][credits]") {
    Model m(small_buffer_hosts(3), pfc_only());  // XOFF reached soon: the senders' NICs get paused
    Simulator sim(1);
    Sink sink;
    two_to_one(m, sim, sink, 32_MiB);
    REQUIRE(sink.at.size() == 2);
    const auto counters = m.network.counters();
    CHECK(counters.pfc_pauses_sent > 0);
    // The NIC takes every packet off PCIe as it arrives (into its QP): no PCIe link waits for
    // credits, though the NICs were paused.
    CHECK(counters.credit_stall_time == Time::zero());
    for (std::uint32_t r : {0u, 1u}) {
        const auto path = m.routing.path(RankId{r}, RankId{2});
        REQUIRE(m.topology.link(path[0].link).type == fabric::LinkType::pcie);
        CHECK(m.network.paused_time(path[1]) > Time::zero());
        // The port's own FIFO carries control frames only: data waits in the QPs.
        CHECK(m.network.max_queued(path[1]) <= 4 * 64_KiB);
    }
    // Packets alive: at most each sender's QP window (64 packets of 4 KiB), the switch's 4 MB
    // (977 packets), the receiving NIC's 1 MiB buffer (256) and a few hundred on the wires and
    // PCIe, against the 2 x 8192 packets of the two messages.
    INFO("peak packets alive: " << m.network.peak_packets());
    CHECK(m.network.peak_packets() < 2 * 64 + 977 + 256 + 300);
    CHECK_NOTHROW(m.network.check_invariants(sim.now()));
}

// A segment below 1 KiB once gave the PCIe link 4 x segment < 4 KiB of credits, less than the
// 4 KiB MTU packet of a fabric message crossing it: the first packet waited for ever and the
// watchdog called it a PFC deadlock (lossy mode: go-back-N until time overflowed). Credits
// now cover kCreditSegments of the largest packet, so the segment, which only cuts messages
// inside a server, cannot change a fabric message's time: the idle pipeline's closed form.
TEST_CASE("credits: a segment below the MTU leaves a fabric message's time unchanged", "[packet][credits]") {
    const bool lossless = GENERATE(true, false);
    const Bytes segment = GENERATE(64_B, 512_B, 1_KiB, 64_KiB);
    scenario::ClusterSpec c = hosts(2);
    scenario::RoceSpec roce = pfc_only();
    roce.lossless = lossless;
    fabric::PacketModelSpec spec = model_spec(c, roce);
    spec.segment = segment;
    Model m(c, spec);
    const Message one = msg(0, 0, 1, 1_MiB);
    INFO("segment " << segment.count() << " B, lossless " << lossless);
    CHECK(run_alone(m, one) == m.network.unloaded_time(one));
}

namespace {

// The network's side, counting the wake-ups a return gives the sending port.
class CountingHost final : public fabric::FlowControlHost {
public:
    void catch_up(Simulator&, std::uint32_t) override {}
    void wake(Simulator&, std::uint32_t) override { ++wakes; }
    void drop_queue(Simulator&, std::uint32_t) override {}
    int wakes = 0;
};

// The receiver passes one packet of queue q on (on_drained) when this event comes, with the
// sending port busy until `sending_until` (idle: with nothing to send after it).
struct Drain final : EventTarget {
    Drain(fabric::Credits& c, std::uint32_t queue, Bytes bytes, Time until, bool idle_port = false)
        : credits(c), q(queue), size(bytes), sending_until(until), idle(idle_port) {}
    void on_event(Simulator& sim, std::uint64_t) override { credits.on_drained(sim, q, size, sending_until, idle); }
    fabric::Credits& credits;
    std::uint32_t q;
    Bytes size;
    Time sending_until;
    bool idle;
};

// Queue q's port becomes a source when this event comes (the network's will_send).
struct Queued final : EventTarget {
    Queued(fabric::Credits& c, std::uint32_t queue) : credits(c), q(queue) {}
    void on_event(Simulator& sim, std::uint64_t) override { credits.will_send(sim, q); }
    fabric::Credits& credits;
    std::uint32_t q;
};

// An event that does nothing: the clock moves on to it.
struct Tick final : EventTarget {
    void on_event(Simulator&, std::uint64_t) override {}
};

// Credits on a PCIe link of two hosts, for two 8 KiB packets (4 x 4 KiB), driven by hand.
struct Link {
    Link() : topology(fabric::build_topology(hosts(2))), layout(one_queue_per_link(topology, 0)) {
        for (std::uint32_t p = 0; p < topology.directed_link_count(); ++p)
            if (topology.link(fabric::DirectedLink::from_index(p).link).type == fabric::LinkType::pcie) {
                q = p;
                break;
            }
        d = topology.link(fabric::DirectedLink::from_index(q).link).propagation;
        credits.emplace(topology, layout, 4_KiB, host);
    }
    // Starts a packet at `at` if the credits allow; returns its start (Time::max() if refused).
    Time send(Simulator& sim, Time at, Bytes size = kPacket) {
        Time start = at;
        if (!credits->may_send(q, size, start)) return Time::max();
        credits->on_sent(sim, q, size);
        return start;
    }
    Time stall() const {
        FabricCounters c;
        credits->add_counters(c);
        return c.credit_stall_time;
    }
    static constexpr Bytes kPacket = 8_KiB;
    fabric::Topology topology;
    fabric::QueueLayout layout;
    std::uint32_t q = 0;
    Time d;
    CountingHost host;
    std::optional<fabric::Credits> credits;
};

}  // namespace

// Credits for two packets, a link of delay d: the third packet, asked for when the port fell
// free at 2 tx, waits for the first packet's credits, back at r1 + d, and starts then; the
// queue stalled from 2 tx to r1 + d. The port was free when they came back: one event, one wake.
TEST_CASE("credits: the third packet on credits for two starts when the first's credits are back",
          "[packet][credits]") {
    Link l;
    REQUIRE(l.d > Time::zero());
    Simulator sim(1);
    const Time tx = 700_ns, r1 = 3 * tx;
    CHECK(l.send(sim, Time::zero()) == Time::zero());
    CHECK(l.send(sim, tx) == tx);
    CHECK(l.send(sim, 2 * tx) == Time::max());  // no credits left
    CHECK(l.credits->blocked(l.q));
    Drain drain(*l.credits, l.q, Link::kPacket, 2 * tx);  // the port fell free at 2 tx
    sim.post(r1, drain);
    sim.run(r1);
    CHECK(sim.pending() == 1);  // the return, at r1 + d
    sim.run();
    CHECK(sim.now() == r1 + l.d);
    CHECK(l.host.wakes == 1);
    CHECK(l.send(sim, 2 * tx) == r1 + l.d);
    CHECK_FALSE(l.credits->blocked(l.q));
    CHECK(l.stall() == r1 + l.d - 2 * tx);
}

// A return that comes back while the port is still sending (it falls free at f > r1 + d)
// posts no event and wakes nothing: the port, asking at f, finds the credits back and starts
// at f, with no stall. A later return to the free port (r2 + d >= f) has its event, which
// counts in the earlier one first, as two events would have: a 16 KiB packet asked for at f
// needs both packets' credits and starts at the later return, r2 + d (counted the other way
// round, the start-time rule would read the earlier return, r1 + d < f, and start it at f).
TEST_CASE("credits: a return to a port still sending needs no event, and counts in order", "[packet][credits]") {
    Link l;
    Simulator sim(1);
    const Time r1 = 1000_ns, r2 = 2000_ns, f = r1 + l.d + 500_ns;
    REQUIRE(f <= r2 + l.d);
    CHECK(l.send(sim, Time::zero()) == Time::zero());
    CHECK(l.send(sim, 500_ns) == 500_ns);
    SECTION("the port asks when it falls free") {
        Drain first(*l.credits, l.q, Link::kPacket, f);
        sim.post(r1, first);
        sim.run();
        CHECK(sim.now() == r1);  // nothing after the drain
        CHECK(l.host.wakes == 0);
        CHECK(l.send(sim, f) == f);
        CHECK(l.stall() == Time::zero());
    }
    SECTION("a later return's event counts the earlier return first") {
        Drain first(*l.credits, l.q, Link::kPacket, f);
        Drain second(*l.credits, l.q, Link::kPacket, f);
        sim.post(r1, first);
        sim.post(r2, second);
        sim.run();
        CHECK(sim.now() == r2 + l.d);
        CHECK(l.host.wakes == 1);
        CHECK(l.send(sim, f, 16_KiB) == r2 + l.d);
        CHECK(l.send(sim, r2 + l.d) == Time::max());  // both packets' credits spent again
    }
}

// Eight 2 KiB packets on credits for 16 KiB: more pending returns than a ring's four entries
// at first (the ring moves to a larger one). Seven come back while the port is still sending
// (until f), the eighth at r8 + d >= f with an event, which counts in all eight in order: a
// 16 KiB packet asked for at f needs all of them and starts at r8 + d.
TEST_CASE("credits: more pending returns than a ring holds are counted in order", "[packet][credits]") {
    Link l;
    Simulator sim(1);
    const Time f = 750_ns + l.d;
    std::vector<std::unique_ptr<Drain>> drains;
    for (int i = 1; i <= 8; ++i) {
        CHECK(l.send(sim, Time::zero(), 2_KiB) == Time::zero());
        drains.push_back(std::make_unique<Drain>(*l.credits, l.q, 2_KiB, f));
        sim.post(100_ns * i, *drains.back());
    }
    CHECK(l.send(sim, Time::zero(), 2_KiB) == Time::max());  // refused at 0: the queue stalls from 0
    sim.run();
    CHECK(sim.now() == 800_ns + l.d);
    CHECK(l.host.wakes == 1);
    CHECK(l.send(sim, f, 16_KiB) == 800_ns + l.d);
    CHECK(l.stall() == 800_ns + l.d);
}

// Two 8 KiB packets spend all the credits; the port then idles with nothing queued (it fell
// free at 500 ns). Their returns, drained at r1 and r2, are due at r1 + d and r2 + d; woken
// then, the port would commit nothing, so neither has an event unless the port asks
// (may_send: a packet queued) before it is due.
TEST_CASE("credits: a return to a port with nothing to send waits for the port to ask", "[packet][credits]") {
    Link l;
    REQUIRE(l.d > Time::zero());
    REQUIRE(l.d <= 1000_ns);
    Simulator sim(1);
    const Time r1 = 1000_ns, r2 = 2000_ns;
    CHECK(l.send(sim, Time::zero()) == Time::zero());
    CHECK(l.send(sim, 500_ns) == 500_ns);
    Drain first(*l.credits, l.q, Link::kPacket, 500_ns, true);
    Drain second(*l.credits, l.q, Link::kPacket, 500_ns, true);
    sim.post(r1, first);
    sim.post(r2, second);
    SECTION("asked after both are due: no event; each counts in with its own time") {
        // A 16 KiB packet needs both returns: asked for at r1 + d it starts at r2 + d, as it
        // would have after two events (the second return's `before_return` is 8 KiB).
        Tick later;
        sim.post(r2 + l.d + 1_ns, later);
        sim.run();
        CHECK(sim.now() == r2 + l.d + 1_ns);  // nothing after the tick
        CHECK(l.host.wakes == 0);
        CHECK(l.send(sim, r1 + l.d, 16_KiB) == r2 + l.d);
        CHECK(l.stall() == Time::zero());
    }
    SECTION("asked between the two: the first is due and counted in; the second has its event") {
        sim.run(r2);
        CHECK(sim.pending() == 0);
        CHECK(l.send(sim, r2) == r2);           // the first's 8 KiB are back
        CHECK(sim.pending() == 1);              // the second return, at r2 + d
        CHECK(l.send(sim, r2) == Time::max());  // and spent: the queue waits for the second
        sim.run();
        CHECK(sim.now() == r2 + l.d);
        CHECK(l.host.wakes == 1);
        CHECK(l.send(sim, r2) == r2 + l.d);
        CHECK(l.stall() == l.d);
    }
    SECTION("the port becomes a source before the second is due: it has its event") {
        Queued source(*l.credits, l.q);
        sim.post(r2, source);  // after the second drain
        sim.run();
        CHECK(sim.now() == r2 + l.d);
        CHECK(l.host.wakes == 1);
    }
    SECTION("the network falls idle first: a return still on its way gets its event") {
        // The clock must run on to the last return, as it did when each return had an event.
        sim.run(r2);
        CHECK(sim.pending() == 0);
        l.credits->network_idle(sim);
        CHECK(sim.pending() == 1);  // the second, at r2 + d; the first was due at r1 + d
        sim.run();
        CHECK(sim.now() == r2 + l.d);
        CHECK(l.host.wakes == 1);
        CHECK(l.send(sim, r1 + l.d, 16_KiB) == r2 + l.d);
    }
}
