// Idle fabric: a ring all-reduce on the packet model against the α–β formula with the model's
// own α and B (issue 7; docs/VALIDATION.md):
//
//   T = 2(n−1)·α + 2(n−1)/n·S/B
//
// where B is the payload rate of the path's slowest link and α the model's own per-step
// latency: the unloaded time of one ring block between neighbours (S/n, at most the 512 KiB
// message) less its serialisation at B — every hop's propagation and forwarding latency and
// the store-and-forward of a packet (a segment inside the server) per hop after the first. One channel (the textbook
// ring: with several, one channel's step latency hides behind another's bytes). On an idle
// fabric every ring step's messages use disjoint links, so the steps run back to back at B.
#include <catch2/catch.hpp>

#include "packet_fixtures.hpp"

using namespace packet_test;

namespace {

struct Case {
    int hosts;
    Bytes size;
};

}  // namespace

TEST_CASE("idle fabric: ring all-reduce within 2% of the alpha-beta formula with the model's alpha and B",
          "[validation]") {
    for (const Case c : {Case{8, 512_KiB}, Case{8, 64_MiB}, Case{16, 4_MiB}}) {
        const auto cluster = hosts(c.hosts);
        Model m(cluster, pfc_only());
        const auto run = run_all_reduce(m, cluster, scenario::CollectiveAlgorithm::ring, c.size, 1);
        REQUIRE(run.finished);

        Bandwidth b = Bandwidth::bps(INT64_MAX);
        for (fabric::DirectedLink d : m.routing.path(RankId{0}, RankId{1}))
            b = std::min(b, m.topology.link(d.link).payload_bandwidth());
        const Bytes block = std::min(c.size / c.hosts, workloads::kMessageBytes);
        const Time alpha = m.network.unloaded_time(msg(0, 0, 1, block)) - transmit_time(block, b);
        const std::int64_t n = c.hosts;
        const double formula = 2.0 * static_cast<double>(n - 1) * alpha.seconds() +
                               2.0 * static_cast<double>(n - 1) / static_cast<double>(n) * c.size.count() * 8.0 /
                                   static_cast<double>(b.bits_per_second());
        INFO(c.hosts << " hosts, " << c.size.count() << " B: simulated " << run.measured.time.seconds() << " s, alpha "
                     << alpha.seconds() << " s, formula " << formula << " s");
        CHECK(run.measured.time.seconds() == Approx(formula).epsilon(0.02));
    }
}
