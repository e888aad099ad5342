#include "scenario/flow_size_cdf.hpp"

#include "scenario/input_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

namespace fabricsim::scenario {

namespace {

// The points of data/flow-size/websearch.cdf: DCTCP's web-search workload (Alizadeh et al.,
// SIGCOMM 2010) as HPCC's traffic_gen/WebSearch_distribution.txt tabulates it.
const FlowSizeCdf kWebsearch{{{0, 0},
                              {10000, 15},
                              {20000, 20},
                              {30000, 30},
                              {50000, 40},
                              {80000, 53},
                              {200000, 60},
                              {1000000, 70},
                              {2000000, 80},
                              {5000000, 90},
                              {10000000, 97},
                              {30000000, 100}}};

// The points of data/flow-size/fb_hadoop.cdf: Facebook Hadoop (Roy et al., SIGCOMM 2015) as
// HPCC's traffic_gen/FbHdp_distribution.txt tabulates it.
const FlowSizeCdf kFbHadoop{{{0, 0},       {100, 1},     {200, 2},        {300, 5},      {350, 15},
                             {400, 20},    {500, 30},    {600, 40},       {700, 50},     {1000, 60},
                             {2000, 67},   {7000, 70},   {30000, 72},     {50000, 82},   {80000, 87},
                             {120000, 90}, {300000, 95}, {1000000, 97.5}, {2000000, 99}, {10000000, 100}}};

std::optional<double> number(std::string_view word) {
    double v = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (ec != std::errc{} || end != word.data() + word.size()) return std::nullopt;
    return v;
}

}  // namespace

double FlowSizeCdf::quantile(double u) const {
    const double p = std::clamp(u, 0.0, 1.0) * 100.0;
    if (p <= points.front().percent) return points.front().bytes;
    for (std::size_t i = 1; i < points.size(); ++i) {
        const CdfPoint& a = points[i - 1];
        const CdfPoint& b = points[i];
        if (p <= b.percent) return a.bytes + (b.bytes - a.bytes) * (p - a.percent) / (b.percent - a.percent);
    }
    return points.back().bytes;
}

double FlowSizeCdf::cdf(double x) const {
    if (x < points.front().bytes) return 0.0;
    // The last point at or below x; between it and the next point F rises linearly.
    std::size_t i = 0;
    while (i + 1 < points.size() && points[i + 1].bytes <= x) ++i;
    if (i + 1 == points.size()) return points.back().percent / 100.0;
    const CdfPoint& a = points[i];
    const CdfPoint& b = points[i + 1];
    return (a.percent + (b.percent - a.percent) * (x - a.bytes) / (b.bytes - a.bytes)) / 100.0;
}

double FlowSizeCdf::mean() const {
    double sum = points.front().bytes * points.front().percent;  // a jump at the first size
    for (std::size_t i = 1; i < points.size(); ++i)
        sum += (points[i - 1].bytes + points[i].bytes) / 2.0 * (points[i].percent - points[i - 1].percent);
    return sum / 100.0;
}

const std::vector<std::string>& builtin_flow_size_cdf_names() {
    static const std::vector<std::string> names{"websearch", "fb_hadoop"};
    return names;
}

std::optional<FlowSizeCdf> builtin_flow_size_cdf(std::string_view name) {
    if (name == "websearch") return kWebsearch;
    if (name == "fb_hadoop") return kFbHadoop;
    return std::nullopt;
}

std::optional<FlowSizeCdf> parse_flow_size_cdf(std::string_view text, std::string& error) {
    FlowSizeCdf out;
    std::istringstream in{std::string(text)};
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string s; words >> s;) w.push_back(s);
        if (w.empty()) continue;
        const auto x = w.size() == 2 ? number(w[0]) : std::nullopt;
        const auto y = w.size() == 2 ? number(w[1]) : std::nullopt;
        if (!x || !y) {
            error = fmt::format("line {}: expected \"<bytes> <cumulative percent>\", found \"{}\"", line_no, line);
            return std::nullopt;
        }
        if (!std::isfinite(*x) || !std::isfinite(*y) || *x > static_cast<double>(kMaxBytes.count())) {
            error = fmt::format("line {}: sizes must be finite numbers of at most {} B (1PiB) and percents finite, "
                                "found \"{}\"",
                                line_no, kMaxBytes.count(), line);
            return std::nullopt;
        }
        if (*x < 0 || *y < 0 || *y > 100) {
            error = fmt::format("line {}: sizes must be >= 0 and percents in [0, 100], found \"{}\"", line_no, line);
            return std::nullopt;
        }
        if (!out.points.empty() && (*x < out.points.back().bytes || *y < out.points.back().percent)) {
            error = fmt::format("line {}: sizes and percents must not decrease, found \"{}\" after \"{} {}\"", line_no,
                                line, out.points.back().bytes, out.points.back().percent);
            return std::nullopt;
        }
        out.points.push_back({*x, *y});
    }
    if (out.points.size() < 2 || out.points.back().percent != 100.0) {
        error = "expected at least two points, the last at 100 percent";
        return std::nullopt;
    }
    return out;
}

}  // namespace fabricsim::scenario
