// Packet numbers past 2^32 (packet_count.hpp, docs/models/packet.md "Packets"). Counted in 32
// bits, a 16 TiB + 4 KiB message (2^32 + 1 packets of 4 KiB) was one packet "delivered" in
// under a microsecond, and exactly 16 TiB was zero packets that never finished. 2^32 packets
// cannot be simulated here, so the arithmetic is checked at the wrap point and the network is
// run long enough to see that such a message is cut into full packets and is not done early.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "fabric/packet/packet_count.hpp"
#include "packet_fixtures.hpp"

#include <limits>

using namespace packet_test;
using fabricsim::fabric::packet_count;
using fabricsim::fabric::packet_payload;
using fabricsim::fabric::qp_part_begin;
using fabricsim::fabric::qp_part_of;

namespace {
constexpr std::uint64_t k2to32 = std::uint64_t{1} << 32;
const Bytes k16TiB{std::int64_t{16} << 40};
}  // namespace

TEST_CASE("packet counts pass 2^32: 16 TiB of 4 KiB packets is 2^32 of them, 1 TiB of 256 B too", "[packet][count]") {
    // 16 TiB = 2^44 B; 2^44 / 2^12 = 2^32. One more 4 KiB is one more packet.
    CHECK(packet_count(k16TiB, 4096) == k2to32);
    CHECK(packet_count(k16TiB + 4_KiB, 4096) == k2to32 + 1);
    CHECK(packet_count(k16TiB + 1_B, 4096) == k2to32 + 1);
    // 1 TiB = 2^40 B over 2^8 B packets.
    CHECK(packet_count(Bytes{std::int64_t{1} << 40}, 256) == k2to32);
    // Empty messages are one empty packet; the largest Bytes (2^63 - 1) over 256 B is
    // (2^63 - 2) / 2^8 + 1 = (2^55 - 1) + 1 = 2^55 packets, with no overflow on the way.
    CHECK(packet_count(Bytes::zero(), 4096) == 1);
    CHECK(packet_count(Bytes{std::numeric_limits<std::int64_t>::max()}, 256) == std::uint64_t{1} << 55);
}

TEST_CASE("the payload of packets numbered past 2^32 is a full MTU, then the rest", "[packet][count]") {
    const Bytes size = k16TiB + 1_KiB;  // 2^32 full packets, then one of 1 KiB
    CHECK(packet_payload(size, 4096, 0) == 4096);
    CHECK(packet_payload(size, 4096, k2to32 - 1) == 4096);
    CHECK(packet_payload(size, 4096, k2to32) == 1024);   // the last, numbered 2^32 (0 in 32 bits)
    CHECK(packet_payload(size, 4096, k2to32 + 1) == 0);  // past the end
}

TEST_CASE("QP parts of a message of more than 2^32 packets split where they should", "[packet][count]") {
    // 2^33 + 2 packets over 2 QPs: part 1 starts at ceil((2^33 + 2) / 2) = 2^32 + 1.
    const std::uint64_t packets = 2 * k2to32 + 2;
    CHECK(qp_part_begin(0, packets, 2) == 0);
    CHECK(qp_part_begin(1, packets, 2) == k2to32 + 1);
    CHECK(qp_part_of(k2to32, packets, 2) == 0);
    CHECK(qp_part_of(k2to32 + 1, packets, 2) == 1);
    CHECK(qp_part_of(packets - 1, packets, 2) == 1);
    // Three parts of 3 * 2^32 packets: each exactly 2^32, starting at j * 2^32.
    for (std::uint32_t j = 0; j < 3; ++j) {
        CHECK(qp_part_begin(j, 3 * k2to32, 3) == j * k2to32);
        CHECK(qp_part_of(j * k2to32, 3 * k2to32, 3) == j);
        CHECK(qp_part_of((j + 1) * k2to32 - 1, 3 * k2to32, 3) == j);
    }
}

TEST_CASE("a message of 16 TiB or more is sent packet by packet and is not done early", "[packet][count]") {
    // 16 TiB + 4 KiB wrapped to one packet ("done" at 0.96 us); exactly 16 TiB to none (never
    // sent). Either way the first 20 us must carry full 4 KiB packets at the 100G line rate
    // and the message must still be on its way.
    // GENERATE over plain integers: given the lvalue k16TiB first, Catch2 v2 deduces a
    // generator of `const Bytes&` and keeps a dangling reference to the second, temporary value
    // (it read 1 B in the Debug/ASan build).
    const Bytes size = k16TiB + Bytes{GENERATE(std::int64_t{0}, std::int64_t{4096})};
    Model m(hosts(2), pfc_only());
    Simulator sim(1);
    Sink sink;
    m.network.send(sim, msg(0, 0, 1, size), sink);
    const Time stop = 20_us;
    sim.run(stop);
    CHECK(sink.at.empty());  // not delivered
    const auto uplink = m.uplink(0);
    const Bytes sent = m.network.bytes_sent(uplink);
    // Whole packets only; the NIC port has been busy since its first packet came off PCIe
    // (well under 1 us), so it sent at least (stop - 1 us) / t_packet - 1 of them, and at
    // most stop / t_packet + 1 (the last one started before the stop).
    const Time t_packet = transmit_time(4_KiB, m.topology.link(uplink.link).payload_bandwidth());
    CHECK(sent.count() % 4096 == 0);
    CHECK(sent / 4_KiB >= (stop - 1_us) / t_packet - 1);
    CHECK(sent / 4_KiB <= stop / t_packet + 1);
}

TEST_CASE("more than 2^32 MTU packets' worth of bytes through the counters: a 16 TiB + 4 KiB NVLink copy",
          "[packet][count][nvlink]") {
    // Inside a server with 1 GiB segments the copy is 16385 segments, so it runs here in full,
    // and every byte counter passes 2^44 B = 2^32 packets of 4 KiB on the way.
    const scenario::ClusterSpec c = hgx(1);
    fabric::PacketModelSpec spec = model_spec(c, pfc_only());
    spec.segment = 1_GiB;
    Model m(c, spec);
    const Bytes size = k16TiB + 4_KiB;
    Simulator sim(1);
    Sink sink;
    m.network.send(sim, msg(0, 0, 1, size), sink);
    sim.run();
    REQUIRE(sink.at.size() == 1);
    // GPU 0's 18 NVLink links carried the whole message between them, once.
    const fabric::NodeId gpu0 = m.topology.rank(RankId{0}).gpu;
    Bytes sent = Bytes::zero();
    Bandwidth total = Bandwidth::zero();
    for (std::uint32_t p = 0; p < m.topology.node(gpu0).ports.size(); ++p) {
        const fabric::DirectedLink d = m.topology.egress(gpu0, p);
        if (m.topology.link(d.link).type != fabric::LinkType::nvlink) continue;
        sent += m.network.bytes_sent(d);
        total = total + m.topology.link(d.link).payload_bandwidth();
    }
    CHECK(sent == size);
    CHECK(m.network.packets_in_flight() == 0);
    CHECK_NOTHROW(m.network.check_invariants(sim.now()));  // sent = delivered, in 64 bits
    // At the sum of the links' payload rates, within 1 % (the last segments do not fill all 18).
    CHECK(sink.at[0].seconds() == Approx(transmit_time(size, total).seconds()).epsilon(0.01));
}

TEST_CASE("a message of 2^40 packets or more is a model error that names the limit", "[packet][count]") {
    // A packet record holds its number in 40 bits: at most 2^40 - 1 packets of 4 KiB, that
    // is 2^52 - 4096 B; one byte more needs packet number 2^40.
    Model m(hosts(2), pfc_only());
    Simulator sim(1);
    Sink sink;
    const std::int64_t most = (std::int64_t{1} << 52) - 4096;
    CHECK_NOTHROW(m.network.send(sim, msg(0, 0, 1, Bytes{most}), sink));
    CHECK_THROWS_AS(m.network.send(sim, msg(1, 0, 1, Bytes{most + 1}), sink), ModelError);
    CHECK_THROWS_WITH(m.network.send(sim, msg(2, 0, 1, Bytes{most + 1}), sink),
                      Catch::Contains("1099511627776 packets of 4096 B; the model numbers packets in 40 bits"));
}
