// Buffers and credits count the bytes a packet occupies, not its payload (docs/models/pfc.md,
// docs/models/infiniband.md): a RoCE switch's MMU and PFC thresholds count the Ethernet frame
// (payload + cluster.roce.header_bytes less the 20 bytes of preamble and gap), InfiniBand credits
// count payload + cluster.infiniband.header_bytes in 64-byte blocks, and PFC headroom counts the
// line time of whole frames on the wire. Each expected value is worked out in its comment.
#include <catch2/catch.hpp>

#include "fabric/packet/ib_credits.hpp"
#include "fabric/packet/pfc.hpp"
#include "fabric/packet/switch_mmu.hpp"
#include "fabric/pfc_headroom.hpp"
#include "flow_control_fixtures.hpp"
#include "packet_fixtures.hpp"

#include <algorithm>
#include <optional>
#include <vector>

using namespace packet_test;
using fabricsim::fabric::DirectedLink;

namespace {

// Two hosts on one switch, one queue per directed link (class `cls`).
struct Layout {
    Layout(const scenario::ClusterSpec& c, std::uint8_t cls)
        : topology(fabric::build_topology(c)), layout(one_queue_per_link(topology, cls)) {}
    // A queue whose link leads into the switch.
    std::uint32_t into_switch() const {
        for (std::uint32_t p = 0; p < topology.directed_link_count(); ++p)
            if (fabric::is_fabric_switch(topology.node(topology.target(DirectedLink::from_index(p))).kind)) return p;
        FAIL("no link into the switch");
        return 0;
    }
    fabric::Topology topology;
    fabric::QueueLayout layout;
};

scenario::ClusterSpec ib_hosts() {
    scenario::ClusterSpec c = hosts(2, 400_Gbps);
    c.fabric.technology = scenario::Technology::infiniband;
    c.fabric.switch_spec.technology = scenario::Technology::infiniband;
    return c;
}

}  // namespace

TEST_CASE("a RoCE frame in a buffer is payload + header_bytes - 20: the preamble and gap are line time only",
          "[packet][pfc][wire]") {
    // 82 on the wire = 8 preamble/SFD + 12 gap + 62 of frame (Ethernet 14, IPv4 20, UDP 8, BTH 12,
    // ICRC 4, FCS 4): a 4 KiB packet is 4158 B in a buffer and 4178 B of line time.
    CHECK(fabric::roce_frame_in_buffer(4_KiB) == Bytes{4'158});
    CHECK(fabric::roce_frame_on_wire(4_KiB) == Bytes{4'178});
    // A VLAN tag (4) and IPv6 (+20): 106 on the wire, 86 held.
    CHECK(fabric::roce_frame_in_buffer(4_KiB, Bytes{106}) == Bytes{4'096 + 86});
    CHECK(fabric::roce_frame_in_buffer(4_KiB, Bytes{0}) == 4_KiB);  // no headers: nothing to take off
}

TEST_CASE("the switch MMU counts frames: XOFF is crossed by the frame that takes it past, not the payload",
          "[packet][pfc][mmu][wire]") {
    const scenario::ClusterSpec c = hosts(2);
    const Layout l(c, 3);
    scenario::RoceSpec roce;
    roce.pfc.headroom = 50_KiB;
    roce.pfc.xoff = Bytes{12'400};
    roce.mmu.reserved_per_queue = Bytes::zero();
    NoHost host;
    fabric::Pfc pfc(l.topology, l.layout, roce, c.fabric.mtu, host);
    const std::uint32_t q = l.into_switch();
    Simulator sim(1);
    const auto pauses = [&] {
        FabricCounters counters;
        pfc.add_counters(counters);
        return counters.pfc_pauses_sent;
    };
    // Static XOFF 12400 B. In frames of 4096 + 62 = 4158 B: 2 frames hold 8316, 3 hold 12474 >
    // 12400, so the third pauses the sender. Counted in payload, 3 x 4096 = 12288 would not.
    for (int i = 1; i <= 3; ++i) {
        CHECK(pauses() == 0);
        CHECK(pfc.on_ingress(sim, q, 4_KiB));
        CHECK(pfc.mmu().held(q) == Bytes{4'158} * i);
    }
    CHECK(pauses() == 1);
    // XON = XOFF - xon_delta = 12400 - 3072 = 9328: one frame out leaves 8316, below it: resumed.
    pfc.on_drained(sim, q, 4_KiB);
    CHECK(pfc.mmu().held(q) == Bytes{8'316});
    CHECK(pauses() == 2);
    pfc.on_drained(sim, q, 4_KiB);
    pfc.on_drained(sim, q, 4_KiB);
    CHECK(pfc.mmu().held(q) == Bytes::zero());
}

TEST_CASE("PFC in a 2-to-1: every count of an ingress queue is a whole number of 4158-byte frames",
          "[packet][pfc][wire]") {
    Model m(small_buffer_hosts(3), pfc_only());
    Simulator sim(1);
    Sink sink;
    two_to_one(m, sim, sink, 8_MiB);
    REQUIRE(sink.at.size() == 2);
    REQUIRE(m.network.counters().pfc_pauses_sent > 0);
    // Every data packet is 4096 B of payload, 4158 B in the buffer; the lossless queue holds
    // nothing else (ACKs ride the control priority). Its peak is k x 4158 for some k > 0, which
    // counted in payload (k' x 4096) could only be were it a multiple of lcm = 4096 x 2079 B,
    // more than the 4 MB buffer.
    for (std::uint32_t r : {0u, 1u}) {
        const Bytes peak = m.network.max_ingress(m.uplink(r));
        CAPTURE(r, peak.count());
        CHECK(peak > Bytes::zero());
        CHECK(peak.count() % 4'158 == 0);
    }
}

TEST_CASE("PFC headroom counts whole frames on the wire: a VLAN tag and IPv6 add 2 x 24 bytes",
          "[packet][pfc][headroom][wire]") {
    // The frame in flight and the peer's frame each grow from 4096 + 82 to 4096 + 106 wire
    // bytes; every other term is a delay and stays: 239240 + 2 x 24 at 400G over 100 m
    // (test_pfc_headroom.cpp derives the 239240).
    using fabric::pfc_headroom;
    using fabric::roce_headroom_inputs;
    CHECK(pfc_headroom(roce_headroom_inputs(400_Gbps, 100_m, 4_KiB, Bytes{106})).total() == Bytes{239'240 + 48});
    // What the model uses comes from cluster.roce.header_bytes.
    scenario::RoceSpec roce;
    roce.header_bytes = 106;
    scenario::ClusterSpec c = hosts(2, 400_Gbps);
    c.fabric.cable_length = 100_m;
    const fabric::Topology t = fabric::build_topology(c);
    const auto cable = std::find_if(t.links().begin(), t.links().end(),
                                    [](const fabric::Link& l) { return l.type == fabric::LinkType::fabric; });
    REQUIRE(cable != t.links().end());
    CHECK(fabric::roce_link_headroom(roce, *cable, 4_KiB) == Bytes{239'240 + 48});
    roce.header_bytes = 82;
    CHECK(fabric::roce_link_headroom(roce, *cable, 4_KiB) == Bytes{239'240});
}

TEST_CASE("InfiniBand credits count payload + header_bytes in 64-byte blocks: a GRH makes a packet 66 blocks",
          "[packet][infiniband][credits][wire]") {
    scenario::ClusterSpec c = ib_hosts();
    // A VL buffer of 130 blocks (8320 B). With LRH + BTH + ICRC + VCRC (26) a 4 KiB packet is
    // ceil(4122 / 64) = 65 blocks: two fit. With a GRH (+40, header_bytes 66) it is
    // ceil(4162 / 64) = 66 blocks: the second finds 64 left and waits.
    c.infiniband.vl_buffer = Bytes{130 * 64};
    const Layout l(c, 0);
    const std::uint32_t q = l.into_switch();
    NoHost host;
    for (const std::int64_t header : {std::int64_t{26}, std::int64_t{66}}) {
        scenario::InfinibandSpec ib = c.infiniband;
        ib.header_bytes = header;
        fabric::IbCredits credits(l.topology, l.layout, ib, c.fabric.mtu, host);
        Simulator sim(1);
        Time start = Time::zero();
        REQUIRE(credits.may_send(q, 4_KiB, start));
        credits.on_sent(sim, q, 4_KiB);
        CAPTURE(header);
        CHECK(credits.may_send(q, 4_KiB, start) == (header == 26));
        CHECK(credits.blocks(4_KiB) == (header == 26 ? 65 : 66));
    }
}
