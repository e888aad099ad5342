// The units grammar of docs/SCENARIO.md: every unit and prefix, exact decimal fractions, the
// whole-unit rule, overflow, and the messages a user sees for each kind of mistake.
#include "core/units_format.hpp"
#include "scenario/units_parse.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace fabricsim;
using namespace fabricsim::scenario;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

template <class T>
T value_of(const Parsed<T>& p) {
    INFO(p.error());
    REQUIRE(p.ok());
    return p.value();
}

template <class T>
std::string error_of(const Parsed<T>& p) {
    REQUIRE_FALSE(p.ok());
    return p.error();
}

std::int64_t bytes(std::string_view s) { return value_of(parse_bytes(s)).count(); }
std::int64_t bits_per_second(std::string_view s) { return value_of(parse_bandwidth(s)).bits_per_second(); }
std::int64_t ps(std::string_view s) { return value_of(parse_time(s)).picoseconds(); }
std::int64_t mm(std::string_view s) { return value_of(parse_length(s)).millimetres(); }

}  // namespace

TEST_CASE("every size unit means what it says", "[units]") {
    CHECK(bytes("1B") == 1);
    CHECK(bytes("1KB") == 1'000);
    CHECK(bytes("1kB") == 1'000);
    CHECK(bytes("1MB") == 1'000'000);
    CHECK(bytes("1GB") == 1'000'000'000);
    CHECK(bytes("1TB") == 1'000'000'000'000);
    CHECK(bytes("1PB") == 1'000'000'000'000'000);
    CHECK(bytes("1KiB") == 1'024);
    CHECK(bytes("1MiB") == 1'048'576);
    CHECK(bytes("1GiB") == 1'073'741'824);
    CHECK(bytes("1TiB") == 1'099'511'627'776);
    CHECK(bytes("1PiB") == 1'125'899'906'842'624);
    CHECK(bytes("8b") == 1);
    CHECK(bytes("8Kb") == 1'000);
    CHECK(bytes("8kb") == 1'000);
    CHECK(bytes("8Mb") == 1'000'000);
    CHECK(bytes("8Gb") == 1'000'000'000);
    CHECK(bytes("8Tb") == 1'000'000'000'000);
    CHECK(bytes("8Pb") == 1'000'000'000'000'000);
    CHECK(bytes("8Kib") == 1'024);
    CHECK(bytes("8Mib") == 1'048'576);
    CHECK(bytes("8Gib") == 1'073'741'824);
    CHECK(bytes("8Tib") == 1'099'511'627'776);
    CHECK(bytes("8Pib") == 1'125'899'906'842'624);
}

TEST_CASE("every rate unit means what it says", "[units]") {
    CHECK(bits_per_second("1bps") == 1);
    CHECK(bits_per_second("1Kbps") == 1'000);
    CHECK(bits_per_second("1kbps") == 1'000);
    CHECK(bits_per_second("1Mbps") == 1'000'000);
    CHECK(bits_per_second("400Gbps") == 400'000'000'000);
    CHECK(bits_per_second("1.6Tbps") == 1'600'000'000'000);
    CHECK(bits_per_second("1b/s") == 1);
    CHECK(bits_per_second("1Kb/s") == 1'000);
    CHECK(bits_per_second("1kb/s") == 1'000);
    CHECK(bits_per_second("1Mb/s") == 1'000'000);
    CHECK(bits_per_second("400Gb/s") == 400'000'000'000);
    CHECK(bits_per_second("1Tb/s") == 1'000'000'000'000);
    CHECK(bits_per_second("1B/s") == 8);
    CHECK(bits_per_second("1KB/s") == 8'000);
    CHECK(bits_per_second("1kB/s") == 8'000);
    CHECK(bits_per_second("1MB/s") == 8'000'000);
    CHECK(bits_per_second("50GB/s") == 400'000'000'000);
    CHECK(bits_per_second("1TB/s") == 8'000'000'000'000);
    CHECK(bits_per_second("1KiB/s") == 8 * 1'024);
    CHECK(bits_per_second("1MiB/s") == 8 * 1'048'576);
    CHECK(bits_per_second("1GiB/s") == 8 * std::int64_t{1'073'741'824});
    CHECK(bits_per_second("1TiB/s") == 8 * std::int64_t{1'099'511'627'776});
}

TEST_CASE("every time and length unit means what it says", "[units]") {
    CHECK(ps("1ps") == 1);
    CHECK(ps("1ns") == 1'000);
    CHECK(ps("1us") == 1'000'000);
    CHECK(ps("1\u00b5s") == 1'000'000);
    CHECK(ps("1\u03bcs") == 1'000'000);
    CHECK(ps("1ms") == 1'000'000'000);
    CHECK(ps("1s") == 1'000'000'000'000);
    CHECK(mm("1mm") == 1);
    CHECK(mm("1cm") == 10);
    CHECK(mm("10m") == 10'000);
    CHECK(mm("1km") == 1'000'000);
}

TEST_CASE("decimal fractions are exact when the result is whole in the base unit", "[units]") {
    CHECK(ps("2.5us") == 2'500'000);
    CHECK(ps("81.92ns") == 81'920);
    CHECK(ps("0.001ns") == 1);
    CHECK(ps("1.000000000000s") == 1'000'000'000'000);
    CHECK(bytes("1.5KiB") == 1'536);
    CHECK(bytes("1.5KB") == 1'500);
    CHECK(bytes("12Gb") == 1'500'000'000);
    CHECK(bytes("0.5Kib") == 64);
    CHECK(bits_per_second("2.5Gbps") == 2'500'000'000);
    CHECK(bits_per_second("0.125B/s") == 1);
    CHECK(mm("1.5m") == 1'500);
    CHECK(mm("0.1cm") == 1);
    CHECK(bytes("007B") == 7);
    CHECK(bytes("400 GB") == 400'000'000'000);  // a space before the unit is accepted
    CHECK(bits_per_second("400 Gbps") == 400'000'000'000);
}

TEST_CASE("zero is a bare 0 for times and sizes but needs a unit for rates", "[units]") {
    CHECK(ps("0") == 0);
    CHECK(ps("0us") == 0);
    CHECK(bytes("0") == 0);
    CHECK(bytes("0.0") == 0);
    CHECK(bits_per_second("0bps") == 0);
    CHECK(error_of(parse_bandwidth("0")) == "\"0\" has no unit; did you mean \"0Gbps\"?");
    CHECK(error_of(parse_length("0")) == "\"0\" has no unit; did you mean \"0m\"?");
}

TEST_CASE("values that are not whole in the base unit are errors and never rounded", "[units]") {
    CHECK(error_of(parse_bytes("0.5B")) == "\"0.5B\" is not a whole number of bytes");
    CHECK(error_of(parse_bytes("1b")) == "\"1b\" is not a whole number of bytes");
    CHECK(error_of(parse_bytes("1.0001KB")) == "\"1.0001KB\" is not a whole number of bytes");
    CHECK(error_of(parse_time("0.1ps")) == "\"0.1ps\" is not a whole number of picoseconds");
    CHECK(error_of(parse_time("1.0000000000001s")) == "\"1.0000000000001s\" is not a whole number of picoseconds");
    CHECK(error_of(parse_bandwidth("0.1bps")) == "\"0.1bps\" is not a whole number of bits per second");
    CHECK(error_of(parse_length("0.5mm")) == "\"0.5mm\" is not a whole number of millimetres");
}

TEST_CASE("values beyond int64 are errors that state the maximum", "[units]") {
    CHECK(bytes("9223372036854775807B") == kMax);
    CHECK(error_of(parse_bytes("9223372036854775808B")) ==
          "\"9223372036854775808B\" is too large; the maximum is 9223.372036854775807PB");
    CHECK(error_of(parse_bytes("8192PiB")) == "\"8192PiB\" is too large; the maximum is 9223.372036854775807PB");
    CHECK(error_of(parse_time("107d")) == "expected a time (e.g. 500ns, 2.5us), found \"107d\"");
    CHECK(error_of(parse_time("9223373s")) == "\"9223373s\" is too large; the maximum is 9223372.036854775807s");
    CHECK(error_of(parse_bandwidth("10000000Tbps")) ==
          "\"10000000Tbps\" is too large; the maximum is 9223372.036854775807Tbps");
    CHECK(error_of(parse_length("10000000000000km")) ==
          "\"10000000000000km\" is too large; the maximum is 9223372036854.775807km");
    CHECK(error_of(parse_bytes("1234567890123456789012345678901234567B")) ==
          "\"1234567890123456789012345678901234567B\" has too many digits");
    // The maximum as printed reads back as the maximum.
    CHECK(bytes("9223.372036854775807PB") == kMax);
    CHECK(ps("9223372.036854775807s") == kMax);
}

TEST_CASE("a missing unit is rejected with a suggestion that fits the key", "[units]") {
    CHECK(error_of(parse_bandwidth("400G")) == "\"400G\" has no unit; did you mean \"400Gbps\"?");
    CHECK(error_of(parse_bandwidth("400")) == "\"400\" has no unit; did you mean \"400Gbps\"?");
    CHECK(error_of(parse_bandwidth("100k")) == "\"100k\" has no unit; did you mean \"100kbps\"?");
    CHECK(error_of(parse_bytes("400G")) == "\"400G\" has no unit; did you mean \"400GB\" or \"400GiB\"?");
    CHECK(error_of(parse_bytes("4k")) == "\"4k\" has no unit; did you mean \"4kB\" or \"4KiB\"?");
    CHECK(error_of(parse_bytes("4Ki")) == "\"4Ki\" has no unit; did you mean \"4KiB\"?");
    CHECK(error_of(parse_bytes("1024")) == "\"1024\" has no unit; did you mean \"1024B\"?");
    CHECK(error_of(parse_time("5")) == "\"5\" has no unit; did you mean \"5us\"?");
    CHECK(error_of(parse_time("5n")) == "\"5n\" has no unit; did you mean \"5ns\"?");
    CHECK(error_of(parse_length("10")) == "\"10\" has no unit; did you mean \"10m\"?");
    CHECK(error_of(parse_length("10k")) == "\"10k\" has no unit; did you mean \"10km\"?");
}

TEST_CASE("a unit of the wrong kind names what was expected", "[units]") {
    CHECK(error_of(parse_bytes("5us")) == "expected a size (e.g. 4KiB, 1MB), found \"5us\"");
    CHECK(error_of(parse_bytes("400Gbps")) == "expected a size (e.g. 4KiB, 1MB), found \"400Gbps\"");
    CHECK(error_of(parse_time("1GiB")) == "expected a time (e.g. 500ns, 2.5us), found \"1GiB\"");
    CHECK(error_of(parse_bandwidth("50GB")) == "\"50GB\" is a size, not a rate; did you mean \"50GB/s\"?");
    CHECK(error_of(parse_bandwidth("400Gb")) == "\"400Gb\" is a size, not a rate; did you mean \"400Gbps\"?");
    CHECK(error_of(parse_bandwidth("50GBps")) ==
          "expected a rate (e.g. 400Gbps, 50GB/s), found \"50GBps\"; did you mean \"50GB/s\"?");
    CHECK(error_of(parse_bandwidth("5us")) == "expected a rate (e.g. 400Gbps, 50GB/s), found \"5us\"");
    CHECK(error_of(parse_length("10ft")) == "expected a length (e.g. 10m, 50cm), found \"10ft\"");
    CHECK(error_of(parse_bytes("400gb")) == "expected a size (e.g. 4KiB, 1MB), found \"400gb\"");
}

TEST_CASE("text that is not a number is rejected with what was expected", "[units]") {
    CHECK(error_of(parse_bytes("")) == "expected a size (e.g. 4KiB, 1MB), found \"\"");
    CHECK(error_of(parse_bytes("GiB")) == "expected a size (e.g. 4KiB, 1MB), found \"GiB\"");
    CHECK(error_of(parse_bytes(".5KiB")) == "expected a size (e.g. 4KiB, 1MB), found \".5KiB\"");
    CHECK(error_of(parse_bytes("5.KiB")) == "expected a size (e.g. 4KiB, 1MB), found \"5.KiB\"");
    CHECK(error_of(parse_bytes("1e9B")) == "expected a size (e.g. 4KiB, 1MB), found \"1e9B\"");
    CHECK(error_of(parse_bytes("1,024B")) == "expected a size (e.g. 4KiB, 1MB), found \"1,024B\"");
    CHECK(error_of(parse_time("none")) == "expected a time (e.g. 500ns, 2.5us), found \"none\"");
}

TEST_CASE("negative values are rejected", "[units]") {
    CHECK(error_of(parse_bytes("-1GiB")) == "\"-1GiB\" is negative; a size cannot be negative");
    CHECK(error_of(parse_time("-5us")) == "\"-5us\" is negative; a time cannot be negative");
    CHECK(error_of(parse_bandwidth("-1Gbps")) == "\"-1Gbps\" is negative; a rate cannot be negative");
    CHECK(error_of(parse_length("-1m")) == "\"-1m\" is negative; a length cannot be negative");
}

TEST_CASE("what to_string prints parses back to the same value", "[units]") {
    // Log-uniform magnitudes so that every unit of the printer is reached.
    std::mt19937_64 rng(20261129);
    const auto random_value = [&] {
        const int bits = static_cast<int>(rng() % 63);
        const std::uint64_t v = rng() >> (64 - std::max(bits, 1));
        return static_cast<std::int64_t>(v);
    };
    for (int i = 0; i < 20'000; ++i) {
        const std::int64_t v = random_value();
        const Time t = Time::ps(v);
        const Bytes b{v};
        const Bandwidth bw = Bandwidth::bps(v);
        const Length l = Length::mm(v);
        CHECK(value_of(parse_time(to_string(t))) == t);
        CHECK(value_of(parse_bytes(to_string(b))) == b);
        CHECK(value_of(parse_bandwidth(to_string(bw))) == bw);
        CHECK(value_of(parse_length(to_string(l))) == l);
    }
    // Round values print with binary prefixes; those and the extremes read back too.
    for (std::int64_t v : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1} << 10, std::int64_t{3} << 30,
                           std::int64_t{5} << 50, kMax}) {
        CHECK(value_of(parse_bytes(to_string(Bytes{v}))) == Bytes{v});
        CHECK(value_of(parse_time(to_string(Time::ps(v)))) == Time::ps(v));
    }
    CHECK(to_string(Bytes{1'536}) == "1.536KB");  // not a whole KiB, so decimal
    CHECK(bytes("1.536KB") == 1'536);
}
