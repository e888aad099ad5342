// The headline numbers of one variant, in the order the console table and summary.csv show
// them. One list, so the table and the CSV cannot disagree. The console shows them for people
// (display_units.hpp: three digits and a unit); the CSV keeps the exact SI value.
#pragma once

#include "report/run_result.hpp"

#include <string>
#include <vector>

namespace fabricsim::report {

struct SummaryMetric {
    std::string name;     // CSV name, SI units: "fct_p99_s"
    std::string label;    // console label: "FCT p99"
    double value;         // in the unit the name says
    std::string display;  // human text: "2.73 µs"
    bool console = true;  // false: in summary.csv only (a console row that would say nothing new)
};

std::vector<SummaryMetric> summary_metrics(const VariantResult& variant);

}  // namespace fabricsim::report
