// IbCcMarker (ib_cc_marker.hpp) on its own: FECN at a root of congestion, one eligible packet
// in marking_rate + 1, and none at a victim (a port/VL that waited for credits) unless
// victim_mask is set. Two InfiniBand hosts on one switch, one queue per directed link.
#include <catch2/catch.hpp>

#include "fabric/packet/ib_cc_marker.hpp"
#include "flow_control_fixtures.hpp"
#include "packet_fixtures.hpp"

#include <optional>
#include <string>
#include <vector>

using namespace packet_test;

namespace {

struct Setup {
    explicit Setup(bool victim_mask) {
        scenario::ClusterSpec c = hosts(2, 400_Gbps);
        c.fabric.technology = scenario::Technology::infiniband;
        c.fabric.switch_spec.technology = scenario::Technology::infiniband;
        topology = fabric::build_topology(c);
        layout = one_queue_per_link(topology, 0);
        for (std::uint32_t p = 0; p < topology.directed_link_count(); ++p)
            if (fabric::IbCredits::applies_to(topology.link(fabric::DirectedLink::from_index(p).link)))
                fabric_q.push_back(p);
        credits.emplace(topology, layout, c.infiniband, c.fabric.mtu, host);
        params.threshold = 8_KiB;
        params.marking_rate = 2;
        params.packet_size = 512_B;
        params.victim_mask = victim_mask;
        marker.emplace(params, topology, layout, *credits);
    }
    // The marks of `n` 4 KiB packets leaving queue q with `queued` bytes there, as a string.
    std::string marks(std::uint32_t q, Bytes queued, int n, Bytes packet = 4_KiB) {
        std::string out;
        for (int i = 0; i < n; ++i) out += marker->mark(q, queued, packet) ? 'M' : '.';
        return out;
    }
    fabric::Topology topology;
    fabric::QueueLayout layout;
    std::vector<std::uint32_t> fabric_q;  // queues of links that run IB credits
    NoHost host;
    std::optional<fabric::IbCredits> credits;
    congestion::FecnMarkerParams params;
    std::optional<fabric::IbCcMarker> marker;
};

}  // namespace

TEST_CASE("IbCcMarker: a root port/VL above the threshold marks one eligible packet in marking_rate + 1",
          "[packet][ibcc]") {
    Setup s(false);
    REQUIRE(s.fabric_q.size() >= 3);
    CHECK(s.marks(0, 8_KiB, 3) == "...");       // not above the threshold
    CHECK(s.marks(0, 16_KiB, 7) == "M..M..M");  // marking_rate 2: every third
    CHECK(s.marker->marks() == 3);
    // A packet below packet_size is not eligible and does not count as skipped.
    Setup t(false);
    CHECK(t.marks(1, 16_KiB, 1) == "M");
    CHECK(t.marks(1, 16_KiB, 2, 256_B) == "..");
    CHECK(t.marks(1, 16_KiB, 3) == "..M");
    // Each queue counts on its own.
    CHECK(t.marks(2, 16_KiB, 1) == "M");
}

TEST_CASE("IbCcMarker: a port/VL that waited for credits is a victim and marks only with victim_mask",
          "[packet][ibcc]") {
    for (const bool mask : {false, true}) {
        Setup s(mask);
        REQUIRE_FALSE(s.fabric_q.empty());
        const std::uint32_t q = s.fabric_q[0];
        Time start = Time::zero();
        // More than the VL buffer: the sender must wait for credits.
        REQUIRE_FALSE(s.credits->may_send(q, 1_GB, start));
        CHECK(s.marker->victim(q));
        CHECK(s.marks(q, 16_KiB, 1) == (mask ? "M" : "."));
        // Sending resets the credit wait: a root again; without the mask nothing was counted.
        Simulator sim(1);
        s.credits->on_sent(sim, q, 4_KiB);
        CHECK_FALSE(s.marker->victim(q));
        CHECK(s.marks(q, 16_KiB, 2) == (mask ? ".." : "M."));
    }
}
