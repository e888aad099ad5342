#include "core/units_format.hpp"

#include <array>
#include <cstdint>
#include <string_view>

namespace fabricsim {

namespace {

struct Unit {
    std::int64_t scale;
    std::string_view name;
};

// Exact decimal text of v / scale (scale a power of ten), trailing zeros trimmed.
std::string exact_decimal(std::int64_t v, std::int64_t scale) {
    const bool neg = v < 0;
    // |INT64_MIN| does not fit: go through unsigned.
    const std::uint64_t mag = neg ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    const auto s = static_cast<std::uint64_t>(scale);
    std::string out = fmt::format("{}{}", neg ? "-" : "", mag / s);
    std::uint64_t frac = mag % s;
    if (frac != 0) {
        int digits = 0;
        for (std::uint64_t k = s; k > 1; k /= 10) ++digits;
        std::string f = fmt::format("{:0{}}", frac, digits);
        while (!f.empty() && f.back() == '0') f.pop_back();
        out += '.';
        out += f;
    }
    return out;
}

template <std::size_t N>
std::string with_decimal_unit(std::int64_t v, const std::array<Unit, N>& units) {
    const std::uint64_t mag = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    for (const auto& u : units) {
        if (mag >= static_cast<std::uint64_t>(u.scale)) return exact_decimal(v, u.scale) + std::string(u.name);
    }
    const auto& last = units.back();
    return exact_decimal(v, last.scale) + std::string(last.name);
}

}  // namespace

std::string to_string(Time t) {
    static constexpr std::array<Unit, 5> units{
        {{1'000'000'000'000, "s"}, {1'000'000'000, "ms"}, {1'000'000, "us"}, {1'000, "ns"}, {1, "ps"}}};
    return with_decimal_unit(t.picoseconds(), units);
}

std::string to_string(Bandwidth bw) {
    static constexpr std::array<Unit, 5> units{
        {{1'000'000'000'000, "Tbps"}, {1'000'000'000, "Gbps"}, {1'000'000, "Mbps"}, {1'000, "Kbps"}, {1, "bps"}}};
    return with_decimal_unit(bw.bits_per_second(), units);
}

std::string to_string(Bytes b) {
    const std::int64_t v = b.count();
    static constexpr std::array<std::string_view, 5> binary{"PiB", "TiB", "GiB", "MiB", "KiB"};
    if (v != 0) {
        for (int k = 5; k >= 1; --k) {
            const std::int64_t scale = std::int64_t{1} << (10 * k);
            if (v % scale == 0) return fmt::format("{}{}", v / scale, binary[static_cast<std::size_t>(5 - k)]);
        }
    }
    static constexpr std::array<Unit, 6> decimal{{{1'000'000'000'000'000, "PB"},
                                                  {1'000'000'000'000, "TB"},
                                                  {1'000'000'000, "GB"},
                                                  {1'000'000, "MB"},
                                                  {1'000, "KB"},
                                                  {1, "B"}}};
    return with_decimal_unit(v, decimal);
}

std::string to_string(Length l) {
    static constexpr std::array<Unit, 3> units{{{1'000'000, "km"}, {1'000, "m"}, {1, "mm"}}};
    return with_decimal_unit(l.millimetres(), units);
}

}  // namespace fabricsim
