#include "scenario/key_table.hpp"

#include "scenario/validate.hpp"
#include "scenario/workload_keys.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace fabricsim::scenario {

std::vector<std::string> TableInfo::names() const {
    std::vector<std::string> out;
    for (const KeyInfo& k : keys) out.push_back(k.name);
    return out;
}

const Node* SectionRead::given(std::string_view rel) const {
    const Node* at = map;
    while (at != nullptr) {
        const auto dot = rel.find('.');
        if (!at->is_mapping()) return nullptr;
        at = at->find(rel.substr(0, dot));
        if (dot == std::string_view::npos) return at;
        rel = rel.substr(dot + 1);
    }
    return nullptr;
}

bool SectionRead::ok(std::string_view rel) const {
    return std::find(failed.begin(), failed.end(), rel) == failed.end();
}

std::vector<const TableInfo*> declared_sections() {
    return {&simulation_table(),     &server_table(),  &nic_table(),      &fabric_table(),         &switch_table(),
            &storage_fabric_table(), &storage_table(), &clients_table(),  &roce_table(),           &infiniband_table(),
            &iwarp_table(),          &faults_table(),  &outputs_table(),  &workload_entry_table(), &transfer_table(),
            &collective_table(),     &traffic_table(), &training_table(), &trace_table()};
}

std::string models(unsigned consumers) {
    if (consumers == kAllModels) return "all";
    std::vector<std::string> names;
    for (const auto& [bit, name] : {std::pair{kIdeal, "ideal"}, std::pair{kPacket, "packet"}, std::pair{kFlow, "flow"}})
        if ((consumers & bit) != 0) names.emplace_back(name);
    return fmt::format("{}", fmt::join(names, ", "));
}

namespace {

const Value* member(const Value* map, std::string_view key) {
    const auto* m = map != nullptr ? std::get_if<Value::Map>(&map->v) : nullptr;
    if (m == nullptr) return nullptr;
    for (const auto& [k, v] : *m)
        if (k == key) return &v;
    return nullptr;
}

// The keys of `map` (at `path`) that `table` declares, `model` does not read and whose value
// (in `resolved`, the printed section) is not the default: a file that spells out the
// defaults, as `validate --print` writes one, has nothing to warn about.
void warn_section(const Node& map, const Value* resolved, const std::string& path, const TableInfo& table,
                  unsigned model, Issues& warnings) {
    static const Value kUnset;
    // A preset's keys are the device's, not choices the scenario made: only the values written
    // where the preset is named are the user's. A key the preset has and the scenario overrides
    // keeps the preset's key location (deep_merge), so such a key is shown at its value.
    const Node* preset = map.find("preset");
    for (const Entry& e : map.entries) {
        if (preset != nullptr && e.value.location.file != preset->location.file) continue;
        const SourceLocation& where = e.key_location.file == e.value.location.file ? e.key_location : e.value.location;
        const auto k =
            std::find_if(table.keys.begin(), table.keys.end(), [&](const KeyInfo& i) { return i.name == e.key; });
        if (k == table.keys.end()) continue;  // an unknown key is an error elsewhere
        const std::string at = key_path(path, e.key);
        const Value* value = member(resolved, e.key);
        if ((k->consumers & model) == 0) {
            if (!(*(value != nullptr ? value : &kUnset) == k->default_value))
                warnings.add(where, at,
                             fmt::format("the {} model does not read this key; it has no effect", models(model)));
            continue;
        }
        if (k->section != nullptr && e.value.is_mapping())
            warn_section(e.value, value, at, *k->section, model, warnings);
    }
}

}  // namespace

void warn_unread_keys(const Node& root, const Value& resolved, NetworkModel network, Issues& warnings) {
    const unsigned model = network == NetworkModel::packet ? kPacket : network == NetworkModel::flow ? kFlow : kIdeal;
    for (const TableInfo* table : declared_sections()) {
        // The section's node and printed value, found along its path.
        const Node* at = &root;
        const Value* value = &resolved;
        std::string_view rest = table->path;
        while (at != nullptr && !rest.empty()) {
            const auto dot = rest.find('.');
            const std::string_view part = rest.substr(0, dot);
            at = at->is_mapping() ? at->find(part) : nullptr;
            value = member(value, part);
            rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
        }
        if (at == nullptr || !at->is_mapping()) continue;
        warn_section(*at, value, table->path, *table, model, warnings);
    }
}

}  // namespace fabricsim::scenario
