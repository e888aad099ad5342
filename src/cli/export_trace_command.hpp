// `fabricsim export-trace x.yaml --out DIR`: writes the first variant's training entries as
// Chakra execution traces, DIR/<entry>.<rank>.et, which a `- trace:` entry replays
// (workloads/trace_export.hpp, docs/models/traces.md).
#pragma once

#include "cli/commands.hpp"

#include <string>

namespace fabricsim::cli {

struct ExportTraceArgs {
    ScenarioArgs scenario;
    std::string out;
};

int export_trace_command(const ExportTraceArgs& args);

}  // namespace fabricsim::cli
