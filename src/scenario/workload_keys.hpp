// The workload's entries, a table of keys per kind (docs/SCENARIO.md, "Workload"): transfer,
// trace and training keep their keys in the kind key's mapping; a collective's and a traffic
// pattern's keys sit beside the kind key, in the entry itself. Each reader checks the keys
// across its table once they were read; validate_workload.cpp checks what needs the whole
// list (names, `after`).
#pragma once

#include "scenario/issues.hpp"
#include "scenario/key_table.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fabricsim::scenario {

// What an entry's keys are checked against, shared by the sections of an entry's table.
struct EntryContext {
    const Node* entry = nullptr;           // the entry mapping
    const ClusterSpec* cluster = nullptr;  // null when the cluster had issues: ranks are not checked
    std::optional<int> ranks;              // the cluster's ranks, when known
    std::int64_t skip = -1;                // incast: the receiver, which is no sender
    std::int64_t rank_count = 0;           // training: the count `ranks` gives (0: not given)
};

// The tables, for the docs, the schema and the printed scenario. An entry's own keys (name,
// after, priority) are read beside its kind key.
const Table<WorkloadEntry, EntryContext>& workload_entry_table();
const Table<TransferSpec, EntryContext>& transfer_table();
const Table<TraceSpec, EntryContext>& trace_table();
const Table<CollectiveSpec, EntryContext>& collective_table();
const Table<TrafficSpec, EntryContext>& traffic_table();  // every pattern's keys
const Table<TrafficSpec, EntryContext>& traffic_table(TrafficPattern pattern);
const Table<TrainingSpec, EntryContext>& training_table();

// The kinds of entry, in the order of WorkloadEntry::kind's alternatives.
const std::vector<std::string>& workload_kinds();

// The keys that may sit beside a collective's and a traffic pattern's kind key.
std::vector<std::string> collective_keys();
const std::vector<std::string>& traffic_keys();

// Each kind's entry, `path` being the entry's ("workload[2]"), `kind_node` its kind key's value.
std::optional<TransferSpec> read_transfer(const Node& kind_node, const std::string& path, EntryContext& ctx,
                                          Issues& issues);
std::optional<TraceSpec> read_trace(const Node& kind_node, const std::string& path, EntryContext& ctx, Issues& issues);
std::optional<CollectiveSpec> read_collective(const Node& entry, const std::string& path, EntryContext& ctx,
                                              Issues& issues);
std::optional<TrafficSpec> read_traffic(const Node& entry, const Node& kind_node, const std::string& path,
                                        EntryContext& ctx, Issues& issues);
std::optional<TrainingSpec> read_training(const Node& kind_node, const std::string& path, EntryContext& ctx,
                                          Issues& issues);

// A rank of the cluster (0 .. ranks − 1 when they are known).
std::optional<RankId> read_rank(const Node& node, const std::string& path, std::optional<int> ranks, Issues& issues);
// `all` (an empty list), or a list of ranks, as read_rank_set reads and a rank set prints.
Value print_rank_set(const std::vector<RankId>& ranks);
// An integer from 1 to 64, or `auto` (0): a collective's channels.
Field<int> channels_field();

// The workload printed as the user writes it: each entry's name, `after` and `priority` where
// given, then its kind's keys.
Value describe_workload(const std::vector<WorkloadEntry>& entries);

}  // namespace fabricsim::scenario
