#include "scenario/describe.hpp"

#include "core/units_format.hpp"

#include <limits>

namespace fabricsim::scenario {

namespace {

Value text(std::string s) { return Value{std::move(s)}; }
Value integer(std::int64_t v) { return Value{v}; }

Value simulation(const SimulationSpec& s) {
    Value::Map ideal{{"latency", text(to_string(s.ideal.latency))}};
    return Value{Value::Map{
        {"model", text("ideal")},
        {"stop_time", text(s.stop_time == Time::max() ? "none" : to_string(s.stop_time))},
        {"ideal", Value{std::move(ideal)}},
    }};
}

Value cluster(const ClusterSpec& c) {
    Value::Map server;
    if (!c.server.preset.empty()) server.push_back({"preset", text(c.server.preset)});
    server.push_back({"gpus", integer(c.server.gpus)});
    server.push_back({"nics", integer(c.server.nics)});
    server.push_back({"nic_speed", text(to_string(c.server.nic.line_rate))});
    return Value{Value::Map{{"servers", integer(c.servers)}, {"server", Value{std::move(server)}}}};
}

Value transfer(const TransferSpec& t) {
    return Value{Value::Map{
        {"from", integer(t.from.value())},
        {"to", integer(t.to.value())},
        {"size", text(to_string(t.size))},
        {"start", text(to_string(t.start))},
    }};
}

Value workload(const std::vector<WorkloadEntry>& entries) {
    Value::List list;
    for (const auto& e : entries) {
        Value::Map m{{"name", text(e.name)}};
        if (!e.after.empty()) m.push_back({"after", text(e.after)});
        std::visit([&](const TransferSpec& t) { m.push_back({"transfer", transfer(t)}); }, e.kind);
        list.push_back(Value{std::move(m)});
    }
    return Value{std::move(list)};
}

Value outputs(const OutputsSpec& o) {
    Value::List formats;
    for (auto f : o.formats) formats.push_back(text(f == OutputFormat::json ? "json" : "csv"));
    return Value{Value::Map{{"dir", text(o.dir)}, {"formats", Value{std::move(formats)}}}};
}

// Value holds signed integers; a seed above INT64_MAX travels as its decimal text, which the
// loader reads back as the same unsigned number.
Value seed(std::uint64_t s) {
    if (s <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return integer(static_cast<std::int64_t>(s));
    return text(std::to_string(s));
}

}  // namespace

Value describe(const ScenarioSpec& spec) {
    return Value{Value::Map{
        {"name", text(spec.name)},
        {"description", text(spec.description)},
        {"seed", seed(spec.seed)},
        {"simulation", simulation(spec.simulation)},
        {"cluster", cluster(spec.cluster)},
        {"workload", workload(spec.workload)},
        {"outputs", outputs(spec.outputs)},
    }};
}

}  // namespace fabricsim::scenario
