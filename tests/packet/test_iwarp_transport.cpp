// iWARP's TCP offload engine in the packet model (docs/models/iwarp.md): line rate on an idle
// path, fast retransmit, the retransmission timeout, and incast on a shallow buffer.
#include <catch2/catch.hpp>

#include "iwarp_fixtures.hpp"

using namespace iwarp_test;
using fabricsim::fabric::DirectedLink;

TEST_CASE("iwarp: one flow on an idle path reaches the line rate less TCP/IP/MPA overheads", "[packet][iwarp]") {
    for (const auto cc :
         {scenario::TcpCongestion::newreno, scenario::TcpCongestion::cubic, scenario::TcpCongestion::dctcp}) {
        const scenario::IwarpSpec iw = with_cc(cc);
        const scenario::ClusterSpec c = iwarp_hosts(2, iw);
        Model m(c, iwarp_spec(c, iw, 200_KB));
        // A 9000-byte jumbo frame: MSS = 9000 - IPv4 20 - TCP 20 - timestamps 12 = 8948; of it,
        // MPA (length 2, CRC 4) and DDP/RDMAP (14) leave 8928 bytes of RDMA data. On the wire
        // the segment also carries Ethernet 38 (preamble, gap, header, FCS), IPv4 20, TCP 32:
        // 8928 + 110 = 9038 bytes. Efficiency 8928 / 9038 = 0.98783.
        REQUIRE(iw.mss == 8948_B);
        REQUIRE(scenario::iwarp_segment_payload(iw) == 8928_B);
        const double efficiency = 8928.0 / (8928.0 + 8 + 12 + 14 + 4 + 20 + 20 + 12 + 2 + 4 + 14);
        const Bytes size = 64_MiB;
        Simulator sim(1);
        Sink sink;
        m.network.send(sim, msg(0, 0, 1, size), sink);
        sim.run();
        REQUIRE(sink.at.size() == 1);
        // The bandwidth-delay product (100G x a few us, about 8 segments) is below the initial
        // window of 10 segments: the window never holds the sender back, and the message takes
        // its bytes at the payload rate plus one path latency (under 10 us here).
        const double goodput = static_cast<double>(size.count()) * 8 / sink.at[0].seconds();
        INFO("goodput " << goodput / 1e9 << " Gb/s");
        CHECK(goodput <= 100e9 * efficiency);
        CHECK(goodput >= 100e9 * efficiency * (1 - 10e-6 / sink.at[0].seconds()));
        CHECK(m.network.retransmitted() == 0);
        CHECK(m.network.timeouts() == 0);
    }
}
