// The top level of a scenario and its `cluster`, as key tables (key_table.hpp): what the docs'
// key tables, the JSON Schema and `validate --print` show of them. Each key of these tables
// reads its section with that section's reader (validate.hpp), in the table's order, since a
// section is checked against the ones before it (the workload against the cluster).
#pragma once

#include "scenario/key_table.hpp"
#include "scenario/spec.hpp"

namespace fabricsim::scenario {

// What the top level's keys learn from each other: whether the cluster was read without an
// issue (the workload's and the faults' ranks are then checked against it).
struct TopLevelRead {
    bool cluster_known = false;
};

const Table<ScenarioSpec, TopLevelRead>& scenario_table();
// cluster's keys; validate_cluster() reads them, every section whether written or not.
const Table<ClusterSpec>& cluster_table();

}  // namespace fabricsim::scenario
