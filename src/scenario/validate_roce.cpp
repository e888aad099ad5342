// cluster.roce, read key by key (roce_spec.hpp has the meaning and source of each default).
#include "scenario/validate_roce.hpp"

#include "core/units_format.hpp"
#include "scenario/field_readers.hpp"
#include "scenario/units_parse.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace fabricsim::scenario {

namespace {

const std::string kPath = "cluster.roce";
const std::vector<std::string> kRoceKeys{"pfc",       "ecn",       "dcqcn",    "mmu", "queues", "control_priority",
                                         "ack_every", "retransmit_timeout", "lossless", "header_bytes"};
constexpr std::int64_t kHeaderBytesMax = 4096;  // any real encapsulation stack is far below
const std::vector<std::string> kQueueKeys{"strict", "weights"};
const std::vector<std::string> kPfcKeys{"enabled", "priority", "headroom", "xoff", "xon_delta", "watchdog"};
const std::vector<std::string> kEcnKeys{"enabled", "kmin", "kmax", "pmax", "port_classes"};
const std::vector<std::string> kDcqcnKeys{"enabled",
                                          "preset",
                                          "g",
                                          "rate_ai",
                                          "rate_hai",
                                          "alpha_update_interval",
                                          "rate_decrease_interval",
                                          "rate_increase_timer",
                                          "byte_counter",
                                          "fast_recovery_steps",
                                          "clamp_target_rate",
                                          "min_rate",
                                          "cnp_interval"};
const std::vector<std::string> kMmuKeys{"alpha", "reserved_per_queue", "port_classes"};
const std::vector<std::string> kPresets{"nic", "paper"};

constexpr std::int64_t kMaxPriority = 7;            // 802.1Qbb: eight priorities
constexpr std::int64_t kMaxFastRecoverySteps = 1'000;
constexpr double kMaxAlpha = 64;                    // dynamic-threshold alphas in use run 1/128 .. 8
constexpr std::int64_t kMaxWeight = 255;            // a byte, as switch DWRR weights are configured
constexpr std::int64_t kMaxAckEvery = 1 << 20;

bool is_auto(const Node& n) { return n.is_scalar() && n.text == "auto"; }

// True when `text` looks like a word rather than a number, so that a misspelt keyword gets
// "expected ... or auto" rather than a unit message.
bool is_word(const Node& n) {
    if (!n.is_scalar() || n.text.empty()) return false;
    const char c = n.text[0];
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// A size, or `keyword` for nullopt. False after an issue (then `out` is left as it was).
bool read_bytes_or(const Node& n, const std::string& path, const char* keyword, Zero zero, std::optional<Bytes>& out,
                   Issues& issues) {
    if (n.is_scalar() && n.text == keyword) {
        out.reset();
        return true;
    }
    if (!n.is_scalar() || (is_word(n) && !parse_bytes(n.text).ok())) {
        issues.add(n.location, path,
                   fmt::format("expected a size (e.g. 4KiB, 1MB) or {}, found {}", keyword, describe_found(n)));
        return false;
    }
    auto v = read_bytes(n, path, zero, issues);
    if (!v) return false;
    out = *v;
    return true;
}

bool read_time_or(const Node& n, const std::string& path, const char* keyword, Zero zero, std::optional<Time>& out,
                  Issues& issues) {
    if (n.is_scalar() && n.text == keyword) {
        out.reset();
        return true;
    }
    if (!n.is_scalar() || (is_word(n) && !parse_time(n.text).ok())) {
        issues.add(n.location, path,
                   fmt::format("expected a time (e.g. 500ns, 2.5us) or {}, found {}", keyword, describe_found(n)));
        return false;
    }
    auto v = read_time(n, path, zero, issues);
    if (!v) return false;
    out = *v;
    return true;
}

bool read_rate_or_auto(const Node& n, const std::string& path, std::optional<Bandwidth>& out, Issues& issues) {
    if (is_auto(n)) {
        out.reset();
        return true;
    }
    if (!n.is_scalar() || (is_word(n) && !parse_bandwidth(n.text).ok())) {
        issues.add(n.location, path,
                   fmt::format("expected a rate (e.g. 40Mbps) or auto, found {}", describe_found(n)));
        return false;
    }
    auto v = read_bandwidth(n, path, issues);
    if (!v) return false;
    out = *v;
    return true;
}

std::optional<double> parse_number(std::string_view text) {
    double v = 0;
    const auto [at, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || at != text.data() + text.size() || text.empty() || !std::isfinite(v)) return std::nullopt;
    return v;
}

// A number in (0, max]: a decimal (0.125) or a fraction of two whole numbers ("1/8").
std::optional<double> read_fraction(const Node& n, const std::string& path, double max, Issues& issues) {
    std::optional<double> v;
    if (n.is_scalar()) {
        const std::string_view text = n.text;
        if (const auto slash = text.find('/'); slash != std::string_view::npos) {
            std::int64_t num = 0;
            std::int64_t den = 0;
            const auto a = std::from_chars(text.data(), text.data() + slash, num);
            const auto b = std::from_chars(text.data() + slash + 1, text.data() + text.size(), den);
            if (a.ec == std::errc{} && a.ptr == text.data() + slash && slash > 0 && b.ec == std::errc{} &&
                b.ptr == text.data() + text.size() && slash + 1 < text.size() && den > 0 && num >= 0)
                v = static_cast<double>(num) / static_cast<double>(den);
        } else {
            v = parse_number(text);
        }
    }
    if (!v) {
        issues.add(n.location, path,
                   fmt::format("expected a number (e.g. 0.125) or a fraction (e.g. 1/8), found {}", describe_found(n)));
        return std::nullopt;
    }
    if (!(*v > 0 && *v <= max)) {
        issues.add(n.location, path, fmt::format("{} is outside (0, {}]", n.text, max));
        return std::nullopt;
    }
    return v;
}

// One priority, or a list of distinct priorities (e.g. [6, 7]); an empty list only if allowed.
std::optional<std::vector<int>> read_priority_list(const Node& n, const std::string& at, bool allow_empty, Issues& issues) {
    if (n.is_scalar()) {
        auto v = read_int(n, at, 0, kMaxPriority, issues);
        if (!v) return std::nullopt;
        return std::vector<int>{static_cast<int>(*v)};
    }
    if (!n.is_sequence() || (n.items.empty() && !allow_empty)) {
        issues.add(n.location, at, fmt::format("expected a priority 0..7 or a list of them (e.g. [3, 4]), found {}", describe_found(n)));
        return std::nullopt;
    }
    std::vector<int> out;
    bool ok = true;
    for (std::size_t i = 0; i < n.items.size(); ++i) {
        auto v = read_int(n.items[i], index_path(at, i), 0, kMaxPriority, issues);
        if (!v) {
            ok = false;
            continue;
        }
        if (std::find(out.begin(), out.end(), *v) != out.end()) {
            issues.add(n.items[i].location, index_path(at, i),
                       fmt::format("priority {} is listed twice; expected each priority at most once", *v));
            ok = false;
        }
        out.push_back(static_cast<int>(*v));
    }
    if (!ok) return std::nullopt;
    return out;
}

std::optional<std::vector<int>> read_priorities(const Node& n, const std::string& at, Issues& issues) {
    return read_priority_list(n, at, false, issues);
}

// The sections, each reading its keys into `out`; the `*_known` flags say which values were
// read without an issue, for the checks across keys.
struct PfcRead {
    const Node* enabled = nullptr;
    const Node* priority = nullptr;
    bool priority_known = true;
    const Node* xoff = nullptr;
    const Node* xon_delta = nullptr;
    bool xoff_known = true;
    bool xon_delta_known = true;
};

PfcRead read_pfc(const Node& node, PfcSpec& out, Issues& issues) {
    PfcRead r;
    const std::string path = key_path(kPath, "pfc");
    const Node* map = read_section(node, path, issues);
    if (map == nullptr) return r;
    check_keys(*map, path, kPfcKeys, issues);
    if (const Node* n = map->find("enabled")) {
        r.enabled = n;
        if (auto v = read_bool(*n, key_path(path, "enabled"), issues)) out.enabled = *v;
    }
    if (const Node* n = map->find("priority")) {
        r.priority = n;
        auto v = read_priorities(*n, key_path(path, "priority"), issues);
        r.priority_known = v.has_value();
        if (v) out.priorities = *v;
    }
    if (const Node* n = map->find("headroom")) read_bytes_or(*n, key_path(path, "headroom"), "auto", Zero::rejected, out.headroom, issues);
    if (const Node* n = map->find("xoff")) {
        r.xoff = n;
        r.xoff_known = read_bytes_or(*n, key_path(path, "xoff"), "auto", Zero::rejected, out.xoff, issues);
    }
    if (const Node* n = map->find("xon_delta")) {
        r.xon_delta = n;
        auto v = read_bytes(*n, key_path(path, "xon_delta"), Zero::allowed, issues);
        r.xon_delta_known = v.has_value();
        if (v) out.xon_delta = *v;
    }
    if (const Node* n = map->find("watchdog")) read_time_or(*n, key_path(path, "watchdog"), "off", Zero::rejected, out.watchdog, issues);
    return r;
}

struct EcnRead {
    const Node* kmin = nullptr;
    const Node* kmax = nullptr;
    bool kmin_known = true;
    bool kmax_known = true;
};

// A size as the ECN literature writes it: whole kilobytes as KB (6400KB rather than 6250KiB).
std::string in_kb(Bytes b) { return b.count() % 1000 == 0 ? fmt::format("{}KB", b.count() / 1000) : to_string(b); }

// A port_classes list: one mapping per port speed, `speed` required and each speed once; `read`
// takes the other keys of item i (`keys`) into the class it returns.
template <class Class, class Read>
std::vector<Class> read_port_classes(const Node& node, const std::string& path, const std::vector<std::string>& keys,
                                     Read read, Issues& issues) {
    std::vector<Class> out;
    if (!node.is_sequence()) {
        issues.add(node.location, path,
                   fmt::format("expected a list of port classes, one per port speed (e.g. [{{speed: 400Gbps, ...}}]), "
                               "found {}",
                               describe_found(node)));
        return out;
    }
    std::vector<std::pair<Bandwidth, std::size_t>> seen;
    for (std::size_t i = 0; i < node.items.size(); ++i) {
        const std::string at = index_path(path, i);
        const Node* map = read_section(node.items[i], at, issues);
        if (map == nullptr) continue;
        std::vector<std::string> allowed{"speed"};
        allowed.insert(allowed.end(), keys.begin(), keys.end());
        check_keys(*map, at, allowed, issues);
        const Node* speed = map->find("speed");
        if (speed == nullptr) {
            issues.add(map->location, key_path(at, "speed"), "missing required key (the port speed this class is for)");
            continue;
        }
        const auto v = read_bandwidth(*speed, key_path(at, "speed"), issues);
        if (!v) continue;
        const auto same = std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == *v; });
        if (same != seen.end()) {
            issues.add(speed->location, key_path(at, "speed"),
                       fmt::format("{} is already the speed of {}; expected each port speed once", to_string(*v),
                                   index_path(path, same->second)));
            continue;
        }
        seen.emplace_back(*v, i);
        Class c;
        c.speed = *v;
        if (read(*map, at, c)) out.push_back(c);
    }
    return out;
}

EcnRead read_ecn(const Node& node, EcnSpec& out, Issues& issues) {
    EcnRead r;
    const std::string path = key_path(kPath, "ecn");
    const Node* map = read_section(node, path, issues);
    if (map == nullptr) return r;
    check_keys(*map, path, kEcnKeys, issues);
    if (const Node* n = map->find("enabled"))
        if (auto v = read_bool(*n, key_path(path, "enabled"), issues)) out.enabled = *v;
    if (const Node* n = map->find("kmin")) {
        r.kmin = n;
        r.kmin_known = read_bytes_or(*n, key_path(path, "kmin"), "auto", Zero::allowed, out.kmin, issues);
    }
    if (const Node* n = map->find("kmax")) {
        r.kmax = n;
        r.kmax_known = read_bytes_or(*n, key_path(path, "kmax"), "auto", Zero::rejected, out.kmax, issues);
    }
    if (const Node* n = map->find("pmax"))
        if (auto v = read_fraction(*n, key_path(path, "pmax"), 1, issues)) out.pmax = *v;
    if (const Node* n = map->find("port_classes")) {
        // Each class's kmin/kmax, auto = scaled at its speed; kmin <= kmax within a class.
        const auto read = [&](const Node& m, const std::string& at, EcnPortClass& c) {
            bool ok = true;
            if (const Node* k = m.find("kmin"))
                ok = read_bytes_or(*k, key_path(at, "kmin"), "auto", Zero::allowed, c.kmin, issues) && ok;
            if (const Node* k = m.find("kmax"))
                ok = read_bytes_or(*k, key_path(at, "kmax"), "auto", Zero::rejected, c.kmax, issues) && ok;
            if (!ok) return false;
            const Bytes kmin = c.kmin ? *c.kmin : ecn_kmin_auto(c.speed), kmax = c.kmax ? *c.kmax : ecn_kmax_auto(c.speed);
            if (kmin <= kmax) return true;
            issues.add(m.find("kmin") != nullptr ? m.find("kmin")->location : m.location, key_path(at, "kmin"),
                       fmt::format("kmin {} is above kmax {} for {} ports; RED marks from kmin up to kmax, so expected "
                                   "kmin <= kmax",
                                   in_kb(kmin), in_kb(kmax), to_string(c.speed)));
            return false;
        };
        out.port_classes = read_port_classes<EcnPortClass>(*n, key_path(path, "port_classes"), {"kmin", "kmax"}, read, issues);
    }
    return r;
}

void read_dcqcn(const Node& node, DcqcnSpec& out, Issues& issues) {
    const std::string path = key_path(kPath, "dcqcn");
    const Node* map = read_section(node, path, issues);
    if (map == nullptr) return;
    check_keys(*map, path, kDcqcnKeys, issues);
    const auto at = [&](const char* key) { return map->find(key); };
    const auto sub = [&](const char* key) { return key_path(path, key); };
    if (const Node* n = at("enabled"))
        if (auto v = read_bool(*n, sub("enabled"), issues)) out.enabled = *v;
    if (const Node* n = at("preset"))
        if (auto v = read_choice(*n, sub("preset"), "DCQCN preset", kPresets, issues))
            out.preset = *v == "paper" ? DcqcnPreset::paper : DcqcnPreset::nic;
    if (const Node* n = at("g")) {
        if (is_auto(*n)) {
            out.g.reset();
        } else if (auto v = read_fraction(*n, sub("g"), 1, issues)) {
            out.g = *v;
        }
    }
    if (const Node* n = at("rate_ai")) read_rate_or_auto(*n, sub("rate_ai"), out.rate_ai, issues);
    if (const Node* n = at("rate_hai")) read_rate_or_auto(*n, sub("rate_hai"), out.rate_hai, issues);
    if (const Node* n = at("alpha_update_interval"))
        read_time_or(*n, sub("alpha_update_interval"), "auto", Zero::rejected, out.alpha_update_interval, issues);
    if (const Node* n = at("rate_decrease_interval"))
        read_time_or(*n, sub("rate_decrease_interval"), "auto", Zero::rejected, out.rate_decrease_interval, issues);
    if (const Node* n = at("rate_increase_timer"))
        read_time_or(*n, sub("rate_increase_timer"), "auto", Zero::rejected, out.rate_increase_timer, issues);
    if (const Node* n = at("byte_counter"))
        read_bytes_or(*n, sub("byte_counter"), "auto", Zero::allowed, out.byte_counter, issues);
    if (const Node* n = at("fast_recovery_steps")) {
        if (is_auto(*n)) {
            out.fast_recovery_steps.reset();
        } else if (auto v = read_int(*n, sub("fast_recovery_steps"), 0, kMaxFastRecoverySteps, issues)) {
            out.fast_recovery_steps = static_cast<int>(*v);
        }
    }
    if (const Node* n = at("clamp_target_rate")) {
        if (is_auto(*n)) {
            out.clamp_target_rate.reset();
        } else if (!n->is_scalar() || (n->text != "true" && n->text != "false")) {
            issues.add(n->location, sub("clamp_target_rate"),
                       fmt::format("expected true, false or auto, found {}", describe_found(*n)));
        } else if (auto v = read_bool(*n, sub("clamp_target_rate"), issues)) {
            out.clamp_target_rate = *v;
        }
    }
    if (const Node* n = at("min_rate")) read_rate_or_auto(*n, sub("min_rate"), out.min_rate, issues);
    if (const Node* n = at("cnp_interval"))
        read_time_or(*n, sub("cnp_interval"), "auto", Zero::allowed, out.cnp_interval, issues);
}

void read_mmu(const Node& node, MmuSpec& out, Issues& issues) {
    const std::string path = key_path(kPath, "mmu");
    const Node* map = read_section(node, path, issues);
    if (map == nullptr) return;
    check_keys(*map, path, kMmuKeys, issues);
    if (const Node* n = map->find("alpha"))
        if (auto v = read_fraction(*n, key_path(path, "alpha"), kMaxAlpha, issues)) out.alpha = *v;
    if (const Node* n = map->find("port_classes")) {
        const auto read = [&](const Node& m, const std::string& at, MmuPortClass& c) {
            const Node* a = m.find("alpha");
            if (a == nullptr) {
                issues.add(m.location, key_path(at, "alpha"), "missing required key (the class's dynamic-threshold alpha)");
                return false;
            }
            const auto v = read_fraction(*a, key_path(at, "alpha"), kMaxAlpha, issues);
            if (v) c.alpha = *v;
            return v.has_value();
        };
        out.port_classes = read_port_classes<MmuPortClass>(*n, key_path(path, "port_classes"), {"alpha"}, read, issues);
    }
    if (const Node* n = map->find("reserved_per_queue"))
        if (auto v = read_bytes(*n, key_path(path, "reserved_per_queue"), Zero::allowed, issues))
            out.reserved_per_queue = *v;
}

// queues.strict: a list of distinct priorities; queues.weights: eight weights, one per priority.
void read_queues(const Node& node, QueuesSpec& out, Issues& issues) {
    const std::string path = key_path(kPath, "queues");
    const Node* map = read_section(node, path, issues);
    if (map == nullptr) return;
    check_keys(*map, path, kQueueKeys, issues);
    if (const Node* n = map->find("strict")) {
        if (auto v = read_priority_list(*n, key_path(path, "strict"), true, issues)) out.strict = *v;
    }
    if (const Node* n = map->find("weights")) {
        const std::string at = key_path(path, "weights");
        if (!n->is_sequence() || n->items.size() != out.weights.size()) {
            issues.add(n->location, at,
                       fmt::format("expected a list of 8 weights, one per priority (e.g. [1, 1, 1, 4, 1, 1, 1, 1]), "
                                   "found {}",
                                   n->is_sequence() ? fmt::format("a list of {}", n->items.size()) : describe_found(*n)));
        } else {
            for (std::size_t i = 0; i < n->items.size(); ++i)
                if (auto v = read_int(n->items[i], index_path(at, i), 1, kMaxWeight, issues))
                    out.weights[i] = static_cast<int>(*v);
        }
    }
}

// kmin <= kmax, each `auto` one at the link speed when that is known.
void check_ecn_order(const EcnSpec& ecn, const EcnRead& r, std::optional<Bandwidth> link, SourceLocation where,
                     Issues& issues) {
    if (!r.kmin_known || !r.kmax_known) return;
    if ((!ecn.kmin || !ecn.kmax) && !link) return;
    const Bytes kmin = ecn.kmin ? *ecn.kmin : ecn_kmin_auto(*link);
    const Bytes kmax = ecn.kmax ? *ecn.kmax : ecn_kmax_auto(*link);
    if (kmin <= kmax) return;
    const auto shown = [&](const Node* given, Bytes value, const char* rule) {
        return given != nullptr && !is_auto(*given)
                   ? given->text
                   : fmt::format("auto ({} x link / 25Gbps = {} at {})", rule, in_kb(value), *link);
    };
    issues.add(r.kmin != nullptr ? r.kmin->location : (r.kmax != nullptr ? r.kmax->location : where),
               key_path(kPath, "ecn.kmin"),
               fmt::format("kmin {} is above kmax {}; RED marks from kmin up to kmax, so expected kmin <= kmax",
                           shown(r.kmin, kmin, "100KB"), shown(r.kmax, kmax, "400KB")));
}

}  // namespace

RoceSpec validate_roce(const Node* node, std::optional<Bandwidth> link_speed, Issues& issues) {
    RoceSpec out;
    if (node == nullptr) return out;
    const Node* map = read_section(*node, kPath, issues);
    if (map == nullptr) return out;
    check_keys(*map, kPath, kRoceKeys, issues);

    PfcRead pfc;
    EcnRead ecn;
    if (const Node* n = map->find("pfc")) pfc = read_pfc(*n, out.pfc, issues);
    if (const Node* n = map->find("ecn")) ecn = read_ecn(*n, out.ecn, issues);
    if (const Node* n = map->find("dcqcn")) read_dcqcn(*n, out.dcqcn, issues);
    if (const Node* n = map->find("mmu")) read_mmu(*n, out.mmu, issues);
    if (const Node* n = map->find("queues")) read_queues(*n, out.queues, issues);
    bool control_known = true;
    if (const Node* n = map->find("control_priority")) {
        auto v = read_int(*n, key_path(kPath, "control_priority"), 0, kMaxPriority, issues);
        control_known = v.has_value();
        if (v) out.control_priority = static_cast<int>(*v);
    }
    if (const Node* n = map->find("ack_every"))
        if (auto v = read_int(*n, key_path(kPath, "ack_every"), 1, kMaxAckEvery, issues)) out.ack_every = static_cast<int>(*v);
    if (const Node* n = map->find("retransmit_timeout"))
        if (auto v = read_time(*n, key_path(kPath, "retransmit_timeout"), Zero::rejected, issues)) out.retransmit_timeout = *v;
    if (const Node* n = map->find("header_bytes"))
        if (auto v = read_int(*n, key_path(kPath, "header_bytes"), 0, kHeaderBytesMax, issues)) out.header_bytes = *v;
    const Node* lossless = map->find("lossless");
    bool lossless_known = true;
    if (lossless != nullptr) {
        auto v = read_bool(*lossless, key_path(kPath, "lossless"), issues);
        lossless_known = v.has_value();
        if (v) out.lossless = *v;
    }

    check_ecn_order(out.ecn, ecn, link_speed, map->location, issues);

    // ECN must mark before PFC pauses (DCQCN paper §5), checked when both are given.
    if (out.lossless && out.pfc.enabled && out.ecn.enabled && ecn.kmax_known && pfc.xoff_known && out.ecn.kmax &&
        out.pfc.xoff && !(*out.ecn.kmax < *out.pfc.xoff)) {
        issues.add(ecn.kmax->location, key_path(kPath, "ecn.kmax"),
                   fmt::format("kmax {} is not below pfc.xoff {}; ECN must mark before PFC pauses (DCQCN paper "
                               "\u00a75), so expected kmax < xoff: lower kmax or raise pfc.xoff",
                               ecn.kmax->text, pfc.xoff->text));
    }
    if (pfc.xoff_known && pfc.xon_delta_known && out.pfc.xoff && !(out.pfc.xon_delta < *out.pfc.xoff)) {
        const Node* at = pfc.xon_delta != nullptr ? pfc.xon_delta : pfc.xoff;
        issues.add(at->location, key_path(kPath, "pfc.xon_delta"),
                   fmt::format("xon_delta {} is not below pfc.xoff {}; XON = XOFF - xon_delta must stay above 0",
                               pfc.xon_delta != nullptr ? pfc.xon_delta->text : to_string(out.pfc.xon_delta),
                               pfc.xoff->text));
    }
    if (lossless_known && out.lossless && !out.pfc.enabled && pfc.enabled != nullptr) {
        issues.add(pfc.enabled->location, key_path(kPath, "pfc.enabled"),
                   "PFC is off but lossless is true; a lossless fabric needs pfc.enabled: true (set lossless: false "
                   "for lossy mode with drops and go-back-N)");
    }
    // CNPs, ACKs and NAKs go on control_priority, in a queue PFC never pauses. Reported at
    // control_priority when it was written, else at the pfc.priority that took its default.
    if (pfc.priority_known && control_known &&
        std::find(out.pfc.priorities.begin(), out.pfc.priorities.end(), out.control_priority) != out.pfc.priorities.end()) {
        const auto lossless_list = [&] {
            return out.pfc.priorities.size() == 1 ? fmt::format("{}", out.pfc.priorities.front())
                                                  : fmt::format("[{}]", fmt::join(out.pfc.priorities, ", "));
        };
        if (const Node* n = map->find("control_priority")) {
            issues.add(n->location, key_path(kPath, "control_priority"),
                       fmt::format("{} is a lossless priority (pfc.priority: {}); CNPs, ACKs and NAKs need a queue "
                                   "that PFC does not pause, so expected a priority not in pfc.priority",
                                   out.control_priority, lossless_list()));
        } else {
            const int p = out.control_priority;
            issues.add(pfc.priority != nullptr ? pfc.priority->location : map->location, key_path(kPath, "pfc.priority"),
                       fmt::format("{} the default control_priority; CNPs, ACKs and NAKs need a queue that PFC does "
                                   "not pause, so expected lossless priorities other than {} (or a control_priority "
                                   "set to another priority)",
                                   out.pfc.priorities.size() == 1 ? fmt::format("{} is also", p)
                                                                  : fmt::format("{} includes {},", lossless_list(), p),
                                   p));
        }
    }
    return out;
}

}  // namespace fabricsim::scenario
