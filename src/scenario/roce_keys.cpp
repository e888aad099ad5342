// cluster.roce: the key table of RoceSpec (roce_spec.hpp has the meaning and source of each
// default), read strictly like the rest of the scenario, with the checks across its keys:
// ecn.kmin <= ecn.kmax (an `auto` one worked out at the fabric's link speed when that is
// known), ecn.kmax below pfc.xoff when both are given (ECN must mark before PFC pauses,
// DCQCN paper §5), pfc.xon_delta below a given pfc.xoff, PFC on a lossless fabric, and the
// control priority outside the lossless ones. The section is read whatever the fabric's
// technology; an InfiniBand fabric ignores it.
#include "scenario/validate.hpp"

#include "core/units_format.hpp"
#include "scenario/key_types.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace fabricsim::scenario {

namespace {

const std::string kPath = "cluster.roce";
constexpr std::int64_t kHeaderBytesMax = 4096;  // any real encapsulation stack is far below
constexpr std::int64_t kMaxPriority = 7;        // 802.1Qbb: eight priorities
constexpr std::int64_t kMaxFastRecoverySteps = 1'000;
constexpr double kMaxAlpha = 64;          // dynamic-threshold alphas in use run 1/128 .. 8
constexpr std::int64_t kMaxWeight = 255;  // a byte, as switch DWRR weights are configured
constexpr std::int64_t kMaxAckEvery = 1 << 20;

// One priority, or a list of distinct priorities (e.g. [6, 7]); an empty list only if allowed.
std::optional<std::vector<int>> read_priority_list(const Node& n, const std::string& at, bool allow_empty,
                                                   Issues& issues) {
    if (n.is_scalar()) {
        auto v = read_int(n, at, 0, kMaxPriority, issues);
        if (!v) return std::nullopt;
        return std::vector<int>{static_cast<int>(*v)};
    }
    if (!n.is_sequence() || (n.items.empty() && !allow_empty))
        return add_expected(issues, n, at, "a priority 0..7 or a list of them (e.g. [3, 4])");
    std::vector<int> seen;
    const auto priority = [&](const Node& item, const std::string& path, Issues& found) -> std::optional<int> {
        const auto v = integer(0, kMaxPriority).read(item, path, found);
        if (!v) return std::nullopt;
        const bool twice = std::find(seen.begin(), seen.end(), *v) != seen.end();
        seen.push_back(*v);
        if (!twice) return v;
        return found.reject(item.location, path, "priority {} is listed twice; expected each priority at most once",
                            *v);
    };
    return read_items<int>(n, at, priority, issues);
}

// pfc.priority: one priority as a number, several as a list (how `priority` reads them); and,
// `strict`, queues.strict: a list, which may be empty.
Field<std::vector<int>> priority_list(bool strict) {
    return {
        strict
            ? TypeDoc{"list of distinct priorities, 0 to 7; may be empty", {"array", "integer"}, 0, kMaxPriority}
            : TypeDoc{"integer, 0 to 7, or a non-empty list of distinct ones", {"integer", "array"}, 0, kMaxPriority},
        [strict](const Node& n, const std::string& path, Issues& issues) {
            return read_priority_list(n, path, strict, issues);
        },
        [strict](const std::vector<int>& list) {
            return list.size() == 1 && !strict ? Value{std::int64_t{list.front()}} : int_list(list);
        }};
}

Field<std::array<int, 8>> weights() {
    return {TypeDoc{"list of 8 integers, 1 to 255", {"array"}, 1, kMaxWeight, {}},
            [](const Node& n, const std::string& at, Issues& issues) -> std::optional<std::array<int, 8>> {
                std::array<int, 8> out{1, 1, 1, 1, 1, 1, 1, 1};
                if (!n.is_sequence() || n.items.size() != out.size())
                    return issues.reject(
                        n.location, at,
                        "expected a list of 8 weights, one per priority (e.g. [1, 1, 1, 4, 1, 1, 1, "
                        "1]), found {}",
                        n.is_sequence() ? fmt::format("a list of {}", n.items.size()) : describe_found(n));
                const auto list = read_items<int>(n, at, integer(1, kMaxWeight).read, issues);
                if (!list) return std::nullopt;
                std::copy(list->begin(), list->end(), out.begin());
                return out;
            },
            [](const std::array<int, 8>& w) { return int_list(std::vector<int>(w.begin(), w.end())); }};
}

// A size as the ECN literature writes it: whole kilobytes as KB (6400KB rather than 6250KiB).
std::string in_kb(Bytes b) { return b.count() % 1000 == 0 ? fmt::format("{}KB", b.count() / 1000) : to_string(b); }

// A port_classes list: one mapping per port speed, `speed` required and each speed once, the
// other keys of each read with `table` (as the section's keys of those names read them), then
// held to `check`; printed with `speed` first, only when given.
template <class Class, class Check>
Field<std::vector<Class>> port_classes(std::string type, const Table<Class>& table, Check check) {
    const Table<Class>* keys = &table;  // a static table; the lambdas outlive this call
    const auto read = [keys, check](const Node& node, const std::string& path,
                                    Issues& issues) -> std::optional<std::vector<Class>> {
        std::vector<Class> out;
        if (!node.is_sequence()) {
            add_expected(issues, node, path,
                         "a list of port classes, one per port speed (e.g. [{speed: 400Gbps, ...}])");
            return out;
        }
        std::vector<std::pair<Bandwidth, std::size_t>> seen;
        for (std::size_t i = 0; i < node.items.size(); ++i) {
            const std::string at = index_path(path, i);
            const Node* map = read_section(node.items[i], at, issues);
            if (map == nullptr) continue;
            std::vector<std::string> allowed{"speed"};
            for (const std::string& k : keys->names()) allowed.push_back(k);
            check_keys(*map, at, allowed, issues);
            const Node* speed = map->find("speed");
            if (speed == nullptr) {
                issues.add(map->location, key_path(at, "speed"),
                           "missing required key (the port speed this class is for)");
                continue;
            }
            const auto v = rate().read(*speed, key_path(at, "speed"), issues);
            if (!v) continue;
            const auto same = std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == *v; });
            if (same != seen.end()) {
                issues.add(speed->location, key_path(at, "speed"),
                           "{} is already the speed of {}; expected each port speed once", to_string(*v),
                           index_path(path, same->second));
                continue;
            }
            seen.emplace_back(*v, i);
            Class c;
            c.speed = *v;
            NoContext none;
            if (read_keys(*map, at, *keys, c, none, issues).failed.empty() && check(*map, at, c, issues))
                out.push_back(c);
        }
        return out;
    };
    const auto print = [keys](const std::vector<Class>& classes) {
        if (classes.empty()) return Value{};
        return list_value(classes, [keys](const Class& c) {
            Value::Map m{{"speed", Value{to_string(c.speed)}}};
            Value rest = print_table(*keys, c);
            for (auto& e : std::get<Value::Map>(rest.v)) m.push_back(std::move(e));
            return Value{std::move(m)};
        });
    };
    return {TypeDoc{std::move(type), {"array"}}, read, print};
}

// Each ECN class's kmin/kmax, auto = scaled at its speed; kmin <= kmax within a class.
Field<std::vector<EcnPortClass>> ecn_port_classes() {
    static const Table<EcnPortClass> keys{
        kPath + ".ecn.port_classes",
        {key("kmin", &EcnPortClass::kmin, size_or("auto", Zero::allowed), kPacket, "As `ecn.kmin`."),
         key("kmax", &EcnPortClass::kmax, size_or("auto", Zero::rejected), kPacket, "As `ecn.kmax`.")}};
    return port_classes("list of `{speed, kmin, kmax}`", keys,
                        [](const Node& m, const std::string& at, const EcnPortClass& c, Issues& issues) {
                            const Bytes kmin = c.kmin ? *c.kmin : ecn_kmin_auto(c.speed);
                            const Bytes kmax = c.kmax ? *c.kmax : ecn_kmax_auto(c.speed);
                            if (kmin <= kmax) return true;
                            issues.add(m.find("kmin") != nullptr ? m.find("kmin")->location : m.location,
                                       key_path(at, "kmin"),
                                       "kmin {} is above kmax {} for {} ports; RED marks from kmin up to "
                                       "kmax, so expected kmin <= kmax",
                                       in_kb(kmin), in_kb(kmax), to_string(c.speed));
                            return false;
                        });
}

Field<std::vector<MmuPortClass>> mmu_port_classes() {
    static const Table<MmuPortClass> keys{
        kPath + ".mmu.port_classes",
        {key("alpha", &MmuPortClass::alpha, fraction(kMaxAlpha), kPacket, "As `mmu.alpha`.")
             .required("missing required key (the class's dynamic-threshold alpha)")}};
    return port_classes("list of `{speed, alpha}`", keys,
                        [](const Node&, const std::string&, const MmuPortClass&, Issues&) { return true; });
}

const Table<PfcSpec>& pfc_table() {
    static const Table<PfcSpec> t{
        kPath + ".pfc",
        {
            key("enabled", &PfcSpec::enabled, boolean(), kPacket,
                "IEEE 802.1Qbb priority flow control on the `priority` list. A lossless fabric needs it."),
            key("priority", &PfcSpec::priorities, priority_list(false), kPacket,
                "The lossless priorities: PFC pauses these and no others. The first is the data class of every "
                "message whose workload entry names no `priority`. May not hold `control_priority`. `validate "
                "--print` shows one as a number, several as a list. Default: the usual RoCE lossless priority in "
                "NVIDIA's and Microsoft's guides."),
            key("headroom", &PfcSpec::headroom, size_or("auto", Zero::rejected), kPacket,
                "Buffer per port and priority for what still arrives after a pause is sent. `auto`: the 802.1Qbb "
                "worst case from the link speed, the cable length, the MTU and the IEEE 802.3 delays "
                "(docs/models/pfc.md)."),
            key("xoff", &PfcSpec::xoff, size_or("auto", Zero::rejected), kPacket,
                "Ingress bytes of a port and priority at which it pauses its peer. `auto`: the dynamic threshold "
                "`mmu.alpha` × free shared buffer."),
            key("xon_delta", &PfcSpec::xon_delta, size(Zero::allowed), kPacket,
                "The peer is resumed at XON = XOFF − `xon_delta`. Must be below a given `xoff`."),
            key("watchdog", &PfcSpec::watchdog, time_or("off", Zero::rejected), kPacket,
                "A queue paused this long has its traffic dropped (the PFC watchdog against pause storms)."),
        }};
    return t;
}

const Table<EcnSpec>& ecn_table() {
    static const Table<EcnSpec> t{
        kPath + ".ecn",
        {
            key("enabled", &EcnSpec::enabled, boolean(), kPacket, "RED/ECN marking at the switch egress queues."),
            key("kmin", &EcnSpec::kmin, size_or("auto", Zero::allowed), kPacket,
                "Queue length where marking starts. `auto`: 100 KB × link speed / 25 Gb/s (1600KB at 400G)."),
            key("kmax", &EcnSpec::kmax, size_or("auto", Zero::rejected), kPacket,
                "Queue length where the marking probability reaches `pmax`; above it every packet is marked. "
                "`auto`: 400 KB × link speed / 25 Gb/s (6400KB at 400G)."),
            key("pmax", &EcnSpec::pmax, fraction(1), kPacket, "Marking probability at `kmax`."),
            key("port_classes", &EcnSpec::port_classes, ecn_port_classes(), kPacket,
                "Thresholds for the ports of one speed, for a fabric whose ports differ (a custom topology's 400G "
                "uplinks beside 100G host ports). `speed`: rate > 0, each speed once; `kmin` (size ≥ 0) and `kmax` "
                "(size > 0) as above, `auto` (the default) scaled at the class's speed. A port whose speed has no "
                "class takes `kmin`/`kmax`.")
                .shown_default("none"),
        }};
    return t;
}

const Table<DcqcnSpec>& dcqcn_table() {
    static const Table<DcqcnSpec> t{
        kPath + ".dcqcn",
        {
            key("enabled", &DcqcnSpec::enabled, boolean(), kPacket, "DCQCN at the sender NICs."),
            key("preset", &DcqcnSpec::preset,
                choice<DcqcnPreset>("DCQCN preset", {{"nic", DcqcnPreset::nic}, {"paper", DcqcnPreset::paper}}),
                kPacket,
                "The parameter set: `nic` (NIC-style, as in the HPCC ns-3 model after Mellanox CX-4+) or `paper` "
                "(Zhu et al., SIGCOMM'15)."),
            key("g", &DcqcnSpec::g, fraction_or_auto(1), kPacket, "α gain."),
            key("rate_ai", &DcqcnSpec::rate_ai, rate_or_auto(), kPacket, "Additive increase step R_AI."),
            key("rate_hai", &DcqcnSpec::rate_hai, rate_or_auto(), kPacket, "Hyper increase step R_HAI."),
            key("alpha_update_interval", &DcqcnSpec::alpha_update_interval, time_or("auto", Zero::rejected), kPacket,
                "α update period."),
            key("rate_decrease_interval", &DcqcnSpec::rate_decrease_interval, time_or("auto", Zero::rejected), kPacket,
                "Rate-decrease check period."),
            key("rate_increase_timer", &DcqcnSpec::rate_increase_timer, time_or("auto", Zero::rejected), kPacket,
                "Rate-increase timer T."),
            key("byte_counter", &DcqcnSpec::byte_counter, size_or("auto", Zero::allowed), kPacket,
                "Byte counter B; `0B` turns it off."),
            key("fast_recovery_steps", &DcqcnSpec::fast_recovery_steps, integer_or_auto(0, kMaxFastRecoverySteps),
                kPacket, "Fast-recovery steps F."),
            key("clamp_target_rate", &DcqcnSpec::clamp_target_rate, boolean_or_auto(), kPacket,
                "Whether every cut resets the target rate."),
            key("min_rate", &DcqcnSpec::min_rate, rate_or_auto(), kPacket, "Lowest rate a cut may reach."),
            key("cnp_interval", &DcqcnSpec::cnp_interval, time_or("auto", Zero::allowed), kPacket,
                "At the receiver: at most one CNP per QP per interval; `0s` sends one per marked packet."),
        }};
    return t;
}

const Table<MmuSpec>& mmu_table() {
    static const Table<MmuSpec> t{
        kPath + ".mmu",
        {
            key("alpha", &MmuSpec::alpha, fraction(kMaxAlpha), kPacket,
                "Dynamic threshold of PFC's XOFF: an ingress port's lossless priority may hold up to α × the free "
                "shared buffer. Printed as a decimal.")
                .shown_default("`0.125` (`1/8`)"),
            key("lossy_alpha", &MmuSpec::lossy_alpha, fraction(kMaxAlpha), kPacket,
                "Dynamic threshold of a switch's lossy egress queues (every priority without PFC, iWARP's): a "
                "lossy packet joins its egress queue while the queue holds at most α × the free shared buffer. "
                "The default is SONiC's egress lossy profile (`dynamic_th: 3`, α = 2³). Printed as a decimal.")
                .shown_default("`8`"),
            key("reserved_per_queue", &MmuSpec::reserved_per_queue, size(Zero::allowed), kPacket,
                "Buffer reserved for each port and queue outside the shared pool."),
            key("port_classes", &MmuSpec::port_classes, mmu_port_classes(), kPacket,
                "The dynamic-threshold α (PFC's XOFF = α × free buffer) of the switch ingress ports of one speed; "
                "`speed` each once, `alpha` required, as `mmu.alpha`. Ports of other speeds take `mmu.alpha`.")
                .shown_default("none"),
        }};
    return t;
}

const Table<QueuesSpec>& queues_table() {
    static const Table<QueuesSpec> t{
        kPath + ".queues",
        {
            key("strict", &QueuesSpec::strict, priority_list(true), kPacket,
                "Queues served first, by strict priority, the higher number first (802.1Q §8.6.8 strict priority). "
                "The default holds the CNPs, ACKs and NAKs (`control_priority` 6) and network control (7). `[]`: "
                "every queue shares by weight."),
            key("weights", &QueuesSpec::weights, weights(), kPacket,
                "The weights of priorities 0, 1, … 7 among the queues not in `strict`, served by deficit weighted "
                "round robin (Shreedhar & Varghese, SIGCOMM'95) with a quantum of weight × MTU; equal by default. A "
                "strict priority's weight is not used. At most 255: a byte, as switch DWRR weights are configured."),
        }};
    return t;
}

// kmin <= kmax, each `auto` one at the link speed when that is known.
void check_ecn_order(const EcnSpec& ecn, const SectionRead& r, std::optional<Bandwidth> link, Issues& issues) {
    if (!r.ok("ecn.kmin") || !r.ok("ecn.kmax")) return;
    if ((!ecn.kmin || !ecn.kmax) && !link) return;
    const Bytes kmin = ecn.kmin ? *ecn.kmin : ecn_kmin_auto(*link);
    const Bytes kmax = ecn.kmax ? *ecn.kmax : ecn_kmax_auto(*link);
    if (kmin <= kmax) return;
    const Node* kmin_node = r.given("ecn.kmin");
    const Node* kmax_node = r.given("ecn.kmax");
    const auto shown = [&](const Node* given, Bytes value, const char* rule) {
        return given != nullptr && !is_keyword(*given, "auto")
                   ? given->text
                   : fmt::format("auto ({} x link / 25Gbps = {} at {})", rule, in_kb(value), *link);
    };
    issues.add(
        kmin_node != nullptr ? kmin_node->location : (kmax_node != nullptr ? kmax_node->location : r.map->location),
        key_path(kPath, "ecn.kmin"),
        "kmin {} is above kmax {}; RED marks from kmin up to kmax, so expected kmin <= kmax",
        shown(kmin_node, kmin, "100KB"), shown(kmax_node, kmax, "400KB"));
}

// CNPs, ACKs and NAKs go on control_priority, in a queue PFC never pauses. Reported at
// control_priority when it was written, else at the pfc.priority that took its default.
void check_control_priority(const RoceSpec& out, const SectionRead& r, Issues& issues) {
    const auto& lossless = out.pfc.priorities;
    if (!r.ok("pfc.priority") || !r.ok("control_priority") ||
        std::find(lossless.begin(), lossless.end(), out.control_priority) == lossless.end())
        return;
    const std::string list =
        lossless.size() == 1 ? fmt::format("{}", lossless.front()) : fmt::format("[{}]", fmt::join(lossless, ", "));
    if (const Node* n = r.given("control_priority")) {
        issues.add(n->location, key_path(kPath, "control_priority"),
                   "{} is a lossless priority (pfc.priority: {}); CNPs, ACKs and NAKs need a queue "
                   "that PFC does not pause, so expected a priority not in pfc.priority",
                   out.control_priority, list);
        return;
    }
    const int p = out.control_priority;
    const Node* priority = r.given("pfc.priority");
    issues.add(priority != nullptr ? priority->location : r.map->location, key_path(kPath, "pfc.priority"),
               "{} the default control_priority; CNPs, ACKs and NAKs need a queue that PFC does "
               "not pause, so expected lossless priorities other than {} (or a control_priority "
               "set to another priority)",
               lossless.size() == 1 ? fmt::format("{} is also", p) : fmt::format("{} includes {},", list, p), p);
}

void check_roce(const RoceSpec& out, const SectionRead& r, std::optional<Bandwidth> link_speed, Issues& issues) {
    check_ecn_order(out.ecn, r, link_speed, issues);
    const Node* kmax = r.given("ecn.kmax");
    const Node* xoff = r.given("pfc.xoff");
    // ECN must mark before PFC pauses (DCQCN paper §5), checked when both are given.
    if (out.lossless && out.pfc.enabled && out.ecn.enabled && r.ok("ecn.kmax") && r.ok("pfc.xoff") && out.ecn.kmax &&
        out.pfc.xoff && !(*out.ecn.kmax < *out.pfc.xoff)) {
        issues.add(kmax->location, key_path(kPath, "ecn.kmax"),
                   "kmax {} is not below pfc.xoff {}; ECN must mark before PFC pauses (DCQCN paper "
                   "\u00a75), so expected kmax < xoff: lower kmax or raise pfc.xoff",
                   kmax->text, xoff->text);
    }
    if (r.ok("pfc.xoff") && r.ok("pfc.xon_delta") && out.pfc.xoff && !(out.pfc.xon_delta < *out.pfc.xoff)) {
        const Node* delta = r.given("pfc.xon_delta");
        issues.add((delta != nullptr ? delta : xoff)->location, key_path(kPath, "pfc.xon_delta"),
                   "xon_delta {} is not below pfc.xoff {}; XON = XOFF - xon_delta must stay above 0",
                   delta != nullptr ? delta->text : to_string(out.pfc.xon_delta), xoff->text);
    }
    if (r.ok("lossless") && out.lossless && !out.pfc.enabled && r.given("pfc.enabled") != nullptr) {
        issues.add(r.given("pfc.enabled")->location, key_path(kPath, "pfc.enabled"),
                   "PFC is off but lossless is true; a lossless fabric needs pfc.enabled: true (set lossless: false "
                   "for lossy mode with drops and go-back-N)");
    }
    check_control_priority(out, r, issues);
}

}  // namespace

const Table<RoceSpec>& roce_table() {
    static const Table<RoceSpec> t{
        kPath,
        {
            section("pfc", &RoceSpec::pfc, pfc_table(), "IEEE 802.1Qbb priority flow control."),
            section("ecn", &RoceSpec::ecn, ecn_table(), "RED marking at the egress queue."),
            section("dcqcn", &RoceSpec::dcqcn, dcqcn_table(),
                    "The reaction point at the sender NIC; an unset override is the preset's value (`auto`)."),
            section("mmu", &RoceSpec::mmu, mmu_table(), "The switch's shared buffer."),
            section("queues", &RoceSpec::queues, queues_table(), "The eight egress queues of every Ethernet port."),
            key("control_priority", &RoceSpec::control_priority, integer(0, kMaxPriority), kPacket,
                "The priority of CNPs, ACKs and NAKs (64-byte frames). It must not be in `pfc.priority`: control "
                "frames need a queue that PFC does not pause. 6 is NVIDIA ConnectX's default CNP priority "
                "(`CNP_802P_PRIO`, NVIDIA's RoCE congestion control docs); with the default `queues.strict` it is "
                "served before data."),
            key("ack_every", &RoceSpec::ack_every, integer(1, kMaxAckEvery), kPacket,
                "The receiving NIC sends an ACK every `ack_every` packets of a QP's part of a message, and on its "
                "last packet. 1 as in the HPCC ns-3 RDMA model's configs (`L2_ACK_INTERVAL 1`)."),
            key("retransmit_timeout", &RoceSpec::retransmit_timeout, time(Zero::rejected), kPacket,
                "Go-back-N retransmission timeout: after this long without progress a sender sends again from the "
                "first unacknowledged packet. The default is the IBA local ACK timeout, 4.096 µs × 2^timeout (IBA "
                "Vol. 1 §9.7.6.1.3), at NCCL's default `NCCL_IB_TIMEOUT` of 18: 4.096 µs × 2^18."),
            key("lossless", &RoceSpec::lossless, boolean(), kPacket,
                "`false`: lossy mode, with drops and go-back-N ([loss recovery](#loss-recovery)), for comparison; "
                "PFC is then off whatever `pfc.enabled` says. `true` with `pfc.enabled: false` is an error."),
            key("header_bytes", &RoceSpec::header_bytes, integer64(0, kHeaderBytesMax), kPacket | kFlow,
                "Bytes each RoCE packet takes on the wire beside its payload: preamble and start delimiter 8, "
                "inter-frame gap 12 (IEEE 802.3), Ethernet header 14 and FCS 4, IPv4 20 (RFC 791), UDP 8 (RFC "
                "768), BTH 12 and ICRC 4 (IBTA Annex A17). An MTU packet takes (MTU + `header_bytes`) ÷ line rate "
                "on every fabric link and PFC headroom counts it; queue depths, the switch MMU and PFC thresholds "
                "count it less the 20 of preamble and gap, which no buffer holds (docs/models/pfc.md). Add 4 for a "
                "VLAN tag, 20 for IPv6, 50 for VXLAN."),
        }};
    return t;
}

RoceSpec validate_roce(const Node* node, std::optional<Bandwidth> link_speed, Issues& issues) {
    RoceSpec out;
    if (node == nullptr) return out;
    const SectionRead r = read_table(*node, kPath, roce_table(), out, issues);
    if (r.map != nullptr) check_roce(out, r, link_speed, issues);
    return out;
}

}  // namespace fabricsim::scenario
