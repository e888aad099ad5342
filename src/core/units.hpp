// Strong unit types of the engine: Time (integer picoseconds), Bytes, Bandwidth (bits/s) and
// Length (millimetres, for cables).
//
// docs/ARCHITECTURE.md: no double seconds inside the engine. Conversions to and from text happen once,
// at the edges (src/scenario/ parses, units_format.hpp prints); conversions to floating-point
// seconds happen only in reports (Time::seconds()).
//
// transmit_time() is the one place a size meets a rate: ceil(bytes * 8 * 1e12 / bps) in
// 128-bit arithmetic, since bytes * 8e12 overflows 64 bits above ~1.15 MB.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace fabricsim {

class Time {
public:
    constexpr Time() = default;
    static constexpr Time ps(std::int64_t v) { return Time{v}; }
    static constexpr Time ns(std::int64_t v) { return Time{v * 1'000}; }
    static constexpr Time us(std::int64_t v) { return Time{v * 1'000'000}; }
    static constexpr Time ms(std::int64_t v) { return Time{v * 1'000'000'000}; }
    static constexpr Time s(std::int64_t v) { return Time{v * 1'000'000'000'000}; }
    static constexpr Time zero() { return Time{0}; }
    static constexpr Time max() { return Time{std::numeric_limits<std::int64_t>::max()}; }

    constexpr std::int64_t picoseconds() const { return ps_; }
    // For reports only: never feed the result back into the engine.
    constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }

    constexpr auto operator<=>(const Time&) const = default;
    constexpr Time& operator+=(Time o) {
        ps_ += o.ps_;
        return *this;
    }
    constexpr Time& operator-=(Time o) {
        ps_ -= o.ps_;
        return *this;
    }
    friend constexpr Time operator+(Time a, Time b) { return Time{a.ps_ + b.ps_}; }
    friend constexpr Time operator-(Time a, Time b) { return Time{a.ps_ - b.ps_}; }
    friend constexpr Time operator*(Time a, std::int64_t k) { return Time{a.ps_ * k}; }
    friend constexpr Time operator*(std::int64_t k, Time a) { return Time{a.ps_ * k}; }
    friend constexpr Time operator/(Time a, std::int64_t k) { return Time{a.ps_ / k}; }
    friend constexpr std::int64_t operator/(Time a, Time b) { return a.ps_ / b.ps_; }
    friend constexpr Time operator%(Time a, Time b) { return Time{a.ps_ % b.ps_}; }

private:
    constexpr explicit Time(std::int64_t v) : ps_(v) {}
    std::int64_t ps_ = 0;
};

class Bytes {
public:
    constexpr Bytes() = default;
    constexpr explicit Bytes(std::int64_t v) : b_(v) {}
    static constexpr Bytes zero() { return Bytes{0}; }
    constexpr std::int64_t count() const { return b_; }
    constexpr std::int64_t bits() const { return b_ * 8; }

    constexpr auto operator<=>(const Bytes&) const = default;
    constexpr Bytes& operator+=(Bytes o) {
        b_ += o.b_;
        return *this;
    }
    constexpr Bytes& operator-=(Bytes o) {
        b_ -= o.b_;
        return *this;
    }
    friend constexpr Bytes operator+(Bytes a, Bytes b) { return Bytes{a.b_ + b.b_}; }
    friend constexpr Bytes operator-(Bytes a, Bytes b) { return Bytes{a.b_ - b.b_}; }
    friend constexpr Bytes operator*(Bytes a, std::int64_t k) { return Bytes{a.b_ * k}; }
    friend constexpr Bytes operator*(std::int64_t k, Bytes a) { return Bytes{a.b_ * k}; }
    friend constexpr Bytes operator/(Bytes a, std::int64_t k) { return Bytes{a.b_ / k}; }
    friend constexpr std::int64_t operator/(Bytes a, Bytes b) { return a.b_ / b.b_; }
    friend constexpr Bytes operator%(Bytes a, Bytes b) { return Bytes{a.b_ % b.b_}; }

private:
    std::int64_t b_ = 0;
};

// Bits per second.
class Bandwidth {
public:
    constexpr Bandwidth() = default;
    static constexpr Bandwidth bps(std::int64_t v) { return Bandwidth{v}; }
    static constexpr Bandwidth Mbps(std::int64_t v) { return Bandwidth{v * 1'000'000}; }
    static constexpr Bandwidth Gbps(std::int64_t v) { return Bandwidth{v * 1'000'000'000}; }
    static constexpr Bandwidth GBps(std::int64_t v) { return Bandwidth{v * 8'000'000'000}; }
    static constexpr Bandwidth zero() { return Bandwidth{0}; }
    constexpr std::int64_t bits_per_second() const { return bps_; }
    // For reports only.
    constexpr double bytes_per_second() const { return static_cast<double>(bps_) / 8.0; }

    constexpr auto operator<=>(const Bandwidth&) const = default;
    friend constexpr Bandwidth operator+(Bandwidth a, Bandwidth b) { return Bandwidth{a.bps_ + b.bps_}; }
    friend constexpr Bandwidth operator-(Bandwidth a, Bandwidth b) { return Bandwidth{a.bps_ - b.bps_}; }
    friend constexpr Bandwidth operator*(Bandwidth a, std::int64_t k) { return Bandwidth{a.bps_ * k}; }
    friend constexpr Bandwidth operator*(std::int64_t k, Bandwidth a) { return Bandwidth{a.bps_ * k}; }
    friend constexpr Bandwidth operator/(Bandwidth a, std::int64_t k) { return Bandwidth{a.bps_ / k}; }
    friend constexpr double operator/(Bandwidth a, Bandwidth b) {
        return static_cast<double>(a.bps_) / static_cast<double>(b.bps_);
    }

private:
    constexpr explicit Bandwidth(std::int64_t v) : bps_(v) {}
    std::int64_t bps_ = 0;
};

// Cable and path lengths, integer millimetres (5 ns/m propagation = 5 ps/mm, exact).
class Length {
public:
    constexpr Length() = default;
    static constexpr Length mm(std::int64_t v) { return Length{v}; }
    static constexpr Length m(std::int64_t v) { return Length{v * 1'000}; }
    constexpr std::int64_t millimetres() const { return mm_; }
    constexpr auto operator<=>(const Length&) const = default;

private:
    constexpr explicit Length(std::int64_t v) : mm_(v) {}
    std::int64_t mm_ = 0;
};

// Serialisation time of `size` at `rate`, rounded up to the next picosecond so that a
// transmission never finishes early. Throws InternalError (via the .cpp) on zero or negative
// rate; exact for every size and rate that fit their types (128-bit intermediate).
Time transmit_time_wide(Bytes size, Bandwidth rate);
inline Time transmit_time(Bytes size, Bandwidth rate) {
    // A packet (below 1 MiB) at a positive rate below 1 Pb/s: size·8·10^12 + rate fits 64
    // bits, and one 64-bit division gives the same ceiling as the 128-bit one (once per
    // packet per hop).
    const std::int64_t b = size.count(), bps = rate.bits_per_second();
    if (b >= 0 && b < (std::int64_t{1} << 20) && bps > 0 && bps < (std::int64_t{1} << 50))
        return Time::ps((b * 8'000'000'000'000 + bps - 1) / bps);
    return transmit_time_wide(size, rate);
}

// Bytes that `rate` moves in `duration`, rounded down (whole bytes only).
Bytes bytes_in(Time duration, Bandwidth rate);

// Light travels in fibre and copper at about 2/3 c: 5 ns per metre (docs/models/).
constexpr Time propagation_delay(Length cable) { return Time::ps(cable.millimetres() * 5); }

namespace literals {
constexpr Time operator""_ps(unsigned long long v) { return Time::ps(static_cast<std::int64_t>(v)); }
constexpr Time operator""_ns(unsigned long long v) { return Time::ns(static_cast<std::int64_t>(v)); }
constexpr Time operator""_us(unsigned long long v) { return Time::us(static_cast<std::int64_t>(v)); }
constexpr Time operator""_ms(unsigned long long v) { return Time::ms(static_cast<std::int64_t>(v)); }
constexpr Time operator""_s(unsigned long long v) { return Time::s(static_cast<std::int64_t>(v)); }
constexpr Bytes operator""_B(unsigned long long v) { return Bytes{static_cast<std::int64_t>(v)}; }
constexpr Bytes operator""_KB(unsigned long long v) { return Bytes{static_cast<std::int64_t>(v) * 1'000}; }
constexpr Bytes operator""_MB(unsigned long long v) { return Bytes{static_cast<std::int64_t>(v) * 1'000'000}; }
constexpr Bytes operator""_GB(unsigned long long v) { return Bytes{static_cast<std::int64_t>(v) * 1'000'000'000}; }
constexpr Bytes operator""_KiB(unsigned long long v) { return Bytes{static_cast<std::int64_t>(v) << 10}; }
constexpr Bytes operator""_MiB(unsigned long long v) { return Bytes{static_cast<std::int64_t>(v) << 20}; }
constexpr Bytes operator""_GiB(unsigned long long v) { return Bytes{static_cast<std::int64_t>(v) << 30}; }
constexpr Bandwidth operator""_bps(unsigned long long v) { return Bandwidth::bps(static_cast<std::int64_t>(v)); }
constexpr Bandwidth operator""_Mbps(unsigned long long v) { return Bandwidth::Mbps(static_cast<std::int64_t>(v)); }
constexpr Bandwidth operator""_Gbps(unsigned long long v) { return Bandwidth::Gbps(static_cast<std::int64_t>(v)); }
constexpr Bandwidth operator""_Tbps(unsigned long long v) {
    return Bandwidth::Gbps(static_cast<std::int64_t>(v) * 1'000);
}
constexpr Bandwidth operator""_GBps(unsigned long long v) { return Bandwidth::GBps(static_cast<std::int64_t>(v)); }
constexpr Length operator""_m(unsigned long long v) { return Length::m(static_cast<std::int64_t>(v)); }
}  // namespace literals

}  // namespace fabricsim
