#include "report/sweep_table.hpp"

#include "report/d3_source.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fabricsim::report {

namespace {

using Json = nlohmann::ordered_json;

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::vector<std::string> metric_names(const SweepTable& t) {
    std::vector<std::string> names;
    for (const SweepRow& r : t.rows)
        for (const auto& [name, value] : r.metrics)
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    return names;
}

std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '&')
            out += "&amp;";
        else
            out += c;
    }
    return out;
}

// The page's charts: a line per series over the first axis's values (an ordinal axis).
constexpr const char* kSweepCharts = R"js(
(function () {
  "use strict";
  var W = 720, H = 360, M = {top: 16, right: 260, bottom: 52, left: 80};
  var color = d3.scale.category10();
  var D = window.FABRICSIM_SWEEP;
  D.plots.forEach(function (p) {
    var svg = d3.select("#" + p.id).append("svg").attr("xmlns", "http://www.w3.org/2000/svg")
      .attr("width", W).attr("height", H);
    var g = svg.append("g").attr("transform", "translate(" + M.left + "," + M.top + ")");
    var w = W - M.left - M.right, h = H - M.top - M.bottom;
    var x = d3.scale.ordinal().domain(D.x).rangePoints([0, w], 0.5);
    var all = [];
    p.series.forEach(function (s) { s.values.forEach(function (v) { if (v !== null) all.push(v); }); });
    var y = d3.scale.linear().domain([Math.min(0, d3.min(all)), d3.max(all) * 1.08 || 1]).range([h, 0]).nice();
    g.append("g").attr("class", "axis").attr("transform", "translate(0," + h + ")").call(d3.svg.axis().scale(x).orient("bottom"));
    g.append("g").attr("class", "axis").call(d3.svg.axis().scale(y).orient("left").ticks(6));
    g.append("text").attr("class", "label").attr("x", w / 2).attr("y", h + 42).attr("text-anchor", "middle").text(D.xlabel);
    g.append("text").attr("class", "label").attr("transform", "rotate(-90)").attr("x", -h / 2).attr("y", -62)
      .attr("text-anchor", "middle").text(p.ylabel);
    var line = d3.svg.line().defined(function (v) { return v !== null; })
      .x(function (v, i) { return x(D.x[i]); }).y(function (v) { return y(v); });
    p.series.forEach(function (s) {
      g.append("path").datum(s.values).attr("class", "line").attr("d", line).style("stroke", color(s.name));
      g.selectAll(null).data(s.values.map(function (v, i) { return [i, v]; }).filter(function (d) { return d[1] !== null; }))
        .enter().append("circle").attr("r", 3).attr("cx", function (d) { return x(D.x[d[0]]); })
        .attr("cy", function (d) { return y(d[1]); }).style("fill", color(s.name));
    });
    var l = g.selectAll(".legend").data(p.series).enter().append("g").attr("class", "legend")
      .attr("transform", function (d, i) { return "translate(" + (w + 16) + "," + (i * 18) + ")"; });
    l.append("rect").attr("width", 12).attr("height", 12).style("fill", function (d) { return color(d.name); });
    l.append("text").attr("x", 18).attr("y", 10).text(function (d) { return d.name; });
  });
  document.documentElement.setAttribute("data-plots-drawn", String(document.querySelectorAll("figure svg").length));
})();
)js";

// The metric's unit for the axis label and the factor from SI.
std::pair<std::string, double> axis_unit(const std::string& metric) {
    const auto ends = [&](std::string_view s) {
        return metric.size() >= s.size() && metric.substr(metric.size() - s.size()) == s;
    };
    if (ends("_s")) return {"ms", 1e3};
    if (ends("_bytes")) return {"MiB", 1.0 / (1024.0 * 1024.0)};
    if (ends("_GBps")) return {"GB/s", 1.0};
    return {"", 1.0};
}

}  // namespace

std::vector<std::pair<std::string, double>> parse_summary_csv(std::string_view text) {
    std::vector<std::pair<std::string, double>> out;
    std::size_t at = text.find('\n');  // skip the header
    while (at != std::string_view::npos && at + 1 < text.size()) {
        const std::size_t start = at + 1;
        at = text.find('\n', start);
        const std::string_view line = text.substr(start, (at == std::string_view::npos ? text.size() : at) - start);
        const std::size_t last = line.rfind(',');
        if (last == std::string_view::npos || last == 0) continue;
        const std::size_t before = line.rfind(',', last - 1);
        if (before == std::string_view::npos) continue;
        const std::string_view metric = line.substr(before + 1, last - before - 1);
        const std::string value(line.substr(last + 1));
        try {
            std::size_t used = 0;
            const double v = std::stod(value, &used);
            if (used == value.size()) out.emplace_back(std::string(metric), v);
        } catch (const std::exception&) {
            // a text value (none today): not a number to tabulate
        }
    }
    return out;
}

std::string sweep_csv(const SweepTable& t) {
    const std::vector<std::string> metrics = metric_names(t);
    std::string out = "point";
    for (const auto& a : t.axes) out += fmt::format(",{}", csv_field(a));
    out += ",variant,hash,done";
    for (const auto& m : metrics) out += fmt::format(",{}", m);
    out += "\n";
    for (const SweepRow& r : t.rows) {
        out += std::to_string(r.point);
        for (const auto& v : r.values) out += fmt::format(",{}", csv_field(v));
        out += fmt::format(",{},{},{}", csv_field(r.variant), r.hash, r.done ? 1 : 0);
        for (const auto& m : metrics) {
            const auto it =
                std::find_if(r.metrics.begin(), r.metrics.end(), [&](const auto& p) { return p.first == m; });
            out += it == r.metrics.end() ? std::string(",") : fmt::format(",{}", it->second);
        }
        out += "\n";
    }
    return out;
}

std::string sweep_json(const SweepTable& t) {
    Json j;
    j["schema_version"] = 1;
    j["sweep"] = t.title;
    j["axes"] = t.axes;
    j["rows"] = Json::array();
    for (const SweepRow& r : t.rows) {
        Json row{
            {"point", r.point}, {"values", Json::object()}, {"variant", r.variant}, {"hash", r.hash}, {"done", r.done}};
        for (std::size_t k = 0; k < t.axes.size() && k < r.values.size(); ++k) row["values"][t.axes[k]] = r.values[k];
        Json metrics = Json::object();
        for (const auto& [name, value] : r.metrics) metrics[name] = value;
        row["metrics"] = metrics;
        j["rows"].push_back(row);
    }
    return j.dump(2) + "\n";
}

std::vector<std::string> sweep_plot_metrics(const SweepTable& t) {
    // The figures a sweep is usually about: completion, collective times and busbw, the
    // iteration, FCT p99, pauses and stalls, the deepest queue. At most 12.
    std::vector<std::string> out;
    for (const auto& m : metric_names(t)) {
        const auto ends = [&](std::string_view s) {
            return m.size() >= s.size() && m.substr(m.size() - s.size()) == s;
        };
        if (m == "makespan_s" || ends("_busbw_GBps") || ends("_iteration_time_s") || ends("fct_p99_s") ||
            m == "paused_time_s" || m == "credit_stall_time_s" || m == "max_queue_bytes")
            out.push_back(m);
        if (out.size() == 12) break;
    }
    return out;
}

std::string sweep_html(const SweepTable& t) {
    Json data;
    // x: the first axis's values in grid order; a series per (other axes' values, variant).
    std::vector<std::string> xs;
    for (const SweepRow& r : t.rows)
        if (!r.values.empty() && std::find(xs.begin(), xs.end(), r.values[0]) == xs.end()) xs.push_back(r.values[0]);
    data["x"] = xs;
    data["xlabel"] = t.axes.empty() ? std::string() : t.axes[0];
    data["plots"] = Json::array();
    std::string figures;
    int n = 0;
    for (const std::string& metric : sweep_plot_metrics(t)) {
        const auto [unit, factor] = axis_unit(metric);
        std::map<std::string, std::vector<std::optional<double>>> series;
        std::vector<std::string> order;
        for (const SweepRow& r : t.rows) {
            std::string name;
            for (std::size_t k = 1; k < r.values.size(); ++k)
                name += fmt::format("{}{}={}", name.empty() ? "" : ", ", t.axes[k], r.values[k]);
            name += fmt::format("{}{}", name.empty() ? "" : ", ", r.variant);
            if (!series.count(name)) {
                series[name] = std::vector<std::optional<double>>(xs.size());
                order.push_back(name);
            }
            const auto x = static_cast<std::size_t>(
                std::find(xs.begin(), xs.end(), r.values.empty() ? "" : r.values[0]) - xs.begin());
            for (const auto& [m, v] : r.metrics)
                if (m == metric && x < xs.size()) series[name][x] = v * factor;
        }
        Json plot{{"id", fmt::format("sweep-{}", n)},
                  {"ylabel", unit.empty() ? metric : fmt::format("{} ({})", metric, unit)}};
        plot["series"] = Json::array();
        for (const auto& name : order) {
            Json values = Json::array();
            for (const auto& v : series[name]) values.push_back(v ? Json(*v) : Json(nullptr));
            plot["series"].push_back({{"name", name}, {"values", values}});
        }
        data["plots"].push_back(plot);
        figures += fmt::format("<figure id=\"sweep-{}\"><figcaption>{} against {}</figcaption></figure>\n", n,
                               escape(metric), escape(t.axes.empty() ? std::string() : t.axes[0]));
        ++n;
    }
    std::string json = data.dump();
    for (std::size_t at = json.find("</"); at != std::string::npos; at = json.find("</", at + 3))
        json.replace(at, 2, "<\\/");
    std::string table = "<table>\n<tr><th>point</th>";
    for (const auto& a : t.axes) table += fmt::format("<th>{}</th>", escape(a));
    table += "<th>variant</th><th>done</th></tr>\n";
    for (const SweepRow& r : t.rows) {
        table += fmt::format("<tr><td>{}</td>", r.point);
        for (const auto& v : r.values) table += fmt::format("<td>{}</td>", escape(v));
        table += fmt::format("<td>{}</td><td>{}</td></tr>\n", escape(r.variant), r.done ? "yes" : "no");
    }
    table += "</table>\n";
    return fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{0} sweep — fabricsim</title>\n"
        "<style>body {{ font: 14px/1.4 system-ui, sans-serif; margin: 24px; }} td, th {{ padding: 2px 8px; }}"
        " .axis path, .axis line {{ fill: none; stroke: #444; }} .axis text, .legend text, .label {{ font-size: 11px; "
        "}}"
        " path.line {{ fill: none; stroke-width: 1.8px; }} figcaption {{ font-weight: 600; "
        "}}</style>\n</head>\n<body>\n"
        "<script>window.onerror = function (m) {{ document.documentElement.setAttribute(\"data-js-error\", String(m)); "
        "}};"
        "</script>\n<h1>{0} sweep</h1>\n{1}{2}<p><small>Plots drawn with D3 {3} (inlined; BSD-3-Clause).</small></p>\n"
        "<script>\n{4}\n</script>\n<script>window.FABRICSIM_SWEEP = "
        "{5};</script>\n<script>{6}</script>\n</body>\n</html>\n",
        escape(t.title), table, figures, d3_version(), d3_source(), json, kSweepCharts);
}

}  // namespace fabricsim::report
