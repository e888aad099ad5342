// SwitchMmu (switch_mmu.hpp) on its own: how a switch carves its buffer, the dynamic XOFF that
// follows the free shared pool, XON, and a NIC's receive buffer. Two plain hosts on one
// switch, one queue (priority 3, lossless) per directed link, static headroom so that every
// figure is a sum by hand.
#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "fabric/packet/switch_mmu.hpp"
#include "flow_control_fixtures.hpp"
#include "packet_fixtures.hpp"

#include <cmath>
#include <optional>
#include <vector>

using namespace packet_test;

namespace {

struct Setup {
    explicit Setup(Bytes headroom = 50_KiB) {
        const scenario::ClusterSpec c = hosts(2);
        topology = fabric::build_topology(c);
        layout = one_queue_per_link(topology, 3);
        roce.pfc.headroom = headroom;
        mtu = c.fabric.mtu;
        for (std::uint32_t n = 0; n < topology.nodes().size(); ++n)
            if (fabric::is_fabric_switch(topology.nodes()[n].kind)) sw = fabric::NodeId{n};
        // The queues whose link leads into the switch, and into a NIC from it.
        for (std::uint32_t p = 0; p < topology.directed_link_count(); ++p) {
            const auto d = fabric::DirectedLink::from_index(p);
            if (topology.target(d) == sw) into_switch.push_back(p);
            if (topology.source(d) == sw && topology.node(topology.target(d)).kind == fabric::NodeKind::nic)
                into_nic.push_back(p);
        }
    }
    fabric::SwitchMmu make() const { return fabric::SwitchMmu(topology, layout, roce, mtu, 1u << 3); }
    fabric::Topology topology;
    fabric::QueueLayout layout;
    scenario::RoceSpec roce;
    Bytes mtu;
    fabric::NodeId sw;
    std::vector<std::uint32_t> into_switch, into_nic;
};

}  // namespace

TEST_CASE("SwitchMmu: the shared pool is the buffer less each ingress port's reserve and headroom",
          "[packet][pfc][mmu]") {
    Setup s;
    const fabric::SwitchMmu mmu = s.make();
    REQUIRE(s.into_switch.size() == 2);
    const Bytes buffer = s.topology.node(s.sw).buffer;
    // Two ingress ports, one lossless queue each: 4 KiB reserved + 50 KiB headroom.
    const Bytes per_port = s.roce.mmu.reserved_per_queue + 50_KiB;
    CHECK(mmu.shared(s.sw) == buffer - per_port - per_port);
    CHECK(mmu.headroom(s.into_switch[0]) == 50_KiB);
    CHECK(mmu.used(s.sw) == Bytes::zero());
}

TEST_CASE("SwitchMmu: XOFF is the reserve plus alpha x the free pool, and XON xon_delta below", "[packet][pfc][mmu]") {
    Setup s;
    fabric::SwitchMmu mmu = s.make();
    const std::uint32_t a = s.into_switch[0], b = s.into_switch[1];
    const Bytes shared = mmu.shared(s.sw);
    const auto alpha_of = [&](Bytes free) {
        return Bytes{static_cast<std::int64_t>(std::floor(free.count() * s.roce.mmu.alpha))};
    };
    CHECK(mmu.threshold(a) == s.roce.mmu.reserved_per_queue + alpha_of(shared));
    // 1 MB held through port b leaves 1 MB less free for everyone: a's XOFF falls by alpha x 1 MB.
    mmu.admit(b, 1_MB);
    CHECK(mmu.held(b) == 1_MB);
    CHECK(mmu.used(s.sw) == 1_MB);
    CHECK(mmu.threshold(a) == s.roce.mmu.reserved_per_queue + alpha_of(shared - 1_MB));
    CHECK(mmu.xon(a, mmu.threshold(a)) == mmu.threshold(a) - s.roce.pfc.xon_delta);
    mmu.release(b, 600_KB);
    CHECK(mmu.held(b) == 400_KB);
    CHECK(mmu.max_held(b) == 1_MB);
    // A static XOFF does not move.
    s.roce.pfc.xoff = 100_KB;
    const fabric::SwitchMmu fixed = s.make();
    CHECK(fixed.threshold(a) == s.roce.mmu.reserved_per_queue + 100_KB);
}

TEST_CASE("SwitchMmu: the buffer takes what fits and no more", "[packet][pfc][mmu]") {
    Setup s;
    fabric::SwitchMmu mmu = s.make();
    const Bytes buffer = s.topology.node(s.sw).buffer;
    const std::uint32_t a = s.into_switch[0];
    CHECK(mmu.fits(a, buffer));
    CHECK_FALSE(mmu.fits(a, buffer + 1_B));
    mmu.admit(a, buffer - 10_B);
    CHECK(mmu.fits(s.into_switch[1], 10_B));
    CHECK_FALSE(mmu.fits(s.into_switch[1], 11_B));
}

TEST_CASE("SwitchMmu: a NIC's receive buffer pauses at its size less the headroom, resumes an MTU frame below",
          "[packet][pfc][mmu][nic]") {
    Setup s;
    const fabric::SwitchMmu mmu = s.make();
    REQUIRE(s.into_nic.size() == 2);
    const std::uint32_t q = s.into_nic[0];
    const Bytes buffer = s.topology.node(s.topology.target(fabric::DirectedLink::from_index(q))).buffer;
    REQUIRE(buffer > 50_KiB);
    // mlx5 port_buffer.c: xoff = size - headroom, xon = xoff - MTU frame, as the buffer holds
    // it: payload + 62 B (82 on the wire less 20 of preamble and gap).
    CHECK(mmu.threshold(q) == buffer - 50_KiB);
    CHECK(mmu.xon(q, mmu.threshold(q)) == buffer - 50_KiB - (s.mtu + 62_B));
}

TEST_CASE("SwitchMmu: headroom and reserve beyond the switch's buffer is a model error naming it",
          "[packet][pfc][mmu]") {
    Setup s;
    const Bytes buffer = s.topology.node(s.sw).buffer;
    Setup big(buffer);  // one port's headroom is the whole buffer
    CHECK_THROWS_WITH(big.make(), Catch::Contains(s.topology.node(s.sw).name) && Catch::Contains("exceed"));
}
