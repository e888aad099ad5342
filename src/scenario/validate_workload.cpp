// workload: a non-empty list of entries, each with exactly one kind key (transfer, collective,
// traffic, training, trace) and optional `name`, `after` and `priority` (workload_keys.hpp has
// each kind's keys). Checked here because they need the whole list: unique names, `after`
// naming an entry and not forming a cycle.
#include "scenario/validate.hpp"
#include "scenario/workload_keys.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace fabricsim::scenario {

namespace {

const std::vector<std::string>& kAvailableKinds = workload_kinds();

// Reads one entry; its name is left empty when not given (filled in later).
struct ReadEntry {
    WorkloadEntry entry;
    bool name_given = false;          // even when the given name was invalid
    const Node* name_node = nullptr;  // a valid given name
    const Node* after_node = nullptr;
};

ReadEntry validate_entry(const Node& node, std::size_t index, const ClusterSpec* cluster, Issues& issues) {
    const std::string path = index_path("workload", index);
    EntryContext ctx;
    ctx.entry = &node;
    ctx.cluster = cluster;
    if (cluster != nullptr) ctx.ranks = cluster->ranks();
    ReadEntry out;
    out.entry.location = node.location;
    if (!node.is_mapping()) {
        add_expected(issues, node, path, "a workload entry (a mapping such as {transfer: {...}})");
        return out;
    }
    std::vector<std::string> allowed = kAvailableKinds;
    const auto own = workload_entry_table().names();
    allowed.insert(allowed.end(), own.begin(), own.end());
    // A collective's and a traffic pattern's parameters sit beside its kind key.
    if (node.find("collective") != nullptr) {
        const auto keys = collective_keys();
        allowed.insert(allowed.end(), keys.begin(), keys.end());
    }
    if (node.find("traffic") != nullptr) allowed.insert(allowed.end(), traffic_keys().begin(), traffic_keys().end());

    std::vector<const Entry*> kinds;
    std::vector<const Entry*> unknown;
    for (const auto& e : node.entries) {
        if (contains(kAvailableKinds, e.key))
            kinds.push_back(&e);
        else if (!contains(allowed, e.key))
            unknown.push_back(&e);
    }
    // In an entry without a known kind, an unknown key is most likely the kind, misspelt.
    for (const Entry* e : unknown) {
        const auto near = nearest(e->key, allowed);
        const bool looks_like_kind = !near || contains(kAvailableKinds, *near);
        if (kinds.empty() && looks_like_kind)
            issues.add(e->key_location, key_path(path, e->key),
                       "unknown workload kind" + available_choices(e->key, kAvailableKinds));
        else
            issues.add(e->key_location, key_path(path, e->key), "unknown key" + did_you_mean(e->key, allowed));
    }
    if (kinds.empty()) {
        if (unknown.empty())
            issues.add(node.location, path, "missing the kind of entry; expected one of: {}", join(kAvailableKinds));
    } else if (kinds.size() > 1) {
        std::vector<std::string> names;
        for (const Entry* k : kinds) names.push_back(k->key);
        issues.add(kinds[1]->key_location, path, "an entry has exactly one kind, found {}: {}", kinds.size(),
                   join(names));
    } else if (kinds[0]->key == "collective") {
        if (auto c = read_collective(node, path, ctx, issues)) out.entry.kind = *c;
    } else if (kinds[0]->key == "traffic") {
        if (auto t = read_traffic(node, kinds[0]->value, path, ctx, issues)) out.entry.kind = *t;
    } else if (kinds[0]->key == "training") {
        if (auto t = read_training(kinds[0]->value, path, ctx, issues)) out.entry.kind = *t;
    } else if (kinds[0]->key == "trace") {
        if (auto t = read_trace(kinds[0]->value, path, ctx, issues)) out.entry.kind = *t;
    } else if (auto t = read_transfer(kinds[0]->value, path, ctx, issues)) {
        out.entry.kind = *t;
    }
    const SectionRead own_keys = read_keys(node, path, workload_entry_table(), out.entry, ctx, issues);
    out.name_given = own_keys.given("name") != nullptr;
    if (out.name_given && own_keys.ok("name")) out.name_node = own_keys.given("name");
    if (own_keys.ok("after")) out.after_node = own_keys.given("after");
    return out;
}

// The kinds in the order of WorkloadEntry::kind's alternatives.
std::string kind_name(const WorkloadEntry& e) {
    static_assert(std::variant_size_v<decltype(e.kind)> == 5);
    return kAvailableKinds[e.kind.index()];
}

// Names: generated ones first ("<kind><index>"), then each given name must be unique.
void check_names(std::vector<ReadEntry>& read, Issues& issues) {
    std::map<std::string, std::size_t> owner;
    for (std::size_t i = 0; i < read.size(); ++i) {
        auto& r = read[i];
        if (!r.name_given) {
            r.entry.name = fmt::format("{}{}", kind_name(r.entry), i);
        }
    }
    for (std::size_t i = 0; i < read.size(); ++i) {
        const auto& r = read[i];
        if (r.entry.name.empty()) continue;  // an invalid given name, already reported
        const auto [it, inserted] = owner.emplace(r.entry.name, i);
        if (inserted) continue;
        // Blame the name the user wrote: the later one, unless only the earlier was written.
        const std::size_t first = it->second;
        if (r.name_node != nullptr) {
            issues.add(r.name_node->location, key_path(index_path("workload", i), "name"),
                       "duplicate name \"{}\"; workload[{}] is called that already", r.entry.name, first);
        } else {
            issues.add(read[first].name_node->location, key_path(index_path("workload", first), "name"),
                       "the name \"{}\" is also the generated name of workload[{}]; choose another", r.entry.name, i);
        }
    }
}

// `after` must name an entry, and the "waits for" chains must not loop. Each entry waits for
// at most one other, so following the chain from each entry finds every cycle.
void check_after(const std::vector<ReadEntry>& read, Issues& issues) {
    std::map<std::string, std::size_t> index;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < read.size(); ++i) {
        if (read[i].entry.name.empty()) continue;
        index.emplace(read[i].entry.name, i);
        names.push_back(read[i].entry.name);
    }
    std::vector<std::optional<std::size_t>> waits_for(read.size());
    for (std::size_t i = 0; i < read.size(); ++i) {
        const auto& r = read[i];
        if (r.after_node == nullptr) continue;
        const auto it = index.find(r.entry.after);
        if (it == index.end()) {
            issues.add(r.after_node->location, key_path(index_path("workload", i), "after"),
                       "no entry is named \"{}\"{}", r.entry.after, did_you_mean(r.entry.after, names));
            continue;
        }
        waits_for[i] = it->second;
    }
    enum class State { unvisited, on_path, done };
    std::vector<State> state(read.size(), State::unvisited);
    for (std::size_t start = 0; start < read.size(); ++start) {
        std::vector<std::size_t> path;
        std::optional<std::size_t> at = start;
        while (at && state[*at] == State::unvisited) {
            state[*at] = State::on_path;
            path.push_back(*at);
            at = waits_for[*at];
        }
        if (at && state[*at] == State::on_path) {
            // The cycle is the tail of the path from *at; report it once, at its first entry.
            const auto begin = std::find(path.begin(), path.end(), *at);
            std::vector<std::size_t> cycle(begin, path.end());
            const auto first = std::min_element(cycle.begin(), cycle.end());
            std::rotate(cycle.begin(), first, cycle.end());
            std::string chain;
            for (std::size_t k : cycle) chain += read[k].entry.name + " -> ";
            chain += read[cycle.front()].entry.name;
            issues.add(read[cycle.front()].after_node->location,
                       key_path(index_path("workload", cycle.front()), "after"),
                       "entries wait for each other in a cycle: {}", chain);
        }
        for (std::size_t k : path) state[k] = State::done;
    }
}

}  // namespace

std::vector<WorkloadEntry> validate_workload(const Node& node, const ClusterSpec* cluster, Issues& issues) {
    if (!node.is_sequence() || node.items.empty()) {
        add_expected(issues, node, "workload", "a non-empty list of entries");
        return {};
    }
    std::vector<ReadEntry> read;
    read.reserve(node.items.size());
    for (std::size_t i = 0; i < node.items.size(); ++i)
        read.push_back(validate_entry(node.items[i], i, cluster, issues));
    check_names(read, issues);
    check_after(read, issues);
    std::vector<WorkloadEntry> out;
    out.reserve(read.size());
    for (auto& r : read) out.push_back(std::move(r.entry));
    return out;
}

}  // namespace fabricsim::scenario
