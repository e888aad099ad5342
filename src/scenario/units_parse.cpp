#include "scenario/units_parse.hpp"

#include "core/units_format.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <limits>
#include <span>

namespace fabricsim::scenario {

namespace {

// 128-bit so that mantissa x unit never overflows before the range check.
using i128 = __int128;

constexpr i128 kInt64Max = std::numeric_limits<std::int64_t>::max();
// Significant digits that fit i128 with room for one multiplication by a power of ten.
constexpr int kMaxDigits = 36;

// One unit is num / den base units (ps, bytes, bit/s, mm).
struct UnitDef {
    std::string_view name;
    std::int64_t num;
    std::int64_t den = 1;
};

constexpr std::int64_t kKi = std::int64_t{1} << 10;
constexpr std::int64_t kMi = std::int64_t{1} << 20;
constexpr std::int64_t kGi = std::int64_t{1} << 30;
constexpr std::int64_t kTi = std::int64_t{1} << 40;
constexpr std::int64_t kPi = std::int64_t{1} << 50;

constexpr std::array kByteUnits{
    UnitDef{"B", 1},
    UnitDef{"KB", 1'000},
    UnitDef{"kB", 1'000},
    UnitDef{"MB", 1'000'000},
    UnitDef{"GB", 1'000'000'000},
    UnitDef{"TB", 1'000'000'000'000},
    UnitDef{"PB", 1'000'000'000'000'000},
    UnitDef{"KiB", kKi},
    UnitDef{"MiB", kMi},
    UnitDef{"GiB", kGi},
    UnitDef{"TiB", kTi},
    UnitDef{"PiB", kPi},
    UnitDef{"b", 1, 8},
    UnitDef{"Kb", 1'000, 8},
    UnitDef{"kb", 1'000, 8},
    UnitDef{"Mb", 1'000'000, 8},
    UnitDef{"Gb", 1'000'000'000, 8},
    UnitDef{"Tb", 1'000'000'000'000, 8},
    UnitDef{"Pb", 1'000'000'000'000'000, 8},
    UnitDef{"Kib", kKi, 8},
    UnitDef{"Mib", kMi, 8},
    UnitDef{"Gib", kGi, 8},
    UnitDef{"Tib", kTi, 8},
    UnitDef{"Pib", kPi, 8},
};

constexpr std::array kRateUnits{
    UnitDef{"bps", 1},          UnitDef{"Kbps", 1'000},         UnitDef{"kbps", 1'000},
    UnitDef{"Mbps", 1'000'000}, UnitDef{"Gbps", 1'000'000'000}, UnitDef{"Tbps", 1'000'000'000'000},
    UnitDef{"b/s", 1},          UnitDef{"Kb/s", 1'000},         UnitDef{"kb/s", 1'000},
    UnitDef{"Mb/s", 1'000'000}, UnitDef{"Gb/s", 1'000'000'000}, UnitDef{"Tb/s", 1'000'000'000'000},
    UnitDef{"B/s", 8},          UnitDef{"KB/s", 8'000},         UnitDef{"kB/s", 8'000},
    UnitDef{"MB/s", 8'000'000}, UnitDef{"GB/s", 8'000'000'000}, UnitDef{"TB/s", 8'000'000'000'000},
    UnitDef{"KiB/s", 8 * kKi},  UnitDef{"MiB/s", 8 * kMi},      UnitDef{"GiB/s", 8 * kGi},
    UnitDef{"TiB/s", 8 * kTi},
};

constexpr std::array kTimeUnits{
    UnitDef{"ps", 1},
    UnitDef{"ns", 1'000},
    UnitDef{"us", 1'000'000},
    UnitDef{"\u00b5s", 1'000'000},  // micro sign
    UnitDef{"\u03bcs", 1'000'000},  // Greek small mu, what most keyboards produce
    UnitDef{"ms", 1'000'000'000},
    UnitDef{"s", 1'000'000'000'000},
};

constexpr std::array kLengthUnits{
    UnitDef{"mm", 1},
    UnitDef{"cm", 10},
    UnitDef{"m", 1'000},
    UnitDef{"km", 1'000'000},
};

// What a quantity is called in messages and which units it takes.
struct Quantity {
    std::string_view expected;  // "a size (e.g. 4KiB, 1MB)"
    std::string_view noun;      // "a size", for "is negative; a size cannot be negative"
    std::string_view base;      // "bytes", for "is not a whole number of bytes"
    bool bare_zero;             // "0" without a unit means zero
    std::span<const UnitDef> units;
};

constexpr Quantity kBytes{"a size (e.g. 4KiB, 1MB)", "a size", "bytes", true, kByteUnits};
constexpr Quantity kRate{"a rate (e.g. 400Gbps, 50GB/s)", "a rate", "bits per second", false, kRateUnits};
constexpr Quantity kTime{"a time (e.g. 500ns, 2.5us)", "a time", "picoseconds", true, kTimeUnits};
constexpr Quantity kLength{"a length (e.g. 10m, 50cm)", "a length", "millimetres", false, kLengthUnits};

// "2.5 us" split into its parts; the digits are kept as text for messages and hints.
struct Number {
    std::string_view digits;  // "2.5"
    std::string_view unit;    // "us"
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<Number> split(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (i == 0) return std::nullopt;
    if (i < text.size() && text[i] == '.') {
        const std::size_t dot = i++;
        while (i < text.size() && is_digit(text[i])) ++i;
        if (i == dot + 1) return std::nullopt;  // "5." is not a number
    }
    Number n{text.substr(0, i), {}};
    while (i < text.size() && text[i] == ' ') ++i;
    n.unit = text.substr(i);
    return n;
}

const UnitDef* find_unit(const Quantity& q, std::string_view name) {
    for (const auto& u : q.units)
        if (u.name == name) return &u;
    return nullptr;
}

bool any_unit_is(std::span<const UnitDef> units, std::string_view name) {
    for (const auto& u : units)
        if (u.name == name) return true;
    return false;
}

std::string quoted(std::string_view text) { return fmt::format("\"{}\"", text); }

// Why a value with a unit this quantity does not know was rejected, with the likely fix.
std::string unknown_unit_message(const Quantity& q, std::string_view text, const Number& n) {
    const std::string_view u = n.unit;
    auto generic = fmt::format("expected {}, found {}", q.expected, quoted(text));
    if (&q == &kBytes) {
        if (u == "K" || u == "k" || u == "M" || u == "G" || u == "T" || u == "P") {
            const char binary = u == "k" ? 'K' : u[0];
            return fmt::format("{} has no unit; did you mean \"{}{}B\" or \"{}{}iB\"?", quoted(text), n.digits, u,
                               n.digits, binary);
        }
        if (u == "Ki" || u == "Mi" || u == "Gi" || u == "Ti" || u == "Pi")
            return fmt::format("{} has no unit; did you mean \"{}{}B\"?", quoted(text), n.digits, u);
        return generic;
    }
    if (&q == &kRate) {
        if (u == "K" || u == "k" || u == "M" || u == "G" || u == "T")
            return fmt::format("{} has no unit; did you mean \"{}{}bps\"?", quoted(text), n.digits, u);
        if (any_unit_is(kByteUnits, u)) {
            // A bit unit ("400Gb") wants "ps"; a byte unit ("50GB") wants "/s".
            const bool bits = u.back() == 'b';
            return fmt::format("{} is a size, not a rate; did you mean \"{}{}{}\"?", quoted(text), n.digits, u,
                               bits ? "ps" : "/s");
        }
        if (u.size() > 3 && u.substr(u.size() - 3) == "Bps") {
            const auto prefix = u.substr(0, u.size() - 3);
            if (any_unit_is(kByteUnits, fmt::format("{}B", prefix)))
                return fmt::format("{}; did you mean \"{}{}B/s\"?", generic, n.digits, prefix);
        }
        return generic;
    }
    if (&q == &kTime) {
        if (u == "p" || u == "n" || u == "u" || u == "m" || u == "\u00b5" || u == "\u03bc")
            return fmt::format("{} has no unit; did you mean \"{}{}s\"?", quoted(text), n.digits, u);
        return generic;
    }
    if (u == "k" || u == "c") return fmt::format("{} has no unit; did you mean \"{}{}m\"?", quoted(text), n.digits, u);
    return generic;
}

std::string missing_unit_message(const Quantity& q, std::string_view text, const Number& n) {
    std::string_view unit = "m";
    if (&q == &kBytes)
        unit = "B";
    else if (&q == &kRate)
        unit = "Gbps";
    else if (&q == &kTime)
        unit = "us";
    return fmt::format("{} has no unit; did you mean \"{}{}\"?", quoted(text), n.digits, unit);
}

i128 pow10(int k) {
    i128 r = 1;
    while (k-- > 0) r *= 10;
    return r;
}

i128 gcd128(i128 a, i128 b) {
    while (b != 0) {
        const i128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

// The value in base units, or the reason it is not a whole int64 count of them.
template <class Max>
Parsed<std::int64_t> parse_quantity(std::string_view text, const Quantity& q, Max max_text) {
    using Result = Parsed<std::int64_t>;
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    if (!text.empty() && text.front() == '-' && split(text.substr(1)))
        return Result::failure(fmt::format("{} is negative; {} cannot be negative", quoted(text), q.noun));
    const auto number = split(text);
    if (!number) return Result::failure(fmt::format("expected {}, found {}", q.expected, quoted(text)));

    // Mantissa and decimal places, ignoring leading zeros and trailing fractional zeros.
    std::string_view whole = number->digits;
    std::string_view frac;
    if (const auto dot = whole.find('.'); dot != std::string_view::npos) {
        frac = whole.substr(dot + 1);
        whole = whole.substr(0, dot);
    }
    while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);
    while (whole.size() > 1 && whole.front() == '0') whole.remove_prefix(1);
    const bool is_zero = whole == "0" && frac.empty();

    const UnitDef* unit = nullptr;
    if (number->unit.empty()) {
        if (!(q.bare_zero && is_zero)) return Result::failure(missing_unit_message(q, text, *number));
    } else {
        unit = find_unit(q, number->unit);
        if (unit == nullptr) return Result::failure(unknown_unit_message(q, text, *number));
    }
    if (is_zero) return Result::success(0);

    std::string_view significant = whole == "0" ? std::string_view{} : whole;
    if (static_cast<int>(significant.size() + frac.size()) > kMaxDigits)
        return Result::failure(fmt::format("{} has too many digits", quoted(text)));
    i128 mantissa = 0;
    for (char c : significant) mantissa = mantissa * 10 + (c - '0');
    for (char c : frac) mantissa = mantissa * 10 + (c - '0');

    // value = mantissa * num / (10^places * den); whole only if the reduced denominator
    // divides the mantissa.
    i128 num = unit->num;
    i128 den = pow10(static_cast<int>(frac.size())) * unit->den;
    const i128 g = gcd128(num, den);
    num /= g;
    den /= g;
    if (mantissa % den != 0)
        return Result::failure(fmt::format("{} is not a whole number of {}", quoted(text), q.base));
    const i128 units = mantissa / den;
    if (units > kInt64Max / num)
        return Result::failure(fmt::format("{} is too large; the maximum is {}", quoted(text), max_text()));
    return Result::success(static_cast<std::int64_t>(units * num));
}

template <class T, class Make>
Parsed<T> convert(const Parsed<std::int64_t>& raw, Make make) {
    if (!raw.ok()) return Parsed<T>::failure(raw.error());
    return Parsed<T>::success(make(raw.value()));
}

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// What split() and the units of `q` accept; a "/" needs no escape in ECMA-262 outside a literal.
std::string pattern(const Quantity& q) {
    std::string units;
    for (const auto& u : q.units) units += (units.empty() ? "" : "|") + std::string(u.name);
    return fmt::format("{}[0-9]+(\\.[0-9]+)? *(?:{})", q.bare_zero ? "0|" : "", units);
}

}  // namespace

std::string unit_pattern(Bytes) { return pattern(kBytes); }
std::string unit_pattern(Bandwidth) { return pattern(kRate); }
std::string unit_pattern(Time) { return pattern(kTime); }
std::string unit_pattern(Length) { return pattern(kLength); }

Parsed<Bytes> parse_bytes(std::string_view text) {
    return convert<Bytes>(parse_quantity(text, kBytes, [] { return to_string(Bytes{kMax}); }),
                          [](std::int64_t v) { return Bytes{v}; });
}

Parsed<Bandwidth> parse_bandwidth(std::string_view text) {
    return convert<Bandwidth>(parse_quantity(text, kRate, [] { return to_string(Bandwidth::bps(kMax)); }),
                              [](std::int64_t v) { return Bandwidth::bps(v); });
}

Parsed<Time> parse_time(std::string_view text) {
    return convert<Time>(parse_quantity(text, kTime, [] { return to_string(Time::max()); }),
                         [](std::int64_t v) { return Time::ps(v); });
}

Parsed<Length> parse_length(std::string_view text) {
    return convert<Length>(parse_quantity(text, kLength, [] { return to_string(Length::mm(kMax)); }),
                           [](std::int64_t v) { return Length::mm(v); });
}

}  // namespace fabricsim::scenario
