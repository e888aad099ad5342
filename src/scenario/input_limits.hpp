// The largest values a scenario may give, chosen so that every sum and product the engine
// forms stays inside its integer types, and far above anything a real cluster needs
// (docs/SCENARIO.md, "Limits"). The parsers accept the whole int64 range of each unit type;
// these limits are what the loader's readers then enforce, once for every key.
//
//   Time         1000000s (11.6 days)   the clock is int64 picoseconds (at most 106.75 days):
//                                       a start, a duration and a stop time added stay in range
//   Delay        1s                     a per-hop or per-message latency: summed along chains
//                                       of millions of hops and messages
//   Bytes        1PiB (2^50 B)          byte counters sum sizes over iterations and ranks;
//                                       2^50 · 8 bits · 10^12 ps/s fits 128 bits with room
//   Bandwidth    1Pbps (10^15 bit/s)    above any link; keeps packet times on the 64-bit path
//   Length       1000km                 5 ms of propagation; longer than any data-centre link
//
// And one limit across keys: the largest message at the slowest endpoint rate must take at
// most the Time limit (otherwise its transmit time alone overflows the clock's range).
#pragma once

#include "core/units.hpp"

#include <optional>
#include <string>

namespace fabricsim::scenario {

inline constexpr Time kMaxTime = Time::s(1'000'000);
inline constexpr Time kMaxDelay = Time::s(1);
inline constexpr Bytes kMaxBytes = Bytes{std::int64_t{1} << 50};
inline constexpr Bandwidth kMaxBandwidth = Bandwidth::Gbps(1'000'000);
inline constexpr Length kMaxLength = Length::m(1'000'000);

// nullopt when `v` is within its limit, else "at most <limit> (<why>)" for "expected ..., found".
std::optional<std::string> beyond_limit(Time v, Time limit = kMaxTime);
std::optional<std::string> beyond_limit(Bytes v);
std::optional<std::string> beyond_limit(Bandwidth v);
std::optional<std::string> beyond_limit(Length v);

}  // namespace fabricsim::scenario
