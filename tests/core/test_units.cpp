#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "core/units_format.hpp"

using namespace fabricsim;
using namespace fabricsim::literals;

TEST_CASE("transmit_time is exact: one 4 KiB packet at 400 Gb/s takes 81.92 ns", "[units]") {
    CHECK(transmit_time(4_KiB, 400_Gbps) == 81920_ps);
    CHECK(to_string(transmit_time(4_KiB, 400_Gbps)) == "81.92ns");
}

TEST_CASE("transmit_time rounds up to the next picosecond", "[units]") {
    // 1 byte at 3 bit/s = 8/3 s = 2.666...e12 ps -> rounded up.
    CHECK(transmit_time(1_B, Bandwidth::bps(3)).picoseconds() == 2'666'666'666'667);
    // Exact divisions are not rounded.
    CHECK(transmit_time(1_B, 8_Gbps) == 1_ns);
    CHECK(transmit_time(0_B, 1_Gbps) == Time::zero());
}

TEST_CASE("transmit_time's 64-bit path for packets gives the 128-bit result", "[units]") {
    // Sizes and rates around the edges of the narrow path (1 MiB, 1 Pb/s) and between.
    const std::int64_t sizes[] = {0, 1, 63, 4096, 4178, 65536, (1 << 20) - 1, 1 << 20, (1 << 20) + 1};
    const std::int64_t rates[] = {1,
                                  3,
                                  999'999'999,
                                  25'000'000'000,
                                  400'000'000'000 * 4096 / 4178,
                                  3'200'000'000'000,
                                  (std::int64_t{1} << 50) - 1,
                                  std::int64_t{1} << 50};
    for (std::int64_t b : sizes)
        for (std::int64_t r : rates)
            CHECK(transmit_time(Bytes{b}, Bandwidth::bps(r)) == transmit_time_wide(Bytes{b}, Bandwidth::bps(r)));
    // 1 MiB - 1 at 1 Pb/s - 1: the largest narrow product, rounded up.
    const std::int64_t b = (1 << 20) - 1, r = (std::int64_t{1} << 50) - 1;
    CHECK(transmit_time(Bytes{b}, Bandwidth::bps(r)).picoseconds() == (b * 8'000'000'000'000 + r - 1) / r);
    CHECK_THROWS_AS(transmit_time(1_B, Bandwidth::bps(0)), InternalError);
}

TEST_CASE("transmit_time needs 128 bits: exact for 8 GiB at 100 Mb/s and at 1.6 Tb/s", "[units]") {
    // 8 GiB = 2^33 B = 2^36 bits. At 1e8 bit/s: 687.19476736 s exactly.
    CHECK(transmit_time(8_GiB, 100_Mbps).picoseconds() == 687'194'767'360'000);
    // At 1.6e12 bit/s: 2^36 / 1.6e12 s = 42.94967296 ms exactly.
    CHECK(transmit_time(8_GiB, Bandwidth::Gbps(1600)).picoseconds() == 42'949'672'960);
    // The 64-bit product bytes*8e12 would overflow above ~1.15 MB.
    CHECK(transmit_time(2_MiB, 1_Tbps).picoseconds() == 16'777'216);
}

TEST_CASE("transmit_time rejects a zero rate (a bug) and an overflowing result (an input beyond the engine)",
          "[units]") {
    CHECK_THROWS_AS(transmit_time(1_B, Bandwidth::zero()), InternalError);
    // 2^40 B at 1 bit/s is 8.8e12 s, past the 9.2e6 s that int64 picoseconds hold.
    CHECK_THROWS_AS(transmit_time(Bytes{INT64_MAX / 8}, 1_bps), ModelError);
    CHECK_THROWS_WITH(transmit_time(Bytes{INT64_MAX / 8}, 1_bps),
                      Catch::Contains("takes longer than the simulator can count"));
    CHECK_THROWS_AS(transmit_time(Bytes{std::int64_t{1} << 40}, 1_bps), ModelError);
}

TEST_CASE("bytes_in is the floor of rate times time", "[units]") {
    CHECK(bytes_in(1_us, 400_Gbps) == 50'000_B);
    CHECK(bytes_in(Time::ps(1), 8_Gbps) == 0_B);  // 0.001 B
    CHECK(bytes_in(transmit_time(123'457_B, 400_Gbps), 400_Gbps) == 123'457_B);
}

TEST_CASE("propagation delay is 5 ns per metre", "[units]") {
    CHECK(propagation_delay(10_m) == 50_ns);
    CHECK(propagation_delay(Length::mm(1)) == 5_ps);
}

TEST_CASE("formatters print exact human units", "[units][format]") {
    CHECK(to_string(Time::zero()) == "0ps");
    CHECK(to_string(1_s) == "1s");
    CHECK(to_string(Time::us(2) + Time::ns(500)) == "2.5us");
    CHECK(to_string(Time::ps(1'234'567)) == "1.234567us");
    CHECK(to_string(Time::ps(-1500)) == "-1.5ns");
    CHECK(to_string(400_Gbps) == "400Gbps");
    CHECK(to_string(Bandwidth::Mbps(2500)) == "2.5Gbps");
    CHECK(to_string(1_Tbps + 600_Gbps) == "1.6Tbps");
    CHECK(to_string(1_GiB) == "1GiB");
    CHECK(to_string(Bytes{1536}) == "1.536KB");  // not a whole number of KiB
    CHECK(to_string(Bytes{1500}) == "1.5KB");
    CHECK(to_string(Bytes{1234}) == "1.234KB");
    CHECK(to_string(Bytes{999}) == "999B");
    CHECK(to_string(0_B) == "0B");
    CHECK(to_string(Length::m(30)) == "30m");
    CHECK(to_string(Length::mm(2500)) == "2.5m");
    CHECK(fmt::format("{} at {}", 4_KiB, 400_Gbps) == "4KiB at 400Gbps");
}

TEST_CASE("unit arithmetic keeps its type", "[units]") {
    CHECK(2_us - 500_ns == Time::ns(1500));
    CHECK(3 * 4_KiB == 12_KiB);
    CHECK(1_ms / 1_us == 1000);
    CHECK(400_Gbps / 100_Gbps == 4.0);
    CHECK(Time::max() > 1000_s);
}
