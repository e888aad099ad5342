// Lossy admission at a shared-buffer switch (docs/models/pfc.md, "Lossy traffic"): a lossy
// packet is admitted against its egress queue's dynamic threshold (Choudhury & Hahne 1998;
// mmu.lossy_alpha, 8 by default, as SONiC's egress lossy profile sets it),
// so an incast that overflows one egress port does not drop a flow that only shares an
// ingress port with it. The decision by hand on SwitchMmu, then an iWARP incast beside a
// victim through the whole packet model.
#include <catch2/catch.hpp>

#include "fabric/packet/switch_mmu.hpp"
#include "iwarp_fixtures.hpp"

using namespace iwarp_test;
using fabricsim::fabric::DirectedLink;

namespace {

// Three plain hosts on one switch, one lossy queue (priority 3) per directed link.
struct Mmu {
    explicit Mmu(scenario::RoceSpec r = {}) : roce(r) {
        roce.lossless = false;
        const scenario::ClusterSpec c = hosts(3);
        topology = fabric::build_topology(c);
        for (std::uint32_t p = 0; p < topology.directed_link_count(); ++p) {
            layout.first.push_back(p);
            layout.port.push_back(p);
            layout.class_of.push_back(3);
        }
        layout.first.push_back(static_cast<std::uint32_t>(topology.directed_link_count()));
        for (std::uint32_t n = 0; n < topology.nodes().size(); ++n)
            if (fabric::is_fabric_switch(topology.nodes()[n].kind)) sw = fabric::NodeId{n};
        for (std::uint32_t p = 0; p < topology.directed_link_count(); ++p) {
            const auto d = DirectedLink::from_index(p);
            if (topology.target(d) == sw) into_switch.push_back(p);
            if (topology.source(d) == sw) out_of_switch.push_back(p);
        }
        mmu = std::make_unique<fabric::SwitchMmu>(topology, layout, roce, c.fabric.mtu, std::uint8_t{0});
    }
    fabric::Topology topology;
    fabric::QueueLayout layout;
    scenario::RoceSpec roce;
    fabric::NodeId sw;
    std::vector<std::uint32_t> into_switch, out_of_switch;
    std::unique_ptr<fabric::SwitchMmu> mmu;
};

// Admits packets of `p` bytes through ingress `in` into one egress queue until the MMU refuses
// one: how many it took.
std::int64_t fill(fabric::SwitchMmu& mmu, std::uint32_t in, Bytes p) {
    std::int64_t k = 0;
    while (mmu.admits_lossy(in, p * k, p)) {
        mmu.admit(in, p);
        ++k;
    }
    return k;
}

}  // namespace

TEST_CASE("lossy admission: an egress queue takes packets up to alpha x the free pool, another egress still admits",
          "[packet][mmu][lossy]") {
    Mmu s;
    REQUIRE(s.into_switch.size() == 3);
    REQUIRE(s.roce.mmu.lossy_alpha == 8.0);  // the default
    const std::uint32_t in = s.into_switch[0];
    const Bytes p = 4096_B;
    // Lossy mode carves only the reserve of each ingress port's one queue: S = buffer - 3 x 4 KiB.
    const std::int64_t shared = s.topology.node(s.sw).buffer.count() - 3 * 4096;
    REQUIRE(s.mmu->shared(s.sw).count() == shared);
    // With k packets in the hot queue (and so k P in use), packet k+1 goes in while
    // (k + 1) P <= 8 (S - k P) (an integer: no rounding), i.e. while 9 k P + P <= 8 S:
    // k = 0 .. floor((8 S - P) / 9P), one more than that bound in all. The queue then holds
    // about 8 S / 9.
    const std::int64_t admitted = (8 * shared - p.count()) / (9 * p.count()) + 1;
    CHECK(fill(*s.mmu, in, p) == admitted);
    CHECK_FALSE(s.mmu->admits_lossy(in, p * admitted, p));
    // The same ingress port, another egress: its threshold is 8 (S - used), about 8 S / 9 too,
    // so the victim's packet goes in while the hot queue refuses. A queue's threshold falls as
    // the others fill the pool: the cold queue may hold 8 (S - used), never more.
    const Bytes cold_limit{8 * (shared - admitted * p.count())};
    CHECK(s.mmu->admits_lossy(in, Bytes::zero(), p));
    CHECK(s.mmu->admits_lossy(in, cold_limit - p, p));
    CHECK_FALSE(s.mmu->admits_lossy(in, cold_limit - p + 1_B, p));
}

TEST_CASE("lossy admission: mmu.lossy_alpha sets the egress threshold, PFC's ingress alphas do not",
          "[packet][mmu][lossy]") {
    scenario::RoceSpec roce;
    roce.mmu.lossy_alpha = 0.5;
    roce.mmu.alpha = 4;
    roce.mmu.port_classes = {scenario::MmuPortClass{100_Gbps, 2}};  // every port of hosts(3) is 100G
    Mmu s(roce);
    const Bytes p = 4096_B;
    const std::int64_t shared = s.mmu->shared(s.sw).count();
    // alpha = 1/2: packet k+1 goes in while (k + 1) P <= floor((S - k P) / 2), i.e. 3 k P + 2 P <= S.
    CHECK(fill(*s.mmu, s.into_switch[0], p) == (shared - 2 * p.count()) / (3 * p.count()) + 1);
}

TEST_CASE("lossy admission: a victim through an uncongested egress is never dropped while an incast overflows another",
          "[packet][iwarp][lossy]") {
    // Hosts 1..8 each send 2 MiB to host 0 by NewReno over a 1 MB switch while host 1 also sends
    // 4 MiB to host 9: the victim shares host 1's ingress port with an incast flow, not its
    // egress. The incast's egress queue holds at most 8 (S - used), so at most 8 S / 9 (about
    // 890 KB): the 8 initial windows of 10 jumbo segments (720 KB) fit, the 8 windows of 20
    // that slow start sends a round trip later do not, and it drops. The victim's egress is fed
    // by host 1's one 100G uplink and drains at 100G, so its queue stays within a segment or
    // two, while its threshold is 8 x the free pool, at least 8 (S - 8 S / 9 - a few segments),
    // about 8 S / 9 too: nothing of the victim is dropped.
    const Time min_rto = 200_ms;
    const scenario::IwarpSpec iw = with_cc(scenario::TcpCongestion::newreno, min_rto);
    const scenario::ClusterSpec c = iwarp_hosts(10, iw, 1_MB);
    Model m(c, iwarp_spec(c, iw));
    Simulator sim(1);
    Sink sink;
    for (std::uint32_t s = 1; s <= 8; ++s) m.network.send(sim, msg(s - 1, s, 0, 2_MiB), sink);
    m.network.send(sim, msg(8, 1, 9, 4_MiB, 1), sink);
    sim.run();
    m.network.check_invariants(sim.now());
    REQUIRE(sink.at.size() == 9);
    for (Time t : sink.at) CHECK(t != Time::max());
    const DirectedLink to_receiver = m.routing.path(RankId{1}, RankId{0})[2];
    const DirectedLink to_victim = m.routing.path(RankId{1}, RankId{9})[2];
    const auto counters = m.network.counters();
    INFO("drops " << counters.drops << ", at the incast's egress " << m.network.egress_drops(to_receiver)
                  << ", victim done at " << sink.at[8].seconds() * 1e3 << " ms");
    CHECK(m.network.egress_drops(to_receiver) > 0);
    CHECK(m.network.egress_drops(to_victim) == 0);
    CHECK(counters.drops == m.network.egress_drops(to_receiver));  // every drop at the incast's port
    CHECK(m.network.max_queued(to_victim) <= Bytes{2 * (8928 + 110)});
    // Never dropped, never timed out: done well inside one retransmission timeout.
    CHECK(sink.at[8] < min_rto);
}
