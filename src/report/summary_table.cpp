#include "report/summary_table.hpp"

#include "report/summary_metrics.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::report {

namespace {

// Columns on a terminal: UTF-8 code points (every text here is one column per code point),
// as fmt counts them when it pads.
std::size_t width(const std::string& s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

constexpr const char* kMissing = "—";  // a metric this variant does not have

}  // namespace

std::string summary_table(const RunResult& result) {
    if (result.variants.empty()) return {};
    // Variants may run different workloads: the rows are every metric any variant has, keyed
    // by name; one a variant adds goes after that variant's previous metric. A variant without
    // a metric shows kMissing. A row no variant shows on the console (SummaryMetric::console)
    // is left out; one that some variant shows is shown for all that have it.
    struct Row {
        std::string name, label;
        std::vector<const std::string*> cells;  // per variant; nullptr: missing
        bool shown = false;
    };
    std::vector<std::vector<SummaryMetric>> columns;
    for (const auto& v : result.variants) columns.push_back(summary_metrics(v));
    std::vector<Row> rows;
    for (std::size_t c = 0; c < columns.size(); ++c) {
        std::size_t after = 0;  // a new metric goes after this variant's previous one
        for (const auto& m : columns[c]) {
            auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name == m.name; });
            if (it == rows.end())
                it = rows.insert(rows.begin() + static_cast<std::ptrdiff_t>(std::min(after, rows.size())),
                                 Row{m.name, m.label, std::vector<const std::string*>(columns.size(), nullptr)});
            it->cells[c] = &m.display;
            it->shown = it->shown || m.console;
            after = static_cast<std::size_t>(it - rows.begin()) + 1;
        }
    }
    rows.erase(std::remove_if(rows.begin(), rows.end(), [](const Row& r) { return !r.shown; }), rows.end());

    std::size_t label_width = 0;
    for (const auto& r : rows) label_width = std::max(label_width, width(r.label));
    std::vector<std::size_t> widths;
    for (std::size_t c = 0; c < columns.size(); ++c) {
        std::size_t w = std::max(width(result.variants[c].name), width(kMissing));
        for (const auto& r : rows)
            if (r.cells[c] != nullptr) w = std::max(w, width(*r.cells[c]));
        widths.push_back(w);
    }

    std::string out = fmt::format("{:<{}}", "", label_width);
    for (std::size_t c = 0; c < columns.size(); ++c) out += fmt::format("  {:>{}}", result.variants[c].name, widths[c]);
    out += '\n';
    for (const auto& r : rows) {
        out += fmt::format("{:<{}}", r.label, label_width);
        for (std::size_t c = 0; c < columns.size(); ++c)
            out += fmt::format("  {:>{}}", r.cells[c] != nullptr ? *r.cells[c] : std::string(kMissing), widths[c]);
        out += '\n';
    }
    return out;
}

}  // namespace fabricsim::report
