#include "fabric/ib_vl_buffer.hpp"

namespace fabricsim::fabric {

Bytes ib_round_trip_buffer(const Link& link, Time forwarding, Bytes mtu, Bytes header) {
    const Time rtt = transmit_time(mtu + header, link.bandwidth) + link.propagation * 2 + forwarding;
    const std::int64_t in_flight = (link.bandwidth.bits_per_second() / 8) * rtt.picoseconds() / 1'000'000'000'000;
    const std::int64_t bytes = in_flight + 2 * (mtu + header).count();
    return Bytes{(bytes + kIbCreditBlock - 1) / kIbCreditBlock * kIbCreditBlock};
}

Bytes ib_switch_share(const Node& node, int vls) {
    const auto ports = static_cast<std::int64_t>(node.radix > 0 ? node.radix : node.ports.size());
    if (ports == 0 || vls <= 0) return Bytes::zero();
    return Bytes{node.buffer.count() / ports / vls / kIbCreditBlock * kIbCreditBlock};
}

}  // namespace fabricsim::fabric
