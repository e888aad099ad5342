// cluster.infiniband: the key table of InfinibandSpec (infiniband_spec.hpp has the meaning and
// source of each default), read strictly like the rest of the scenario, with the checks across
// its keys: every VL named is a data VL of the fabric, every VL an SL maps to has a weight in
// the arbitration tables, a given vl_buffer holds one MTU packet, and the CC's
// ccti_min <= ccti_limit <= the table's last index. Read whatever the fabric's technology.
#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/key_types.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <string_view>

namespace fabricsim::scenario {

namespace {

const std::string kPath = "cluster.infiniband";
constexpr std::size_t kArbitrationEntriesMax = 64;            // two 32-entry blocks per table (OpenSM)
constexpr std::int64_t kCctEntriesMax = 255 * 64;             // ControlTableCap: 8 bits of 64-entry blocks
constexpr int kShiftMax = 3;                                  // CCT_Shift: 2 bits
constexpr int kMultiplierMax = 0x3fff;                        // CCT_Multiplier: 14 bits
constexpr Bytes kPacketSizeMax{0x3fc0};                       // Mellanox CC manager's packet_size range
constexpr Time kCctiTimerMax = Time::ps(1'024'000) * 0xffff;  // 16 bits of 1.024 us
constexpr std::int64_t kHeaderBytesMax = 4096;                // any real header stack is far below

using IbKey = Key<InfinibandSpec, Lanes>;

Value integer_value(int v) { return Value{std::int64_t{v}}; }
Value text(std::string s) { return Value{std::move(s)}; }

std::optional<int> parse_int(std::string_view s) {
    int v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

std::optional<int> read_vl(const Node& n, const std::string& path, Lanes lanes, Issues& issues) {
    auto v = read_int(n, path, 0, 1'000'000, issues);
    if (!v) return std::nullopt;
    if (lanes.known && *v >= lanes.count)
        return issues.reject(n.location, path,
                             "VL {} is not a data VL of this fabric: virtual_lanes is {}, so expected 0 to {}", *v,
                             lanes.count, lanes.count - 1);
    if (*v >= kIbDataVlsMax)
        return issues.reject(n.location, path, "VL {} is not a data VL: expected 0 to {} (VL15 is the management lane)",
                             *v, kIbDataVlsMax - 1);
    return static_cast<int>(*v);
}

bool read_sl_to_vl(const Node& n, const std::string& path, InfinibandSpec& out, Lanes& lanes, Issues& issues) {
    if (!n.is_sequence() || n.items.size() != static_cast<std::size_t>(kIbServiceLevels)) {
        issues.add(n.location, path,
                   n.is_sequence()
                       ? fmt::format("expected 16 VLs, one per SL 0 to 15, found {}", n.items.size())
                       : fmt::format("expected a list of 16 VLs, one per SL 0 to 15, found {}", describe_found(n)));
        return false;
    }
    const auto vl = [&](const Node& item, const std::string& at, Issues& found) {
        return read_vl(item, at, lanes, found);
    };
    return store(out.sl_to_vl, read_items<int>(n, path, vl, issues));
}

// An entry of a VL arbitration table.
const Table<VlWeight, Lanes>& vl_weight_table() {
    static const Table<VlWeight, Lanes> t{
        kPath + ".vl_arbitration.high",
        {
            custom_key<VlWeight, Lanes>(
                "vl", TypeDoc{"data VL", {"integer"}}, kPacket, "The VL.",
                [](const Node& n, const std::string& path, VlWeight& out, Lanes& lanes, Issues& issues) {
                    return store(out.vl, read_vl(n, path, lanes, issues));
                },
                [](const VlWeight& e) { return integer_value(e.vl); })
                .required(),
            key("weight", &VlWeight::weight,
                parsed<int>(
                    TypeDoc{"integer, 0 to 255", {"integer"}},
                    [](const std::string& word) {
                        const auto v = parse_int(word);
                        return v && *v >= 0 && *v <= 255 ? v : std::nullopt;
                    },
                    "a weight from 0 to 255 (units of 64 bytes)"),
                kPacket, "Units of 64 bytes.")
                .required(),
        }};
    return t;
}

// A list of { vl, weight }. False after an issue.
bool read_vl_table(const Node& n, const std::string& path, Lanes lanes, std::vector<VlWeight>& out, Issues& issues) {
    if (!n.is_sequence()) {
        add_expected(issues, n, path, "a list of { vl, weight } entries");
        return false;
    }
    if (n.items.size() > kArbitrationEntriesMax) {
        issues.add(n.location, path, "expected at most {} entries (the size of an IBA VL arbitration table), found {}",
                   kArbitrationEntriesMax, n.items.size());
        return false;
    }
    const auto entry = [&](const Node& item, const std::string& at, Issues& found) -> std::optional<VlWeight> {
        VlWeight e;
        const SectionRead r = read_table(item, at, vl_weight_table(), e, lanes, found);
        if (r.map == nullptr || !r.failed.empty()) return std::nullopt;
        return e;
    };
    return store(out, read_items<VlWeight>(n, path, entry, issues));
}

Key<VlArbitrationSpec, Lanes> arbitration_table_key(const char* name, std::vector<VlWeight> VlArbitrationSpec::*member,
                                                    std::string doc) {
    return custom_key<VlArbitrationSpec, Lanes>(
        name, TypeDoc{"list of `{ vl, weight }`, at most 64", {"array"}}, kPacket, std::move(doc),
        [member](const Node& n, const std::string& path, VlArbitrationSpec& out, Lanes& lanes, Issues& issues) {
            return read_vl_table(n, path, lanes, out.*member, issues);
        },
        [member](const VlArbitrationSpec& a) { return print_list(vl_weight_table(), a.*member); });
}

const Table<VlArbitrationSpec, Lanes>& arbitration_table() {
    static const Table<VlArbitrationSpec, Lanes> t{
        kPath + ".vl_arbitration",
        {
            arbitration_table_key("high", &VlArbitrationSpec::high, "The high-priority table."),
            arbitration_table_key("low", &VlArbitrationSpec::low,
                                  "The low-priority table (OpenSM's default weight). Follows `virtual_lanes` when not "
                                  "given.")
                .shown_default("every data VL, weight `4`"),
            key("high_limit", &VlArbitrationSpec::high_limit, integer(0, 255), kPacket,
                "How much high-priority traffic (in 4 KiB units) may go before a low-priority packet gets a turn; "
                "`0`: one high-priority packet per low-priority one; `255`: no limit (IBA §7.6.9; OpenSM's default "
                "0)."),
        }};
    return t;
}

// "3:776" (shift:multiplier, OpenSM's cc_cct format) or a bare multiplier ("776" = 0:776).
std::optional<CctEntrySpec> parse_cct_entry(const Node& n) {
    if (!n.is_scalar()) return std::nullopt;
    const std::string_view s = n.text;
    std::optional<int> shift = 0;
    std::optional<int> multiplier;
    if (const auto colon = s.find(':'); colon != std::string_view::npos) {
        shift = parse_int(s.substr(0, colon));
        multiplier = parse_int(s.substr(colon + 1));
    } else {
        multiplier = parse_int(s);
    }
    if (!shift || !multiplier || *shift < 0 || *shift > kShiftMax || *multiplier < 0 || *multiplier > kMultiplierMax)
        return std::nullopt;
    return CctEntrySpec{*shift, *multiplier};
}

using CctTable = std::optional<std::vector<CctEntrySpec>>;

Field<CctTable> cct_table() {
    return {TypeDoc{"`auto`, or a list of 1 to 16320 entries", {"string", "array"}},
            [](const Node& n, const std::string& path, Issues& issues) -> std::optional<CctTable> {
                if (is_keyword(n, "auto")) return CctTable{};
                if (!n.is_sequence() || n.items.empty() || static_cast<std::int64_t>(n.items.size()) > kCctEntriesMax)
                    return issues.reject(
                        n.location, path, "expected auto or a list of 1 to {} entries shift:multiplier, found {}",
                        kCctEntriesMax,
                        n.is_sequence() ? fmt::format("{} entries", n.items.size()) : describe_found(n));
                const auto entry = [](const Node& item, const std::string& at,
                                      Issues& found) -> std::optional<CctEntrySpec> {
                    if (auto e = parse_cct_entry(item)) return e;
                    return found.reject(item.location, at,
                                        "expected shift:multiplier with shift 0 to {} and multiplier 0 to {} (e.g. "
                                        "3:776), found {}",
                                        kShiftMax, kMultiplierMax, describe_found(item));
                };
                auto table = read_items<CctEntrySpec>(n, path, entry, issues);
                if (!table) return std::nullopt;
                return CctTable{std::move(*table)};
            },
            // OpenSM's cc_cct notation, shift:multiplier.
            [](const CctTable& table) {
                if (!table) return text("auto");
                return list_value(
                    *table, [](const CctEntrySpec& e) { return text(fmt::format("{}:{}", e.shift, e.multiplier)); });
            }};
}

const Table<IbCongestionControlSpec, Lanes>& congestion_control_table() {
    using S = IbCongestionControlSpec;
    static const Table<S, Lanes> t{
        kPath + ".congestion_control",
        {
            key("enabled", &S::enabled, boolean(), kPacket,
                "IB CC: FECN marking at the switches and CCT rate control at the sources."),
            key("threshold", &S::threshold, size(Zero::allowed), kPacket,
                "Switch: a port/VL whose queue is above this is congested, and its packets are eligible for FECN."),
            key("marking_rate", &S::marking_rate, integer(0, 0xffff), kPacket,
                "Switch: eligible packets passed over between two marks (`0`: mark every one)."),
            key("victim_mask", &S::victim_mask, boolean(), kPacket,
                "Switch: whether a port/VL that had to wait for credits before a packet — a victim of congestion "
                "further on, not its root — may mark it too (IBA Annex A10's Victim_Mask, set for every switch "
                "port; OpenSM's default mask is all zero)."),
            key("packet_size", &S::packet_size,
                at_most(size(Zero::allowed), kPacketSizeMax, "size, 0B to 16320B",
                        [](const Node& n, const Bytes&) {
                            return fmt::format("expected at most {}B (0x3fc0), found {}", kPacketSizeMax.count(),
                                               n.text);
                        }),
                kPacket, "Switch: smaller packets are never marked."),
            key("ccti_increase", &S::ccti_increase, integer(0, 255), kPacket,
                "Source: added to the QP's table index on each BECN."),
            key("ccti_limit", &S::ccti_limit, integer_or_auto(0, kCctEntriesMax - 1), kPacket,
                "The highest index. `auto`: 127 with `table: auto`, else the table's last index. At most the "
                "table's last index."),
            key("ccti_min", &S::ccti_min, integer(0, 255), kPacket,
                "The lowest index (a QP starts there). At most `ccti_limit`."),
            key("ccti_timer", &S::ccti_timer,
                at_most(time(Zero::rejected), kCctiTimerMax, "time > 0, at most 65535 × 1.024us",
                        [](const Node& n, const Time&) {
                            return fmt::format("{} is above the largest CCTI_Timer, 65535 x 1.024us = {}", n.text,
                                               kCctiTimerMax);
                        }),
                kPacket, "Every tick lowers the index by one while it is above `ccti_min`."),
            key("table", &S::table, cct_table(), kPacket,
                "The congestion control table. An entry is `shift:multiplier` (shift 0 to 3, multiplier 0 to "
                "16383; OpenSM's `cc_cct` notation) or a bare multiplier (shift 0): after each packet the source "
                "waits multiplier / 2^shift packet times. `auto`: delays rising linearly from 0 at index 0 to 8 µs "
                "at `ccti_limit`, for MTU packets at the link speed (the Intel OPA fabric manager's table)."),
        }};
    return t;
}

// ccti_min <= ccti_limit <= the table's last index, each `auto` one resolved.
void check_cct_indices(const IbCongestionControlSpec& cc, const SectionRead& r, Issues& issues) {
    if (!r.ok("congestion_control.ccti_limit") || !r.ok("congestion_control.table")) return;
    const std::string path = key_path(kPath, "congestion_control");
    const Node* limit_node = r.given("congestion_control.ccti_limit");
    if (cc.table && cc.ccti_limit && static_cast<std::size_t>(*cc.ccti_limit) >= cc.table->size()) {
        issues.add(limit_node->location, key_path(path, "ccti_limit"),
                   "ccti_limit {} is past the last index of the table, {}; expected at most {}", *cc.ccti_limit,
                   cc.table->size() - 1, cc.table->size() - 1);
        return;
    }
    if (!r.ok("congestion_control.ccti_min")) return;
    const int limit =
        cc.ccti_limit ? *cc.ccti_limit : (cc.table ? static_cast<int>(cc.table->size()) - 1 : kIbAutoCctiLimit);
    if (cc.ccti_min <= limit) return;
    const std::string shown =
        cc.ccti_limit ? std::to_string(limit)
                      : fmt::format("auto ({}: {})", limit, cc.table ? "the table's last index" : "128 entries");
    const Node* min_node = r.given("congestion_control.ccti_min");
    issues.add((min_node != nullptr ? min_node : limit_node)->location, key_path(path, "ccti_min"),
               "ccti_min {} is above ccti_limit {}; expected ccti_min <= ccti_limit", cc.ccti_min, shown);
}

// Every VL an SL maps to needs a weight in one of the tables, or its packets never leave.
void check_vl_weights(const InfinibandSpec& ib, SourceLocation where, Issues& issues) {
    std::vector<bool> reported(static_cast<std::size_t>(kIbDataVlsMax), false);
    for (int sl = 0; sl < kIbServiceLevels; ++sl) {
        const int vl = ib.sl_to_vl[static_cast<std::size_t>(sl)];
        bool weighted = false;
        for (const auto* table : {&ib.vl_arbitration.high, &ib.vl_arbitration.low})
            for (const VlWeight& e : *table) weighted = weighted || (e.vl == vl && e.weight > 0);
        if (weighted || reported[static_cast<std::size_t>(vl)]) continue;
        reported[static_cast<std::size_t>(vl)] = true;
        issues.add(where, key_path(kPath, "vl_arbitration"),
                   "VL {} carries SL {} but has no entry with a weight above 0 in high or low; its "
                   "packets would never be sent",
                   vl, sl);
    }
}

void check_infiniband(const InfinibandSpec& ib, const SectionRead& r, Lanes lanes, Bytes mtu, Issues& issues) {
    const Bytes headers{ib.header_bytes};  // LRH + BTH + ICRC + VCRC by default (docs/models/links.md)
    if (const Node* buffer = r.given("vl_buffer");
        buffer != nullptr && r.ok("vl_buffer") && ib.vl_buffer && *ib.vl_buffer < mtu + headers)
        issues.add(buffer->location, key_path(kPath, "vl_buffer"),
                   "{} cannot hold one {} packet with its {} of headers (cluster.fabric.mtu), "
                   "so credits would never cover it; expected at least {} or auto",
                   buffer->text, mtu, headers, fmt::format("{}B", (mtu + headers).count()));
    check_cct_indices(ib.congestion_control, r, issues);
    const Node* arbitration = r.given("vl_arbitration");
    const Node* sl_node = r.given("sl_to_vl");
    if (lanes.known && r.ok("sl_to_vl") && r.ok("vl_arbitration") && r.ok("vl_arbitration.high") &&
        r.ok("vl_arbitration.low"))
        check_vl_weights(ib,
                         arbitration != nullptr ? arbitration->location
                         : sl_node != nullptr   ? sl_node->location
                                                : r.map->location,
                         issues);
}

}  // namespace

const Table<InfinibandSpec, Lanes>& infiniband_table() {
    using S = InfinibandSpec;
    static const Table<S, Lanes> t{
        kPath,
        {
            // First: the keys after it name VLs below it, and the defaults of sl_to_vl and of the
            // low arbitration table follow it.
            custom_key<S, Lanes>(
                "virtual_lanes", integer(1, kIbDataVlsMax).doc, kPacket,
                "Data VLs per port (VL0 up); VL15, the management lane, is not counted.",
                [](const Node& n, const std::string& path, S& out, Lanes& lanes, Issues& issues) {
                    const auto v = read_int(n, path, 1, kIbDataVlsMax, issues);
                    lanes = Lanes{v ? static_cast<int>(*v) : out.virtual_lanes, v.has_value()};
                    if (!v) return false;
                    out.virtual_lanes = static_cast<int>(*v);
                    out.sl_to_vl = default_sl_to_vl(out.virtual_lanes);
                    out.vl_arbitration.low = default_low_table(out.virtual_lanes);
                    return true;
                },
                [](const S& ib) { return integer_value(ib.virtual_lanes); }),
            key("vl_buffer", &S::vl_buffer, or_auto(size(Zero::rejected), "size > 0, or `auto`"), kPacket,
                "Credit buffer per VL per port (credits are 64-byte blocks). `auto`: into a switch, the switch's "
                "`buffer` / `radix` / `virtual_lanes`, but at least the cable's round trip at the link speed plus two "
                "MTU packets (the packet model notes where that floor was used); into an HCA, that round trip "
                "([models/infiniband.md](models/infiniband.md)). A given one must hold one MTU packet with its "
                "`header_bytes` (26) of headers."),
            key("credit_update_period", &S::credit_update_period, time(Zero::allowed), kPacket,
                "A receiver sends a VL's flow-control packet at most this often; credits freed in "
                "between go with the next one. `0s`: one as soon as a packet frees its blocks."),
            custom_key<S, Lanes>(
                "sl_to_vl", TypeDoc{"list of 16 VLs", {"array"}, 0, kIbDataVlsMax - 1, {}}, kPacket,
                "The VL of service level 0, 1, … 15. Each must be a data VL (below `virtual_lanes`). Follows "
                "`virtual_lanes` when not given.",
                read_sl_to_vl, [](const S& ib) { return int_list(ib.sl_to_vl); })
                .shown_default("SL mod `virtual_lanes`"),
            section("vl_arbitration", &S::vl_arbitration, arbitration_table(),
                    "VL arbitration (IBA §7.6.9): the high table before the low one, up to `high_limit`."),
            section("congestion_control", &S::congestion_control, congestion_control_table(),
                    "IB congestion control (IBA Annex A10)."),
            key("header_bytes", &S::header_bytes, integer64(0, kHeaderBytesMax), kPacket | kFlow,
                "Bytes each InfiniBand packet takes on the link beside its payload: LRH 8, BTH 12, ICRC 4, VCRC 2 "
                "(IBTA Vol. 1 ch. 7 and 9); add 40 for a GRH. An MTU packet takes (MTU + `header_bytes`) ÷ line "
                "rate, queue depths and credits (64-byte blocks) count it, and a given `vl_buffer` must hold MTU + "
                "`header_bytes`. VL arbitration weights and IB CC's packet time keep the standard 26."),
        }};
    return t;
}

InfinibandSpec validate_infiniband(const Node* node, Bytes mtu, Issues& issues) {
    InfinibandSpec out;
    if (node == nullptr) return out;
    Lanes lanes;
    const SectionRead r = read_table(*node, kPath, infiniband_table(), out, lanes, issues);
    if (r.map != nullptr) check_infiniband(out, r, lanes, mtu, issues);
    return out;
}

}  // namespace fabricsim::scenario
