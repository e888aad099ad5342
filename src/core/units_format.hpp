// Human-readable, exact text for the unit types: 81920 ps prints "81.92ns", 400e9 bit/s
// prints "400Gbps", 2^30 bytes prints "1GiB". The text is exact (no rounding), so the
// scenario loader parses it back to the same value.
//
//   Time:      largest of s, ms, us, ns, ps whose value is >= 1; decimals as needed
//   Bandwidth: largest of Tbps, Gbps, Mbps, Kbps, bps whose value is >= 1
//   Bytes:     the largest binary prefix (KiB..TiB) that divides exactly; otherwise the
//              largest decimal prefix (KB..TB) whose value is >= 1
//   Length:    km, m, mm likewise
#pragma once

#include "core/units.hpp"

#include <fmt/format.h>

#include <string>

namespace fabricsim {

std::string to_string(Time t);
std::string to_string(Bytes b);
std::string to_string(Bandwidth bw);
std::string to_string(Length l);

}  // namespace fabricsim

template <>
struct fmt::formatter<fabricsim::Time> : fmt::formatter<std::string> {
    auto format(fabricsim::Time v, format_context& ctx) const {
        return fmt::formatter<std::string>::format(fabricsim::to_string(v), ctx);
    }
};
template <>
struct fmt::formatter<fabricsim::Bytes> : fmt::formatter<std::string> {
    auto format(fabricsim::Bytes v, format_context& ctx) const {
        return fmt::formatter<std::string>::format(fabricsim::to_string(v), ctx);
    }
};
template <>
struct fmt::formatter<fabricsim::Bandwidth> : fmt::formatter<std::string> {
    auto format(fabricsim::Bandwidth v, format_context& ctx) const {
        return fmt::formatter<std::string>::format(fabricsim::to_string(v), ctx);
    }
};
template <>
struct fmt::formatter<fabricsim::Length> : fmt::formatter<std::string> {
    auto format(fabricsim::Length v, format_context& ctx) const {
        return fmt::formatter<std::string>::format(fabricsim::to_string(v), ctx);
    }
};
