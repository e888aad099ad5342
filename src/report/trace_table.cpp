#include "report/trace_table.hpp"

#include "report/busbw_curve.hpp"
#include "report/display_units.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fabricsim::report {

namespace {

std::string group_name(const std::string& g) { return g.empty() ? "(all)" : "\"" + g + "\""; }

std::string tables(const VariantResult& v, const TraceResult& t) {
    std::string out;
    // Groups in the order their first collective is listed.
    std::vector<std::string> groups;
    for (const auto& c : t.collectives)
        if (std::find(groups.begin(), groups.end(), c.group) == groups.end()) groups.push_back(c.group);
    for (const std::string& g : groups) {
        std::vector<NcclTestsRow> rows;
        int ranks = 0;
        for (const auto& c : t.collectives) {
            if (c.group != g) continue;
            ranks = c.ranks;
            rows.push_back({c.op, c.bytes, c.time, c.algbw_GBps, c.busbw_GBps, fmt::format("{} x {}", c.count, c.op)});
        }
        out += nccl_tests_table(
            fmt::format("{}: process group {}, {} ranks — variant {}", t.name, group_name(g), ranks, v.name), "runs",
            rows);
        out += '\n';
    }
    std::string exposed;
    for (const auto& [what, time] : t.exposed)
        if (time > Time::zero()) exposed += fmt::format(" + exposed {} {}", what, human(time));
    out +=
        fmt::format("{} (variant {}): {} ranks, {} nodes; {} on critical rank {} = compute {}{} + idle {}\n", t.name,
                    v.name, t.ranks, t.nodes, human(t.time), t.critical_rank, human(t.compute), exposed, human(t.idle));
    return out;
}

}  // namespace

std::string trace_tables(const RunResult& result) {
    std::string out;
    for (const VariantResult& v : result.variants)
        for (const TraceResult& t : v.traces) {
            if (!out.empty()) out += '\n';
            out += tables(v, t);
        }
    return out;
}

}  // namespace fabricsim::report
