#include "scenario/describe_infiniband.hpp"

#include "core/units_format.hpp"

#include <fmt/format.h>

namespace fabricsim::scenario {

namespace {

Value text(std::string s) { return Value{std::move(s)}; }
Value integer(int v) { return Value{std::int64_t{v}}; }

Value vl_table(const std::vector<VlWeight>& table) {
    Value::List list;
    for (const VlWeight& e : table)
        list.push_back(Value{Value::Map{{"vl", integer(e.vl)}, {"weight", integer(e.weight)}}});
    return Value{std::move(list)};
}

// OpenSM's cc_cct notation, shift:multiplier.
Value cct(const std::optional<std::vector<CctEntrySpec>>& table) {
    if (!table) return text("auto");
    Value::List list;
    for (const CctEntrySpec& e : *table) list.push_back(text(fmt::format("{}:{}", e.shift, e.multiplier)));
    return Value{std::move(list)};
}

Value congestion_control(const IbCongestionControlSpec& c) {
    return Value{Value::Map{
        {"enabled", Value{c.enabled}},
        {"threshold", text(to_string(c.threshold))},
        {"marking_rate", integer(c.marking_rate)},
        {"victim_mask", Value{c.victim_mask}},
        {"packet_size", text(to_string(c.packet_size))},
        {"ccti_increase", integer(c.ccti_increase)},
        {"ccti_limit", c.ccti_limit ? integer(*c.ccti_limit) : text("auto")},
        {"ccti_min", integer(c.ccti_min)},
        {"ccti_timer", text(to_string(c.ccti_timer))},
        {"table", cct(c.table)},
    }};
}

}  // namespace

Value describe_infiniband(const InfinibandSpec& ib) {
    Value::List sl_to_vl;
    for (int vl : ib.sl_to_vl) sl_to_vl.push_back(integer(vl));
    return Value{Value::Map{
        {"virtual_lanes", integer(ib.virtual_lanes)},
        {"vl_buffer", text(ib.vl_buffer ? to_string(*ib.vl_buffer) : "auto")},
        {"credit_update_period", text(to_string(ib.credit_update_period))},
        {"sl_to_vl", Value{std::move(sl_to_vl)}},
        {"vl_arbitration", Value{Value::Map{
                               {"high", vl_table(ib.vl_arbitration.high)},
                               {"low", vl_table(ib.vl_arbitration.low)},
                               {"high_limit", integer(ib.vl_arbitration.high_limit)},
                           }}},
        {"congestion_control", congestion_control(ib.congestion_control)},
        {"header_bytes", integer(ib.header_bytes)},
    }};
}

}  // namespace fabricsim::scenario
