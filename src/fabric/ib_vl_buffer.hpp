// How much input buffer an InfiniBand port gives each virtual lane: the credit round trip's
// floor and the switch preset's share. A fact of the fabric, read by the packet model's credits
// (packet/ib_credits.hpp) and the flow model's back-pressure (flow/dcqcn_fluid_fabric.cpp).
#pragma once

#include "core/units.hpp"
#include "fabric/topology.hpp"

#include <cstdint>

namespace fabricsim::fabric {

// IBA credits count 64-byte blocks; a packet's headers: LRH 8 + BTH 12 + ICRC 4 + VCRC 2.
inline constexpr std::int64_t kIbCreditBlock = 64;
inline constexpr std::int64_t kIbHeaderBytes = 26;

// The auto vl_buffer of a link into a node of forwarding latency `forwarding`: its credit
// round trip at line rate plus two MTU packets of `header` bytes beside their payload.
Bytes ib_round_trip_buffer(const Link& link, Time forwarding, Bytes mtu, Bytes header = Bytes{kIbHeaderBytes});
// A switch's buffer per port and VL: buffer / radix / vls, down to whole 64-byte blocks.
Bytes ib_switch_share(const Node& node, int vls);

}  // namespace fabricsim::fabric
