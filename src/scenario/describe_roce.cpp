#include "scenario/describe_roce.hpp"

#include "core/units_format.hpp"

namespace fabricsim::scenario {

namespace {

Value text(std::string s) { return Value{std::move(s)}; }

// `keyword` for an unset value, else the value in its exact human form.
template <class T>
Value or_keyword(const std::optional<T>& v, const char* keyword) {
    return v ? text(to_string(*v)) : text(keyword);
}

// One priority as a number, several as a list (how `priority` reads them).
Value priorities(const std::vector<int>& list) {
    if (list.size() == 1) return Value{std::int64_t{list.front()}};
    Value::List out;
    for (int p : list) out.push_back(Value{std::int64_t{p}});
    return Value{out};
}

Value pfc(const PfcSpec& p) {
    return Value{Value::Map{
        {"enabled", Value{p.enabled}},
        {"priority", priorities(p.priorities)},
        {"headroom", or_keyword(p.headroom, "auto")},
        {"xoff", or_keyword(p.xoff, "auto")},
        {"xon_delta", text(to_string(p.xon_delta))},
        {"watchdog", or_keyword(p.watchdog, "off")},
    }};
}

Value ecn(const EcnSpec& e) {
    Value::Map out{
        {"enabled", Value{e.enabled}},
        {"kmin", or_keyword(e.kmin, "auto")},
        {"kmax", or_keyword(e.kmax, "auto")},
        {"pmax", Value{e.pmax}},
    };
    // Only when given, so that other scenarios describe as before.
    if (!e.port_classes.empty()) {
        Value::List classes;
        for (const EcnPortClass& c : e.port_classes)
            classes.push_back(Value{Value::Map{{"speed", text(to_string(c.speed))},
                                               {"kmin", or_keyword(c.kmin, "auto")},
                                               {"kmax", or_keyword(c.kmax, "auto")}}});
        out.push_back({"port_classes", Value{std::move(classes)}});
    }
    return Value{std::move(out)};
}

Value dcqcn(const DcqcnSpec& d) {
    return Value{Value::Map{
        {"enabled", Value{d.enabled}},
        {"preset", text(d.preset == DcqcnPreset::paper ? "paper" : "nic")},
        {"g", d.g ? Value{*d.g} : text("auto")},
        {"rate_ai", or_keyword(d.rate_ai, "auto")},
        {"rate_hai", or_keyword(d.rate_hai, "auto")},
        {"alpha_update_interval", or_keyword(d.alpha_update_interval, "auto")},
        {"rate_decrease_interval", or_keyword(d.rate_decrease_interval, "auto")},
        {"rate_increase_timer", or_keyword(d.rate_increase_timer, "auto")},
        {"byte_counter", or_keyword(d.byte_counter, "auto")},
        {"fast_recovery_steps",
         d.fast_recovery_steps ? Value{std::int64_t{*d.fast_recovery_steps}} : text("auto")},
        {"clamp_target_rate", d.clamp_target_rate ? Value{*d.clamp_target_rate} : text("auto")},
        {"min_rate", or_keyword(d.min_rate, "auto")},
        {"cnp_interval", or_keyword(d.cnp_interval, "auto")},
    }};
}

Value mmu(const MmuSpec& m) {
    Value::Map out{{"alpha", Value{m.alpha}}, {"reserved_per_queue", text(to_string(m.reserved_per_queue))}};
    if (!m.port_classes.empty()) {  // only when given
        Value::List classes;
        for (const MmuPortClass& c : m.port_classes)
            classes.push_back(Value{Value::Map{{"speed", text(to_string(c.speed))}, {"alpha", Value{c.alpha}}}});
        out.push_back({"port_classes", Value{std::move(classes)}});
    }
    return Value{std::move(out)};
}

Value queues(const QueuesSpec& q) {
    Value::List strict, weights;
    for (int p : q.strict) strict.push_back(Value{std::int64_t{p}});
    for (int w : q.weights) weights.push_back(Value{std::int64_t{w}});
    return Value{Value::Map{{"strict", Value{strict}}, {"weights", Value{weights}}}};
}

}  // namespace

Value describe_roce(const RoceSpec& r) {
    return Value{Value::Map{
        {"pfc", pfc(r.pfc)},
        {"ecn", ecn(r.ecn)},
        {"dcqcn", dcqcn(r.dcqcn)},
        {"mmu", mmu(r.mmu)},
        {"queues", queues(r.queues)},
        {"control_priority", Value{std::int64_t{r.control_priority}}},
        {"ack_every", Value{std::int64_t{r.ack_every}}},
        {"retransmit_timeout", text(to_string(r.retransmit_timeout))},
        {"lossless", Value{r.lossless}},
        {"header_bytes", Value{r.header_bytes}},
    }};
}

}  // namespace fabricsim::scenario
