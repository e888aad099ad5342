// How the packet model numbers a message's packets (docs/models/packet.md, "Packets"): a
// message of `size` bytes is ceil(size / unit) packets of `unit` bytes, the last one shorter,
// numbered 0, 1, ... in 64 bits — a 16 TiB + 4 KiB message is 2^32 + 1 packets of 4 KiB, and
// counting them in 32 bits once made it a single packet, "done" in a microsecond. Over k QPs
// the packets are k contiguous parts, part j starting at ceil(j * packets / k).
#pragma once

#include "core/units.hpp"

#include <algorithm>
#include <cstdint>

namespace fabricsim::fabric {

// ceil(size / unit) packets, at least one (an empty message is one empty packet); `unit` > 0.
// Written as (size - 1) / unit + 1 so that it holds up to the largest Bytes.
constexpr std::uint64_t packet_count(Bytes size, std::int64_t unit) {
    return size.count() <= 0 ? 1 : static_cast<std::uint64_t>((size.count() - 1) / unit) + 1;
}

// The payload of packet `seq`: `unit`, the rest of the message for the last, zero past it.
constexpr std::int64_t packet_payload(Bytes size, std::int64_t unit, std::uint64_t seq) {
    const __int128 left = static_cast<__int128>(size.count()) - static_cast<__int128>(seq) * unit;
    return static_cast<std::int64_t>(std::clamp<__int128>(left, 0, unit));
}

// The first packet of part `part` of `qps`. Asked per packet received: the products take the
// 64-bit path below 2^32 packets and 128 bits only past it (a 128-bit division is a call).
constexpr std::uint64_t qp_part_begin(std::uint32_t part, std::uint64_t packets, std::uint32_t qps) {
    if (part == 0) return 0;
    if (packets <= UINT32_MAX) return (std::uint64_t{part} * packets + qps - 1) / qps;
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(part) * packets + qps - 1) / qps);
}

// The part packet `seq` belongs to: floor(seq * qps / packets), the inverse of qp_part_begin.
constexpr std::uint32_t qp_part_of(std::uint64_t seq, std::uint64_t packets, std::uint32_t qps) {
    if (qps == 1) return 0;
    if (packets <= UINT32_MAX) return static_cast<std::uint32_t>(seq * qps / packets);
    return static_cast<std::uint32_t>(static_cast<unsigned __int128>(seq) * qps / packets);
}

}  // namespace fabricsim::fabric
