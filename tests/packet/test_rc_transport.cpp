// RC transport in the packet model (docs/models/packet.md, "Transport"): ACKs on the reverse
// path, go-back-N in lossy mode, out-of-order placement, and cut-through forwarding.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using fabricsim::fabric::DirectedLink;

using namespace packet_test;

TEST_CASE("the receiver acknowledges every ack_every packets and each message's last one", "[packet][transport]") {
    for (const int every : {1, 4}) {
        scenario::RoceSpec roce = pfc_only();
        roce.ack_every = every;
        Model m(hosts(2), roce);
        Simulator sim(1);
        Sink sink;
        const std::int64_t packets = 10;
        m.network.send(sim, msg(0, 0, 1, 4_KiB * packets), sink);
        sim.run();
        REQUIRE(sink.at.size() == 1);
        // The ACKs are the only frames on host 1's uplink: 64 bytes each at 100G.
        const std::int64_t acks = every == 1 ? packets : packets / every + 1;  // 4, 8 and the 10th
        const DirectedLink back = m.uplink(1);
        CHECK(m.network.busy_time(back) ==
              transmit_time(Bytes{64}, m.topology.link(back.link).payload_bandwidth()) * acks);
        CHECK(m.network.bytes_sent(back) == Bytes::zero());  // no data
    }
}

namespace {

// 8 hosts send 2 MiB each to host 0 through a 1 MB switch: lossy or lossless.
struct IncastRun {
    explicit IncastRun(bool lossless, bool ooo = false, Time rto = 200_us) {
        scenario::ClusterSpec c = hosts(9);
        c.fabric.switch_spec.buffer = 1_MB;
        scenario::RoceSpec roce = pfc_only();
        roce.lossless = lossless;
        roce.pfc.enabled = lossless;
        roce.retransmit_timeout = rto;
        fabric::PacketModelSpec spec = model_spec(c, roce);
        spec.ooo_placement = ooo;
        model = std::make_unique<Model>(c, spec);
        for (std::uint32_t s = 1; s <= 8; ++s) model->network.send(sim, msg(s - 1, s, 0, 2_MiB), sink);
        sim.run();
        model->network.check_invariants(sim.now());
    }
    Simulator sim{1};
    Sink sink;
    std::unique_ptr<Model> model;
    Time last() const { return *std::max_element(sink.at.begin(), sink.at.end()); }
};

}  // namespace

TEST_CASE("lossy RoCE: an incast drops packets and go-back-N delivers every byte", "[packet][transport][lossy]") {
    IncastRun lossy(false);
    IncastRun lossless(true);
    REQUIRE(lossy.sink.at.size() == 8);
    for (Time t : lossy.sink.at) CHECK(t != Time::max());
    const auto c = lossy.model->network.counters();
    INFO("drops " << c.drops << ", sent again " << lossy.model->network.retransmitted() << ", timeouts "
                  << lossy.model->network.timeouts() << ", lossy " << lossy.last().seconds() << " s, lossless "
                  << lossless.last().seconds() << " s");
    CHECK(c.drops > 0);
    CHECK(c.lossless_drops == 0);  // nothing here is lossless
    // Go-back-N sends every dropped packet again, and the packets behind it.
    CHECK(lossy.model->network.retransmitted() >= c.drops);
    // The lossless run loses nothing and finishes at 16 MiB / 100G plus the pipeline; the
    // lossy one wastes the port on packets it sends twice.
    CHECK(lossless.model->network.counters().drops == 0);
    CHECK(lossless.model->network.retransmitted() == 0);
    CHECK(lossy.last().seconds() > lossless.last().seconds());
}

TEST_CASE("lossy RoCE with out-of-order placement recovers by the retransmission timeout",
          "[packet][transport][lossy]") {
    // The timeout must outlast a round trip behind a full queue: a lossy egress queue may hold
    // 8/9 of the 1 MB buffer (mmu.lossy_alpha = 8), 71 us at 100G, so 1 ms, not 100 us (below
    // which every timeout is spurious and go-back-N sends the queue again and again).
    const Time rto = 1_ms;
    IncastRun run(false, true, rto);
    REQUIRE(run.sink.at.size() == 8);
    for (Time t : run.sink.at) CHECK(t != Time::max());
    CHECK(run.model->network.counters().drops > 0);
    // No NAKs with placement: every recovery waited for a timeout.
    CHECK(run.model->network.timeouts() > 0);
    CHECK(run.last() > rto);
}

TEST_CASE("cut-through forwarding saves each switch a packet time on the idle path", "[packet][cut-through]") {
    // 8 hosts on two leaves (8-port switches): host 0 to host 4 crosses leaf, spine and leaf.
    scenario::ClusterSpec c = hosts(8);
    c.fabric.topology = scenario::TopologyKind::leaf_spine;
    c.fabric.switch_spec.radix = 8;
    Time latency[2];
    for (const bool cut : {false, true}) {
        fabric::PacketModelSpec spec = model_spec(c, pfc_only());
        spec.cut_through = cut;
        for (const Bytes size : {4_KiB, 64 * 4_KiB + 100_B}) {
            Model m(c, spec);
            const Message one = msg(0, 0, 4, size);
            const Time at = run_alone(m, one);
            // The closed form is exact with and without cut-through.
            CHECK(at == m.network.unloaded_time(one));
            if (size == 4_KiB) latency[cut ? 1 : 0] = at;
        }
    }
    const Model m(c, pfc_only());
    const DirectedLink first = m.routing.path(RankId{0}, RankId{4})[1];
    const Time tx = transmit_time(4_KiB, m.topology.link(first.link).payload_bandwidth());
    // Three switches, each starting the packet out a full packet time earlier.
    CHECK(latency[0] - latency[1] == tx * 3);
}
