// PFC headroom and thresholds (src/fabric/pfc_headroom.hpp, docs/models/pfc.md),
// against the IEEE 802.1Qbb worst-case decomposition and the figures in
// `docs/REFERENCES.md`. Expected totals are the sums of the published per-term bit
// times, worked out by hand in the comments.
#include "fabric/pfc_headroom.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace fabricsim;
using namespace fabricsim::fabric;
using namespace fabricsim::literals;

namespace {

// The worked example's frames: 9216-byte frames plus 8 bytes of preamble/SFD and 12 of gap.
constexpr Bytes kJumboOnWire{9216 + 20};

HeadroomInputs with_frames(Bandwidth speed, Length cable, Bytes frame) {
    const PortDelays d = ieee8023_delays(speed);
    HeadroomInputs in;
    in.link_speed = speed;
    in.cable_length = cable;
    in.max_frame = frame;
    in.peer_max_frame = frame;
    in.interface_delay = d.interface;
    in.response_time = d.response;
    return in;
}

}  // namespace

TEST_CASE("the IEEE 802.3 delays are the published bit times at 10 25 40 100 and 400G", "[pfc][headroom]") {
    // interface / response in bit times (docs/REFERENCES.md; Cisco Press restatement of 802.1Qbb):
    // 100G 122880 / 201728 bit times at 10 ps each; 400G response 463360 at 2.5 ps.
    CHECK(ieee8023_delays(100_Gbps).interface == Time::ps(1'228'800));
    CHECK(ieee8023_delays(100_Gbps).response == Time::ps(2'017'280));
    CHECK(ieee8023_delays(400_Gbps).response == Time::ps(1'158'400));
    CHECK(ieee8023_delays(10_Gbps).interface == Time::ps(819'200));
    CHECK(ieee8023_delays(10_Gbps).response == Time::ps(3'072'000));
    CHECK(ieee8023_delays(25_Gbps).response == Time::ps(40'960 * 40));
    CHECK(ieee8023_delays(40_Gbps).response == Time::ps(60'416 * 25));
    // 400G interface: estimate, 100G's figure kept as a time.
    CHECK(ieee8023_delays(400_Gbps).interface == ieee8023_delays(100_Gbps).interface);
    // Between published speeds: the delays of the speed below, as times.
    CHECK(ieee8023_delays(200_Gbps).response == ieee8023_delays(100_Gbps).response);
    CHECK(ieee8023_delays(800_Gbps).response == ieee8023_delays(400_Gbps).response);
    // Below 10G: 10G's bit times at the slower rate.
    CHECK(ieee8023_delays(1_Gbps).response == Time::ps(30'720'000));
}

TEST_CASE("100G with 100m of fibre and 9216-byte frames needs about 87KB of headroom", "[pfc][headroom]") {
    const HeadroomBreakdown h = pfc_headroom(with_frames(100_Gbps, 100_m, kJumboOnWire));
    CHECK(h.frame_in_flight == Bytes{9'236});  // 73888 bit times
    CHECK(h.pause_frame == Bytes{84});         // 672 bit times
    CHECK(h.interfaces == Bytes{30'720});      // 2 x 122880 bit times
    CHECK(h.cable == Bytes{12'500});           // 2 x 500 ns x 100 Gb/s = 2 x 50000 bits
    CHECK(h.response == Bytes{25'216});        // 201728 bit times
    CHECK(h.peer_frame == Bytes{9'236});
    CHECK(h.total() == Bytes{86'992});  // docs/models/pfc.md: "≈ 87 KB"
    CHECK(std::abs(h.total().count() - 87'000) <= 500);
}

TEST_CASE("the 100G 100m figure is within 20 percent below NVIDIA's 101.6KB recommendation", "[pfc][headroom]") {
    // NVIDIA's Spectrum driver figure (docs/REFERENCES.md) counts 96-byte buffer cells and its own
    // margins; the 802.1Qbb sum here counts bytes. Ours is 86992 B = 85.6 % of 101600 B.
    const Bytes ours = pfc_headroom(with_frames(100_Gbps, 100_m, kJumboOnWire)).total();
    const Bytes nvidia{101'600};
    CHECK(ours <= nvidia);
    CHECK(static_cast<double>(ours.count()) >= 0.80 * static_cast<double>(nvidia.count()));
    // Rounded up to whole 96-byte cells it is still below: 907 cells = 87072 B.
    const std::int64_t cells = (ours.count() + 95) / 96;
    CHECK(cells == 907);
    CHECK(Bytes{cells * 96} < nvidia);
}

TEST_CASE("400G headroom is the sum of the published 400G delays", "[pfc][headroom]") {
    // 100 m, 4 KiB payload: frames 4096 + 82 = 4178 B each way; pause 84 B;
    // interfaces 2 x 491520 bits = 122880 B; cable 2 x 500 ns x 400 Gb/s = 50000 B;
    // response 463360 bits = 57920 B. Sum 239240 B.
    const HeadroomBreakdown h = pfc_headroom(roce_headroom_inputs(400_Gbps, 100_m, 4_KiB));
    CHECK(h.frame_in_flight == Bytes{4'178});
    CHECK(h.interfaces == Bytes{122'880});
    CHECK(h.cable == Bytes{50'000});
    CHECK(h.response == Bytes{57'920});
    CHECK(h.total() == Bytes{239'240});
    // The defaults (docs/SCENARIO.md): 5 m inside a rack, 30 m between tiers.
    CHECK(pfc_headroom(roce_headroom_inputs(400_Gbps, 5_m, 4_KiB)).total() == Bytes{239'240 - 47'500});
    CHECK(pfc_headroom(roce_headroom_inputs(400_Gbps, 30_m, 4_KiB)).total() == Bytes{239'240 - 35'000});
    // 9216-byte frames instead: 2 x (9236 - 4178) more.
    CHECK(pfc_headroom(with_frames(400_Gbps, 100_m, kJumboOnWire)).total() == Bytes{239'240 + 2 * 5'058});
}

TEST_CASE("headroom grows by twice the cable's bytes in flight per metre", "[pfc][headroom]") {
    // 5 ns/m both ways: at 100G 2 x 62.5 B per metre, 125 B; at 400G 500 B.
    const auto at = [](Bandwidth s, std::int64_t m) {
        return pfc_headroom(roce_headroom_inputs(s, Length::m(m), 4_KiB)).total();
    };
    CHECK(at(100_Gbps, 101) - at(100_Gbps, 1) == Bytes{12'500});
    CHECK(at(400_Gbps, 11) - at(400_Gbps, 1) == Bytes{5'000});
}

TEST_CASE("a RoCE frame on the wire is the payload MTU plus 82 bytes", "[pfc][headroom]") {
    CHECK(roce_frame_on_wire(4_KiB) == Bytes{4'178});
    CHECK(roce_frame_on_wire(1_KiB) == Bytes{1'106});
    const HeadroomInputs in = roce_headroom_inputs(100_Gbps, 10_m, 1_KiB);
    CHECK(in.max_frame == Bytes{1'106});
    CHECK(in.peer_max_frame == Bytes{1'106});
}

TEST_CASE("bytes during a delay round up to whole bytes", "[pfc][headroom]") {
    CHECK(bytes_during(Time::ps(80), 100_Gbps) == Bytes{1});  // exactly 8 bits
    CHECK(bytes_during(Time::ps(81), 100_Gbps) == Bytes{2});  // a bit more
    CHECK(bytes_during(Time::ps(1), 100_Gbps) == Bytes{1});
    CHECK(bytes_during(Time::zero(), 100_Gbps) == Bytes::zero());
    CHECK(bytes_during(Time::s(1), 800_Gbps) == Bytes{100'000'000'000});  // 128-bit inside
}

TEST_CASE("XOFF is alpha times the free buffer and XON sits delta below it", "[pfc][thresholds]") {
    // HPCC ns-3: threshold = free >> 3 (alpha 1/8), resume 3 KiB below.
    CHECK(xoff_threshold(Bytes{12 * 1024 * 1024}, 0.125) == Bytes{1'572'864});
    CHECK(xoff_threshold(Bytes{1'000}, 0.125) == Bytes{125});
    CHECK(xoff_threshold(Bytes{1'001}, 0.125) == Bytes{125});  // floor, as a shift
    CHECK(xoff_threshold(Bytes{1'000}, 2.0) == Bytes{2'000});
    CHECK(xoff_threshold(Bytes::zero(), 0.125) == Bytes::zero());
    CHECK(xoff_threshold(Bytes{-5}, 0.125) == Bytes::zero());
    CHECK(xon_threshold(Bytes{1'572'864}, 3_KiB) == Bytes{1'572'864 - 3'072});
    CHECK(xon_threshold(Bytes{2'000}, 3_KiB) == Bytes::zero());
}
