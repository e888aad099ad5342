// The HTML report of `fabricsim compare` and `fabricsim run` (docs/REPORTS.md): one self-contained file
// (no network fetch: the charting library, D3 3.5.17 from Debian's libjs-d3, is inlined) with
// the comparison table and SVG plots drawn by D3:
//   busbw against message size (nccl-tests' axes: size in bytes, log scale; busbw in GB/s),
//   FCT CDF (log scale, in ns, µs, ms or s by the slowest flow) and slowdown against flow size,
//   iteration-time breakdown bars (compute, bubble, exposed comm per dimension, ms),
//   link utilisation per tier (mean over the ports that carried traffic, %),
//   with the queue time series (outputs.queues): queue depth over time per sampled port (a line
//   per variant), and the sampled ports paused by PFC / waiting for credits over time.
// A plot with no data in any variant is left out (the page says when there is no queue series);
// each plot is a <figure id="plot-...">, the queue plots "plot-queue-0", "plot-queue-1", ...
#pragma once

#include "report/comparison.hpp"
#include "report/run_result.hpp"

#include <string>
#include <vector>

namespace fabricsim::report {

std::string html_report(const std::string& title, const Comparison& table,
                        const std::vector<const VariantResult*>& variants, const std::vector<std::string>& names);

// The page for one `fabricsim run` (report.html in its results folder): the same report as
// `compare` writes, a column per variant of the run by its name, titled by the scenario's name.
std::string html_report(const RunResult& result);

// The ids of the plots html_report() draws for these variants, in page order.
std::vector<std::string> html_plot_ids(const std::vector<const VariantResult*>& variants);

}  // namespace fabricsim::report
