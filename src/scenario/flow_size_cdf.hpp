// Flow-size distributions for `- traffic: poisson` entries, as HPCC's traffic generator reads
// them (alibaba-edu/High-Precision-Congestion-Control, traffic_gen/traffic_gen.py): a list of
// (size in bytes, cumulative percent) points, sizes between points linearly interpolated.
//
//   quantile(u):  p = 100·u; the first point i with p <= y_i;
//                 x = x_{i-1} + (x_i - x_{i-1}) · (p - y_{i-1}) / (y_i - y_{i-1})
//   mean():       sum over segments of (x_{i-1} + x_i)/2 · (y_i - y_{i-1}) / 100 (the trapezoids)
//
// Two tables are built in (websearch, fb_hadoop; sources in data/flow-size/*.cdf, which hold
// the same points); any other file in that format can be named instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::scenario {

struct CdfPoint {
    double bytes = 0;
    double percent = 0;
    bool operator==(const CdfPoint&) const = default;
};

struct FlowSizeCdf {
    std::vector<CdfPoint> points;  // sizes and percents non-decreasing; last percent 100

    // The size at cumulative fraction u in [0, 1] (continuous; callers round to bytes).
    double quantile(double u) const;
    // P(size <= x) of the interpolated distribution.
    double cdf(double x) const;
    double mean() const;
    bool operator==(const FlowSizeCdf&) const = default;
};

// The built-in tables by name: "websearch", "fb_hadoop"; nullopt for any other name.
std::optional<FlowSizeCdf> builtin_flow_size_cdf(std::string_view name);
const std::vector<std::string>& builtin_flow_size_cdf_names();

// Parses "<bytes> <percent>" lines ('#' starts a comment; blank lines are skipped). On a
// problem returns nullopt and sets `error` to a message that names the line.
std::optional<FlowSizeCdf> parse_flow_size_cdf(std::string_view text, std::string& error);

}  // namespace fabricsim::scenario
