// cluster.infiniband, read key by key (infiniband_spec.hpp has the meaning and source of each
// default; docs/models/infiniband.md the model).
#include "scenario/validate_infiniband.hpp"

#include "core/units_format.hpp"
#include "scenario/field_readers.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <string_view>

namespace fabricsim::scenario {

namespace {

const std::string kPath = "cluster.infiniband";
const std::vector<std::string> kKeys{"virtual_lanes",  "vl_buffer",      "credit_update_period",
                                     "sl_to_vl",       "vl_arbitration", "congestion_control", "header_bytes"};
const std::vector<std::string> kArbitrationKeys{"high", "low", "high_limit"};
const std::vector<std::string> kEntryKeys{"vl", "weight"};
const std::vector<std::string> kCcKeys{"enabled",       "threshold",  "marking_rate", "victim_mask", "packet_size",
                                       "ccti_increase", "ccti_limit", "ccti_min",     "ccti_timer",  "table"};

constexpr std::size_t kArbitrationEntriesMax = 64;   // two 32-entry blocks per table (OpenSM)
constexpr std::int64_t kCctEntriesMax = 255 * 64;    // ControlTableCap: 8 bits of 64-entry blocks
constexpr int kShiftMax = 3;                         // CCT_Shift: 2 bits
constexpr int kMultiplierMax = 0x3fff;               // CCT_Multiplier: 14 bits
constexpr Bytes kPacketSizeMax{0x3fc0};              // Mellanox CC manager's packet_size range
constexpr Time kCctiTimerMax = Time::ps(1'024'000) * 0xffff;  // 16 bits of 1.024 us
constexpr std::int64_t kHeaderBytesMax = 4096;      // any real header stack is far below

bool is_auto(const Node& n) { return n.is_scalar() && n.text == "auto"; }

std::optional<int> parse_int(std::string_view text) {
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return v;
}

// The data VLs, when virtual_lanes could be read.
struct Lanes {
    int count = 2;
    bool known = true;
};

std::optional<int> read_vl(const Node& n, const std::string& path, Lanes lanes, Issues& issues) {
    auto v = read_int(n, path, 0, 1'000'000, issues);
    if (!v) return std::nullopt;
    if (lanes.known && *v >= lanes.count) {
        issues.add(n.location, path,
                   fmt::format("VL {} is not a data VL of this fabric: virtual_lanes is {}, so expected 0 to {}", *v,
                               lanes.count, lanes.count - 1));
        return std::nullopt;
    }
    if (*v >= kIbDataVlsMax) {
        issues.add(n.location, path,
                   fmt::format("VL {} is not a data VL: expected 0 to {} (VL15 is the management lane)", *v,
                               kIbDataVlsMax - 1));
        return std::nullopt;
    }
    return static_cast<int>(*v);
}

std::optional<int> read_weight(const Node& n, const std::string& path, Issues& issues) {
    const auto v = n.is_scalar() ? parse_int(n.text) : std::nullopt;
    if (!v || *v < 0 || *v > 255) {
        issues.add(n.location, path,
                   fmt::format("expected a weight from 0 to 255 (units of 64 bytes), found {}", describe_found(n)));
        return std::nullopt;
    }
    return v;
}

std::optional<std::vector<int>> read_sl_to_vl(const Node& n, Lanes lanes, Issues& issues) {
    const std::string path = key_path(kPath, "sl_to_vl");
    if (!n.is_sequence() || n.items.size() != static_cast<std::size_t>(kIbServiceLevels)) {
        issues.add(n.location, path,
                   n.is_sequence() ? fmt::format("expected 16 VLs, one per SL 0 to 15, found {}", n.items.size())
                                   : fmt::format("expected a list of 16 VLs, one per SL 0 to 15, found {}",
                                                 describe_found(n)));
        return std::nullopt;
    }
    std::vector<int> map(n.items.size());
    bool ok = true;
    for (std::size_t sl = 0; sl < n.items.size(); ++sl) {
        if (auto vl = read_vl(n.items[sl], index_path(path, sl), lanes, issues)) map[sl] = *vl;
        else ok = false;
    }
    if (!ok) return std::nullopt;
    return map;
}

// A list of { vl, weight }. False after an issue.
bool read_vl_table(const Node& n, const std::string& path, Lanes lanes, std::vector<VlWeight>& out, Issues& issues) {
    if (!n.is_sequence()) {
        issues.add(n.location, path, fmt::format("expected a list of {{ vl, weight }} entries, found {}", describe_found(n)));
        return false;
    }
    if (n.items.size() > kArbitrationEntriesMax) {
        issues.add(n.location, path,
                   fmt::format("expected at most {} entries (the size of an IBA VL arbitration table), found {}",
                               kArbitrationEntriesMax, n.items.size()));
        return false;
    }
    std::vector<VlWeight> table;
    bool ok = true;
    for (std::size_t i = 0; i < n.items.size(); ++i) {
        const std::string p = index_path(path, i);
        const Node* map = read_section(n.items[i], p, issues);
        if (map == nullptr) {
            ok = false;
            continue;
        }
        check_keys(*map, p, kEntryKeys, issues);
        VlWeight entry;
        for (const char* key : {"vl", "weight"}) {
            const Node* value = map->find(key);
            if (value == nullptr) {
                issues.add(map->location, key_path(p, key), "missing required key");
                ok = false;
                continue;
            }
            const bool is_vl = std::string_view(key) == "vl";
            const auto v = is_vl ? read_vl(*value, key_path(p, key), lanes, issues)
                                 : read_weight(*value, key_path(p, key), issues);
            if (!v) ok = false;
            else if (is_vl) entry.vl = *v;
            else entry.weight = *v;
        }
        table.push_back(entry);
    }
    if (ok) out = std::move(table);
    return ok;
}

// False after an issue in a table (the cross check then has nothing certain to check).
bool read_arbitration(const Node& node, Lanes lanes, VlArbitrationSpec& out, Issues& issues) {
    const std::string path = key_path(kPath, "vl_arbitration");
    const Node* map = read_section(node, path, issues);
    if (map == nullptr) return false;
    check_keys(*map, path, kArbitrationKeys, issues);
    bool ok = true;
    if (const Node* n = map->find("high")) ok = read_vl_table(*n, key_path(path, "high"), lanes, out.high, issues) && ok;
    if (const Node* n = map->find("low")) ok = read_vl_table(*n, key_path(path, "low"), lanes, out.low, issues) && ok;
    if (const Node* n = map->find("high_limit"))
        if (auto v = read_int(*n, key_path(path, "high_limit"), 0, 255, issues)) out.high_limit = static_cast<int>(*v);
    return ok;
}

// "3:776" (shift:multiplier, OpenSM's cc_cct format) or a bare multiplier ("776" = 0:776).
std::optional<CctEntrySpec> parse_cct_entry(const Node& n) {
    if (!n.is_scalar()) return std::nullopt;
    const std::string_view text = n.text;
    CctEntrySpec e;
    std::optional<int> shift = 0;
    std::optional<int> multiplier;
    if (const auto colon = text.find(':'); colon != std::string_view::npos) {
        shift = parse_int(text.substr(0, colon));
        multiplier = parse_int(text.substr(colon + 1));
    } else {
        multiplier = parse_int(text);
    }
    if (!shift || !multiplier || *shift < 0 || *shift > kShiftMax || *multiplier < 0 || *multiplier > kMultiplierMax)
        return std::nullopt;
    e.shift = *shift;
    e.multiplier = *multiplier;
    return e;
}

bool read_table(const Node& n, const std::string& path, std::optional<std::vector<CctEntrySpec>>& out, Issues& issues) {
    if (is_auto(n)) {
        out.reset();
        return true;
    }
    if (!n.is_sequence() || n.items.empty() || static_cast<std::int64_t>(n.items.size()) > kCctEntriesMax) {
        issues.add(n.location, path,
                   fmt::format("expected auto or a list of 1 to {} entries shift:multiplier, found {}", kCctEntriesMax,
                               n.is_sequence() ? fmt::format("{} entries", n.items.size()) : describe_found(n)));
        return false;
    }
    std::vector<CctEntrySpec> table;
    bool ok = true;
    for (std::size_t i = 0; i < n.items.size(); ++i) {
        if (auto e = parse_cct_entry(n.items[i])) {
            table.push_back(*e);
            continue;
        }
        issues.add(n.items[i].location, index_path(path, i),
                   fmt::format("expected shift:multiplier with shift 0 to {} and multiplier 0 to {} (e.g. 3:776), "
                               "found {}",
                               kShiftMax, kMultiplierMax, describe_found(n.items[i])));
        ok = false;
    }
    if (ok) out = std::move(table);
    return ok;
}

struct CcRead {
    const Node* limit = nullptr;
    const Node* min = nullptr;
    bool limit_known = true;
    bool min_known = true;
    bool table_known = true;
};

CcRead read_congestion_control(const Node& node, IbCongestionControlSpec& out, Issues& issues) {
    CcRead r;
    const std::string path = key_path(kPath, "congestion_control");
    const Node* map = read_section(node, path, issues);
    if (map == nullptr) return r;
    check_keys(*map, path, kCcKeys, issues);
    const auto sub = [&](const char* key) { return key_path(path, key); };
    if (const Node* n = map->find("enabled"))
        if (auto v = read_bool(*n, sub("enabled"), issues)) out.enabled = *v;
    if (const Node* n = map->find("threshold"))
        if (auto v = read_bytes(*n, sub("threshold"), Zero::allowed, issues)) out.threshold = *v;
    if (const Node* n = map->find("marking_rate"))
        if (auto v = read_int(*n, sub("marking_rate"), 0, 0xffff, issues)) out.marking_rate = static_cast<int>(*v);
    if (const Node* n = map->find("victim_mask"))
        if (auto v = read_bool(*n, sub("victim_mask"), issues)) out.victim_mask = *v;
    if (const Node* n = map->find("packet_size")) {
        if (auto v = read_bytes(*n, sub("packet_size"), Zero::allowed, issues)) {
            if (*v > kPacketSizeMax)
                issues.add(n->location, sub("packet_size"),
                           fmt::format("expected at most {}B (0x3fc0), found {}", kPacketSizeMax.count(), n->text));
            else out.packet_size = *v;
        }
    }
    if (const Node* n = map->find("ccti_increase"))
        if (auto v = read_int(*n, sub("ccti_increase"), 0, 255, issues)) out.ccti_increase = static_cast<int>(*v);
    if (const Node* n = map->find("ccti_limit")) {
        r.limit = n;
        if (is_auto(*n)) {
            out.ccti_limit.reset();
        } else if (auto v = read_int(*n, sub("ccti_limit"), 0, kCctEntriesMax - 1, issues)) {
            out.ccti_limit = static_cast<int>(*v);
        } else {
            r.limit_known = false;
        }
    }
    if (const Node* n = map->find("ccti_min")) {
        r.min = n;
        auto v = read_int(*n, sub("ccti_min"), 0, 255, issues);
        r.min_known = v.has_value();
        if (v) out.ccti_min = static_cast<int>(*v);
    }
    if (const Node* n = map->find("ccti_timer")) {
        if (auto v = read_time(*n, sub("ccti_timer"), Zero::rejected, issues)) {
            if (*v > kCctiTimerMax)
                issues.add(n->location, sub("ccti_timer"),
                           fmt::format("{} is above the largest CCTI_Timer, 65535 x 1.024us = {}", n->text,
                                       kCctiTimerMax));
            else out.ccti_timer = *v;
        }
    }
    if (const Node* n = map->find("table")) r.table_known = read_table(*n, sub("table"), out.table, issues);
    return r;
}

// ccti_min <= ccti_limit <= the table's last index, each `auto` one resolved.
void check_cct_indices(const IbCongestionControlSpec& cc, const CcRead& r, Issues& issues) {
    if (!r.limit_known || !r.table_known) return;
    const std::string path = key_path(kPath, "congestion_control");
    if (cc.table && cc.ccti_limit && static_cast<std::size_t>(*cc.ccti_limit) >= cc.table->size()) {
        issues.add(r.limit->location, key_path(path, "ccti_limit"),
                   fmt::format("ccti_limit {} is past the last index of the table, {}; expected at most {}",
                               *cc.ccti_limit, cc.table->size() - 1, cc.table->size() - 1));
        return;
    }
    if (!r.min_known) return;
    const int limit = cc.ccti_limit ? *cc.ccti_limit
                                    : (cc.table ? static_cast<int>(cc.table->size()) - 1 : kIbAutoCctiLimit);
    if (cc.ccti_min <= limit) return;
    const std::string shown = cc.ccti_limit ? std::to_string(limit)
                                            : fmt::format("auto ({}: {})", limit,
                                                          cc.table ? "the table's last index" : "128 entries");
    const Node* at = r.min != nullptr ? r.min : r.limit;
    issues.add(at->location, key_path(path, "ccti_min"),
               fmt::format("ccti_min {} is above ccti_limit {}; expected ccti_min <= ccti_limit", cc.ccti_min, shown));
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
                   fmt::format("VL {} carries SL {} but has no entry with a weight above 0 in high or low; its "
                               "packets would never be sent",
                               vl, sl));
    }
}

}  // namespace

InfinibandSpec validate_infiniband(const Node* node, Bytes mtu, Issues& issues) {
    InfinibandSpec out;
    if (node == nullptr) return out;
    const Node* map = read_section(*node, kPath, issues);
    if (map == nullptr) return out;
    check_keys(*map, kPath, kKeys, issues);

    Lanes lanes;
    if (const Node* n = map->find("virtual_lanes")) {
        if (auto v = read_int(*n, key_path(kPath, "virtual_lanes"), 1, kIbDataVlsMax, issues)) {
            out.virtual_lanes = static_cast<int>(*v);
            lanes.count = out.virtual_lanes;
        } else {
            lanes.known = false;
        }
    }
    // The map and the low table follow virtual_lanes unless given.
    out.sl_to_vl = default_sl_to_vl(out.virtual_lanes);
    out.vl_arbitration.low = default_low_table(out.virtual_lanes);

    if (const Node* n = map->find("header_bytes"))
        if (auto v = read_int(*n, key_path(kPath, "header_bytes"), 0, kHeaderBytesMax, issues)) out.header_bytes = *v;
    const Bytes headers{out.header_bytes};  // LRH + BTH + ICRC + VCRC by default (docs/models/links.md)
    const Node* buffer = map->find("vl_buffer");
    if (buffer != nullptr && !is_auto(*buffer)) {
        if (auto v = read_bytes(*buffer, key_path(kPath, "vl_buffer"), Zero::rejected, issues)) {
            out.vl_buffer = *v;
            if (*v < mtu + headers)
                issues.add(buffer->location, key_path(kPath, "vl_buffer"),
                           fmt::format("{} cannot hold one {} packet with its {} of headers (cluster.fabric.mtu), "
                                       "so credits would never cover it; expected at least {} or auto",
                                       buffer->text, mtu, headers, fmt::format("{}B", (mtu + headers).count())));
        }
    }
    if (const Node* n = map->find("credit_update_period"))
        if (auto v = read_time(*n, key_path(kPath, "credit_update_period"), Zero::allowed, issues))
            out.credit_update_period = *v;

    const Node* sl_node = map->find("sl_to_vl");
    bool sl_known = true;
    if (sl_node != nullptr) {
        auto m = read_sl_to_vl(*sl_node, lanes, issues);
        sl_known = m.has_value();
        if (m) out.sl_to_vl = std::move(*m);
    }
    const Node* arbitration = map->find("vl_arbitration");
    const bool arbitration_known =
        arbitration == nullptr || read_arbitration(*arbitration, lanes, out.vl_arbitration, issues);
    CcRead cc;
    if (const Node* n = map->find("congestion_control")) cc = read_congestion_control(*n, out.congestion_control, issues);

    check_cct_indices(out.congestion_control, cc, issues);
    if (lanes.known && sl_known && arbitration_known)
        check_vl_weights(out, arbitration != nullptr ? arbitration->location
                              : sl_node != nullptr  ? sl_node->location
                                                    : map->location,
                         issues);
    return out;
}

}  // namespace fabricsim::scenario
