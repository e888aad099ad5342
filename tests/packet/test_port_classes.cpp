// Per-port-speed RoCE settings (cluster.roce.ecn.port_classes, cluster.roce.mmu.port_classes;
// docs/SCENARIO.md): the RED thresholds and the PFC dynamic-threshold alpha of a port come from
// its speed's class when there is one, from the section's values otherwise.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using fabricsim::fabric::DirectedLink;

using namespace packet_test;

TEST_CASE("ECN thresholds: a port's speed class, else kmin/kmax, each auto scaled at the port's speed",
          "[packet][ecn][port-classes]") {
    scenario::EcnSpec ecn;
    // No class: 100 KB and 400 KB per 25 Gb/s: 400 KB / 1600 KB at 100G, 1600 KB / 6400 KB at 400G.
    CHECK(scenario::ecn_thresholds(ecn, 100_Gbps).kmin == Bytes{400'000});
    CHECK(scenario::ecn_thresholds(ecn, 400_Gbps).kmax == Bytes{6'400'000});
    ecn.kmin = Bytes{50'000};
    ecn.port_classes.push_back({400_Gbps, Bytes{3'000'000}, std::nullopt});
    // 400G: the class's kmin, and its auto kmax scaled at 400G; 100G: the section's kmin.
    CHECK(scenario::ecn_thresholds(ecn, 400_Gbps).kmin == Bytes{3'000'000});
    CHECK(scenario::ecn_thresholds(ecn, 400_Gbps).kmax == Bytes{6'400'000});
    CHECK(scenario::ecn_thresholds(ecn, 100_Gbps).kmin == Bytes{50'000});
    CHECK(scenario::ecn_thresholds(ecn, 100_Gbps).kmax == Bytes{1'600'000});

    scenario::MmuSpec mmu;
    mmu.port_classes.push_back({400_Gbps, 0.5});
    CHECK(scenario::mmu_alpha(mmu, 400_Gbps) == 0.5);
    CHECK(scenario::mmu_alpha(mmu, 100_Gbps) == 0.125);
}

TEST_CASE("PFC: an ingress port's speed class sets its dynamic threshold alpha", "[packet][pfc][port-classes]") {
    // Two 100G senders into one 100G receiver under PFC alone (test_pfc.cpp): with alpha 1/8 the
    // senders' ingress queues climb past 1/16 of the shared buffer. Give the 100G ports alpha
    // 1/64: XOFF is at most 1/64 of the free shared buffer, so no ingress queue may pass
    // reserved + shared/64 + its headroom, and the two still share the bottleneck half and half.
    scenario::RoceSpec roce = pfc_only();
    roce.mmu.port_classes.push_back({100_Gbps, 1.0 / 64});
    Model m(small_buffer_hosts(3), roce);
    Simulator sim(1);
    Sink sink;
    const Bytes size = 8_MiB;
    two_to_one(m, sim, sink, size);
    REQUIRE(sink.at.size() == 2);
    const auto c = m.network.counters();
    CHECK(c.lossless_drops == 0);
    CHECK(c.pfc_pauses_sent > 0);
    const DirectedLink down = m.routing.path(RankId{0}, RankId{2})[2];
    const double two_s = transmit_time(size * 2, m.topology.link(down.link).payload_bandwidth()).seconds();
    for (std::uint32_t r : {0u, 1u}) {
        CHECK(sink.at[r].seconds() == Approx(two_s).epsilon(0.02));
        const DirectedLink in = m.uplink(r);
        const Bytes reserved = scenario::MmuSpec{}.reserved_per_queue;
        const Bytes shared = 4_MB - (m.network.headroom(in) + reserved) * 3;
        CHECK(m.network.max_ingress(in) <= reserved + shared / 64 + m.network.headroom(in));
        CHECK(m.network.max_ingress(in) < reserved + shared / 16);  // where alpha 1/8 takes it
    }
}
