// The table of a sweep (`fabricsim sweep`, docs/REPORTS.md): one row per grid point and
// variant, with the swept values, the hash its results are filed under, and the summary
// metrics of its run (summary.csv's names and SI values). Written as CSV (one header, one row
// per point and variant, an empty cell where a row has no such metric), JSON, and an HTML page
// of plots over the first swept key (one line per value of the other keys and variant).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabricsim::report {

struct SweepRow {
    std::size_t point = 0;
    std::vector<std::string> values;  // one per axis
    std::string variant;
    std::string hash;                                     // of the point's resolved scenario
    bool done = false;                                    // results found
    std::vector<std::pair<std::string, double>> metrics;  // summary.csv order
};

struct SweepTable {
    std::string title;
    std::vector<std::string> axes;
    std::vector<SweepRow> rows;
};

// summary.csv ("variant,metric,value") -> (metric, value), the variant column dropped.
std::vector<std::pair<std::string, double>> parse_summary_csv(std::string_view text);

std::string sweep_csv(const SweepTable& table);
std::string sweep_json(const SweepTable& table);
std::string sweep_html(const SweepTable& table);
// The metrics sweep_html plots, in page order.
std::vector<std::string> sweep_plot_metrics(const SweepTable& table);

}  // namespace fabricsim::report
