// InfiniBand VL arbitration at an output port (IBA Vol. 1 §7.6.9; docs/models/infiniband.md).
//
// A port serves the high-priority table before the low one, but LimitOfHighPriority bounds
// what the high table sends while a low-priority VL waits: a high-priority packet may start
// while fewer than high_limit x 4 KiB have gone since the low table's last chance (the last
// one may overrun it, as with table weights), and always when none has (so high_limit 0 is
// one high-priority packet per low-priority opportunity, not none); then the low table sends
// one packet. 255: no limit. In a table the entry in turn may send weight x 64 bytes (a packet
// starts while any of it is left) before the next entry's turn; entries whose VL has nothing
// ready are passed over. A packet counts its payload plus the IB headers (IbCredits::kHeaders).
//
// One object serves every port of a network: the tables are the subnet's (OpenSM programs
// the same VLArbitrationTable on every port), the state in turn is per port, one array per
// field, indexed by the port (a directed link's index).
#pragma once

#include "scenario/infiniband_spec.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fabricsim::fabric {

class VlArbiter {
public:
    VlArbiter(const scenario::VlArbitrationSpec& spec, std::size_t ports);

    // The VL port `port` serves among those in `ready` (bit v; not empty), VL v's next packet
    // being head_bytes[v] payload bytes. Advances the port's table state as if it sent it.
    std::uint32_t arbitrate(std::uint32_t port, std::uint32_t ready, const std::uint32_t* head_bytes);

    // Bit v: VL v has an entry of positive weight in the high (low) table.
    std::uint32_t high_vls() const { return high_.vls; }
    std::uint32_t low_vls() const { return low_.vls; }
    // Bytes of high-priority packets before a low one may go; negative: no limit (255).
    std::int64_t high_limit() const { return high_limit_; }

private:
    struct Table {
        std::vector<scenario::VlWeight> entries;
        std::uint32_t vls = 0;
    };
    static Table table_of(const std::vector<scenario::VlWeight>& entries);

    Table high_, low_;
    std::int64_t high_limit_ = 0;
    // By port: the table entry in turn, the bytes it may still send, and the high-priority
    // bytes since the low table last had a chance (it has one whenever no low VL is ready).
    std::vector<std::uint8_t> high_at_, low_at_;
    std::vector<std::int64_t> high_left_, low_left_;
    std::vector<std::int64_t> high_sent_;
};

}  // namespace fabricsim::fabric
