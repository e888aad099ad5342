// Text → unit types, exactly (docs/ARCHITECTURE.md; docs/SCENARIO.md): "2.5us" is 2'500'000 ps, "1.5KiB" is 1536 B.
//
//   value := digits [ "." digits ] [ " " ] unit        (a bare "0" is zero for Time and Bytes)
//
// A decimal fraction is accepted only when the result is whole in the base unit (ps, B,
// bit/s, mm): "0.5B" and "0.1ps" are errors, never rounded. Values beyond int64 are errors
// that state the maximum. These are pure functions: they return the value or a message that
// says what was found and what was expected; the loader adds the file, line and key.
// Every text that core's to_string() prints parses back to the same value.
#pragma once

#include "core/units.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace fabricsim::scenario {

// A value or the reason there is none.
template <class T>
class Parsed {
public:
    static Parsed success(T value) { return Parsed{std::move(value), {}}; }
    static Parsed failure(std::string message) { return Parsed{std::nullopt, std::move(message)}; }
    bool ok() const { return value_.has_value(); }
    const T& value() const { return *value_; }
    const std::string& error() const { return error_; }

private:
    Parsed(std::optional<T> v, std::string e) : value_(std::move(v)), error_(std::move(e)) {}
    std::optional<T> value_;
    std::string error_;
};

// B, KB (kB), MB, GB, TB, PB; KiB..PiB; bits b, Kb (kb)..Pb, Kib..Pib (whole bytes only).
Parsed<Bytes> parse_bytes(std::string_view text);
// bps, Kbps (kbps)..Tbps; b/s, Kb/s..Tb/s; B/s, KB/s..TB/s, KiB/s..TiB/s (x 8 bits).
Parsed<Bandwidth> parse_bandwidth(std::string_view text);
// ps, ns, us (µs, μs), ms, s.
Parsed<Time> parse_time(std::string_view text);
// mm, cm, m, km.
Parsed<Length> parse_length(std::string_view text);

// The texts each parser above reads, as a regular expression for a JSON Schema's "pattern"
// (ECMA-262; unanchored, the caller anchors it): digits, a fraction, spaces, one of the units
// (or a bare 0). A value that matches may still be refused (not whole, beyond int64).
// The argument names the quantity: unit_pattern(Bytes{}).
std::string unit_pattern(Bytes);
std::string unit_pattern(Bandwidth);
std::string unit_pattern(Time);
std::string unit_pattern(Length);

}  // namespace fabricsim::scenario
