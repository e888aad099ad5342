#include "core/units.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

namespace fabricsim {

namespace {
// GCC and Clang's 128-bit integer: exact products of bytes and picoseconds.
using i128 = __int128;
constexpr i128 kPsPerSecond = 1'000'000'000'000;
constexpr i128 kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Max_ps = std::numeric_limits<std::int64_t>::max();
}  // namespace

Time transmit_time_wide(Bytes size, Bandwidth rate) {
    if (rate.bits_per_second() <= 0)
        throw InternalError(fmt::format("transmit_time: rate must be positive, got {} bit/s", rate.bits_per_second()));
    if (size.count() < 0) throw InternalError(fmt::format("transmit_time: negative size {} B", size.count()));
    const i128 num = static_cast<i128>(size.count()) * 8 * kPsPerSecond;
    const i128 den = rate.bits_per_second();
    const i128 ps = (num + den - 1) / den;
    // Not a bug but an input beyond the engine: a size too large or a rate too small.
    if (ps > kInt64Max)
        throw ModelError(fmt::format("sending {} B at {} bit/s takes longer than the simulator can count ({} ps, "
                                     "about 106 days): the size or the rate in the scenario is too extreme",
                                     size.count(), rate.bits_per_second(), kInt64Max_ps));
    return Time::ps(static_cast<std::int64_t>(ps));
}

Bytes bytes_in(Time duration, Bandwidth rate) {
    if (duration.picoseconds() <= 0 || rate.bits_per_second() <= 0) return Bytes::zero();
    const i128 bits = static_cast<i128>(duration.picoseconds()) * rate.bits_per_second() / kPsPerSecond;
    return Bytes{static_cast<std::int64_t>(bits / 8)};
}

}  // namespace fabricsim
