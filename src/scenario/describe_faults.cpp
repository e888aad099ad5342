// faults: as the user writes them (faults_spec.hpp), for describe(): each entry one kind key
// with the keys of its kind, so that the resolved scenario loads back to the same faults.
#include "scenario/describe_entries.hpp"

#include "core/units_format.hpp"

namespace fabricsim::scenario {

namespace {

Value text(std::string s) { return Value{std::move(s)}; }
Value time(Time t) { return text(to_string(t)); }

}  // namespace

Value describe_faults(const std::vector<FaultSpec>& faults) {
    Value::List list;
    for (const FaultSpec& f : faults) {
        Value::Map m{{"at", time(f.at)}};
        const bool link =
            f.kind == FaultKind::link_down || f.kind == FaultKind::link_flap || f.kind == FaultKind::link_degraded;
        if (link) {
            m.push_back({"link", Value{Value::List{text(f.from), text(f.to)}}});
            m.push_back({"parallel", Value{std::int64_t{f.parallel}}});
        }
        if (f.kind == FaultKind::switch_down || f.kind == FaultKind::nic_down || f.kind == FaultKind::stuck_receiver)
            m.push_back({"node", text(f.node)});
        if (f.kind != FaultKind::link_flap && f.duration != Time::max()) m.push_back({"for", time(f.duration)});
        if (f.kind == FaultKind::link_down || f.kind == FaultKind::link_flap || f.kind == FaultKind::switch_down ||
            f.kind == FaultKind::nic_down)
            m.push_back({"reconverge", time(f.reconverge)});
        if (f.kind == FaultKind::link_flap) {
            m.push_back({"period", time(f.period)});
            m.push_back({"down", time(f.down)});
            m.push_back({"jitter", time(f.jitter)});
            m.push_back({"until", time(f.until)});
        }
        if (f.kind == FaultKind::link_degraded) {
            if (f.speed) m.push_back({"speed", text(to_string(*f.speed))});
            m.push_back({"ber", Value{f.ber}});
        }
        if (f.kind == FaultKind::straggler) {
            m.push_back({"rank", Value{std::int64_t{f.rank.value()}}});
            m.push_back({"slowdown", Value{f.slowdown}});
        }
        list.push_back(Value{Value::Map{{std::string(to_string(f.kind)), Value{std::move(m)}}}});
    }
    return Value{std::move(list)};
}

}  // namespace fabricsim::scenario
