#include "fabric/packet/vl_arbiter.hpp"

#include "fabric/packet/ib_credits.hpp"

namespace fabricsim::fabric {

VlArbiter::Table VlArbiter::table_of(const std::vector<scenario::VlWeight>& entries) {
    Table t;
    t.entries = entries;
    for (const auto& e : entries)
        if (e.weight > 0) t.vls |= 1u << e.vl;
    return t;
}

VlArbiter::VlArbiter(const scenario::VlArbitrationSpec& spec, std::size_t ports)
    : high_(table_of(spec.high)),
      low_(table_of(spec.low)),
      high_limit_(spec.high_limit == 255 ? -1 : std::int64_t{spec.high_limit} * 4096),
      high_at_(ports, 0),
      low_at_(ports, 0),
      high_left_(ports, 0),
      low_left_(ports, 0),
      high_sent_(ports, 0) {}

std::uint32_t VlArbiter::arbitrate(std::uint32_t port, std::uint32_t ready, const std::uint32_t* head_bytes) {
    const std::uint32_t high_ready = ready & high_.vls, low_ready = ready & low_.vls;
    std::int64_t& high_sent = high_sent_[port];
    // Zero high_sent lets one packet through even with high_limit 0.
    const bool high =
        high_ready != 0 && (low_ready == 0 || high_limit_ < 0 || high_sent == 0 || high_sent < high_limit_);
    const Table& table = high ? high_ : low_;
    std::uint8_t& at = high ? high_at_[port] : low_at_[port];
    std::int64_t& left = high ? high_left_[port] : low_left_[port];
    const auto n = static_cast<std::uint32_t>(table.entries.size());
    for (std::uint32_t tries = 0; n > 0 && tries <= n; ++tries) {
        const scenario::VlWeight& e = table.entries[at % n];
        if (e.weight > 0 && ((ready >> e.vl) & 1u) != 0) {
            if (left <= 0) left = std::int64_t{e.weight} * 64;
            const std::int64_t size = std::int64_t{head_bytes[static_cast<std::uint32_t>(e.vl)]} + IbCredits::kHeaders;
            left -= size;
            if (left <= 0) at = static_cast<std::uint8_t>((at + 1) % n);
            high_sent = high && low_ready != 0 ? high_sent + size : 0;
            return static_cast<std::uint32_t>(e.vl);
        }
        at = static_cast<std::uint8_t>((at + 1) % n);
        left = 0;
    }
    // A ready VL in neither table (validation makes every VL with an SL weigh something).
    return static_cast<std::uint32_t>(__builtin_ctz(ready));
}

}  // namespace fabricsim::fabric
