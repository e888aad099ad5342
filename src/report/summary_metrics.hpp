// The headline numbers of one variant, in the order the console table and summary.csv show
// them. One list, so the table and the CSV cannot disagree.
#pragma once

#include "report/run_result.hpp"

#include <string>
#include <vector>

namespace fabricsim::report {

struct SummaryMetric {
    std::string name;     // CSV name, SI units: "fct_p99_s"
    std::string label;    // console label: "FCT p99"
    double value;         // in the unit the name says
    std::string display;  // human text: "2.73us"
};

std::vector<SummaryMetric> summary_metrics(const VariantResult& variant);

}  // namespace fabricsim::report
