// VlArbiter (vl_arbiter.hpp) on its own: the order in which one port serves two VLs that stay
// ready, for the IBA §7.6.9 rules the component states. Every packet is 4096 B of payload,
// 4096 + 26 = 4122 B with the IB headers.
#include <catch2/catch.hpp>

#include "fabric/packet/vl_arbiter.hpp"

#include <array>
#include <string>

using namespace fabricsim;

namespace {

constexpr std::array<std::uint32_t, 8> kHeads{4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096};

// The VLs port `port` serves in `n` turns with VLs 0 and 1 always ready, as a string.
std::string serve(fabric::VlArbiter& a, int n, std::uint32_t port = 0, std::uint32_t ready = 0b11) {
    std::string out;
    for (int i = 0; i < n; ++i) out += static_cast<char>('0' + a.arbitrate(port, ready, kHeads.data()));
    return out;
}

scenario::VlArbitrationSpec high1_low0(int high_limit) {
    scenario::VlArbitrationSpec s;
    s.high = {scenario::VlWeight{1, 4}};
    s.low = {scenario::VlWeight{0, 4}};
    s.high_limit = high_limit;
    return s;
}

}  // namespace

TEST_CASE("VlArbiter: high_limit 0 is one high-priority packet per low-priority opportunity", "[packet][vlarb]") {
    // First turn: no high-priority bytes since the low table's chance, so VL 1 goes (4122 B);
    // then 4122 >= 0 x 4096 and not zero: VL 0; that resets the count. Alternation.
    fabric::VlArbiter a(high1_low0(0), 1);
    CHECK(serve(a, 6) == "101010");
}

TEST_CASE("VlArbiter: high_limit n lets packets through while fewer than n x 4096 B have gone", "[packet][vlarb]") {
    // high_limit 2: 8192 B. After one packet 4122 < 8192: a second goes; 8244 >= 8192: VL 0.
    fabric::VlArbiter two(high1_low0(2), 1);
    CHECK(serve(two, 9) == "110110110");
    // high_limit 3: 12288 B. 4122, 8244 < 12288, 12366 >= 12288: three per low packet.
    fabric::VlArbiter three(high1_low0(3), 1);
    CHECK(serve(three, 8) == "11101110");
    CHECK(three.high_limit() == 3 * 4096);
}

TEST_CASE("VlArbiter: high_limit 255 is no limit, and the low table serves once the high VL is idle",
          "[packet][vlarb]") {
    fabric::VlArbiter a(high1_low0(255), 1);
    CHECK(a.high_limit() < 0);
    CHECK(serve(a, 5) == "11111");
    CHECK(serve(a, 2, 0, 0b01) == "00");  // VL 1 has nothing ready
}

TEST_CASE("VlArbiter: a table entry sends weight x 64 B per turn, the last packet overrunning it", "[packet][vlarb]") {
    // Low table only: VL 0 weight 192 (12288 B), VL 1 weight 64 (4096 B). VL 0: 12288 - 4122
    // = 8166, 4044, then -78: three packets; VL 1: 4096 - 4122 < 0: one packet. 3:1.
    scenario::VlArbitrationSpec s;
    s.low = {scenario::VlWeight{0, 192}, scenario::VlWeight{1, 64}};
    fabric::VlArbiter a(s, 1);
    CHECK(a.low_vls() == 0b11);
    CHECK(a.high_vls() == 0);
    CHECK(serve(a, 12) == "000100010001");
}

TEST_CASE("VlArbiter: an entry of weight 0 or whose VL is not ready is passed over", "[packet][vlarb]") {
    scenario::VlArbitrationSpec s;
    s.low = {scenario::VlWeight{0, 0}, scenario::VlWeight{1, 4}, scenario::VlWeight{2, 4}};
    fabric::VlArbiter a(s, 1);
    CHECK(a.low_vls() == 0b110);
    // VL 0 (weight 0) is never chosen while another is ready; VL 2 is not ready.
    CHECK(serve(a, 3, 0, 0b011) == "111");
    // VL 0 ready alone is in no table with weight: the lowest ready VL.
    CHECK(serve(a, 1, 0, 0b001) == "0");
}

TEST_CASE("VlArbiter: each port keeps its own place in the tables", "[packet][vlarb]") {
    scenario::VlArbitrationSpec s;
    s.low = {scenario::VlWeight{0, 192}, scenario::VlWeight{1, 64}};
    fabric::VlArbiter a(s, 2);
    // Interleaving the two ports gives each the sequence it has alone.
    std::string p0, p1;
    for (int i = 0; i < 8; ++i) {
        p0 += serve(a, 1, 0);
        p1 += serve(a, 1, 1);
    }
    CHECK(p0 == "00010001");
    CHECK(p1 == "00010001");
}
