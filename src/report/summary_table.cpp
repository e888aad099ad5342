#include "report/summary_table.hpp"

#include "report/summary_metrics.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::report {

std::string summary_table(const RunResult& result) {
    if (result.variants.empty()) return {};
    std::vector<std::vector<SummaryMetric>> columns;
    for (const auto& v : result.variants) columns.push_back(summary_metrics(v));

    std::size_t label_width = 0;
    for (const auto& m : columns.front()) label_width = std::max(label_width, m.label.size());
    std::vector<std::size_t> widths;
    for (std::size_t c = 0; c < columns.size(); ++c) {
        std::size_t w = result.variants[c].name.size();
        for (const auto& m : columns[c]) w = std::max(w, m.display.size());
        widths.push_back(w);
    }

    std::string out = fmt::format("{:<{}}", "", label_width);
    for (std::size_t c = 0; c < columns.size(); ++c) out += fmt::format("  {:>{}}", result.variants[c].name, widths[c]);
    out += '\n';
    for (std::size_t row = 0; row < columns.front().size(); ++row) {
        out += fmt::format("{:<{}}", columns.front()[row].label, label_width);
        for (std::size_t c = 0; c < columns.size(); ++c) out += fmt::format("  {:>{}}", columns[c][row].display, widths[c]);
        out += '\n';
    }
    return out;
}

}  // namespace fabricsim::report
