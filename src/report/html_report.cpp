#include "report/html_report.hpp"

#include "report/d3_source.hpp"
#include "report/display_units.hpp"
#include "report/scenario_value.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fabricsim::report {

namespace {

using Json = nlohmann::ordered_json;

std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

// JSON safe inside <script>: no "</" can close the element.
std::string script_json(const Json& j) {
    std::string s = j.dump();
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<' && i + 1 < s.size() && s[i + 1] == '/') {
            out += "<\\/";
            ++i;
        } else {
            out += s[i];
        }
    }
    return out;
}

// Queue plots: at most this many ports (one plot each), and at most this many points per line
// (longer series keep the deepest sample of each bucket, so a line's peak is the series' peak).
constexpr std::size_t kMaxQueuePlots = 8;
constexpr std::size_t kMaxLinePoints = 2000;

// One variant's queue series of one port as plot points [time µs, wire bytes], thinned.
Json queue_points(const QueueSeries& q) {
    Json pts = Json::array();
    const std::size_t n = q.samples.size();
    const std::size_t bucket = (n + kMaxLinePoints - 1) / kMaxLinePoints;
    for (std::size_t b = 0; b < n; b += std::max<std::size_t>(bucket, 1)) {
        std::size_t deepest = b;
        for (std::size_t k = b; k < std::min(n, b + bucket); ++k)
            if (q.samples[k].queued > q.samples[deepest].queued) deepest = k;
        pts.push_back(Json::array({q.samples[deepest].at.seconds() * 1e6, q.samples[deepest].queued.count()}));
    }
    return pts;
}

// How many of a variant's sampled ports have a flag set at each sample time, as plot points
// [time µs, ports]; empty when no sample has it.
Json flag_points(const std::vector<QueueSeries>& queues, bool QueueSample::*flag) {
    std::map<std::int64_t, int> at;  // ps -> ports flagged
    bool any = false;
    for (const QueueSeries& q : queues)
        for (const QueueSample& s : q.samples) {
            at[s.at.picoseconds()] += s.*flag ? 1 : 0;
            any = any || s.*flag;
        }
    Json pts = Json::array();
    if (!any) return pts;
    const std::size_t bucket = (at.size() + kMaxLinePoints - 1) / kMaxLinePoints;
    for (auto it = at.begin(); it != at.end();) {
        // A thinned bucket keeps its most flagged sample.
        auto most = it;
        for (std::size_t j = 0; j < bucket && it != at.end(); ++j, ++it)
            if (it->second > most->second) most = it;
        pts.push_back(Json::array({static_cast<double>(most->first) * 1e-6, most->second}));
    }
    return pts;
}

// The plots' data: one object per plot id. `titles` gets the captions of the plots whose ids
// depend on the run (one queue plot per port).
Json plot_data(const std::vector<const VariantResult*>& variants, const std::vector<std::string>& names,
               std::map<std::string, std::string>* titles = nullptr) {
    Json busbw = Json::array(), cdf = Json::array(), slowdown = Json::array(), bars = Json::array(),
         util = Json::array();
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const VariantResult& v = *variants[i];
        std::map<std::string, Json> entries;
        std::vector<std::string> order;
        for (const CollectiveResult& c : v.collectives) {
            if (c.time == Time::max()) continue;
            if (!entries.count(c.name)) order.push_back(c.name);
            entries[c.name].push_back(Json::array({c.bytes.count(), c.busbw_GBps}));
        }
        for (const auto& name : order)
            busbw.push_back(
                {{"name", variants.size() > 1 || order.size() > 1 ? fmt::format("{}: {}", names[i], name) : name},
                 {"points", entries[name]}});
        std::vector<double> fcts;
        Json sd = Json::array();
        for (const TransferResult& t : v.transfers) {
            if (!t.finished()) continue;
            fcts.push_back(t.fct().seconds() * 1e6);
            sd.push_back(Json::array({t.bytes.count(), t.slowdown()}));
        }
        if (!fcts.empty()) {
            std::sort(fcts.begin(), fcts.end());
            Json pts = Json::array();
            for (std::size_t k = 0; k < fcts.size(); ++k)
                pts.push_back(Json::array({fcts[k], static_cast<double>(k + 1) / static_cast<double>(fcts.size())}));
            cdf.push_back({{"name", names[i]}, {"points", pts}});
            slowdown.push_back({{"name", names[i]}, {"points", sd}});
        }
        for (const TrainingResult& t : v.training) {
            Json parts = Json::object();
            parts["compute"] = t.compute.seconds() * 1e3;
            parts["bubble"] = t.bubble.seconds() * 1e3;
            static constexpr const char* kDims[] = {"exposed tp", "exposed pp", "exposed dp", "exposed ep"};
            for (std::size_t d = 0; d < 4; ++d) parts[kDims[d]] = t.exposed[d].seconds() * 1e3;
            bars.push_back({{"name", v.training.size() > 1 ? fmt::format("{}: {}", names[i], t.name) : names[i]},
                            {"values", parts}});
        }
    }
    // Utilisation per tier: the comparison's "<tier> mean" rows.
    const Comparison c = compare(variants, names);
    for (const ComparisonRow& r : c.rows) {
        if (r.group != "utilisation" || r.label.size() < 5 || r.label.substr(r.label.size() - 5) != " mean") continue;
        Json values = Json::object();
        for (std::size_t i = 0; i < r.values.size(); ++i)
            if (r.values[i]) values[names[i]] = *r.values[i] * 100.0;
        util.push_back({{"name", r.label.substr(0, r.label.size() - 5)}, {"values", values}});
    }
    Json out = Json::object();
    if (!busbw.empty()) out["plot-busbw"] = busbw;
    if (!cdf.empty()) out["plot-fct-cdf"] = cdf;
    if (!slowdown.empty()) out["plot-slowdown"] = slowdown;
    // Queue depth over time: one plot per sampled port (the union over variants, in the order
    // they first appear), a line per variant that sampled it; then the ports paused by PFC and
    // waiting for credits over time, a line per variant.
    std::vector<std::string> ports;
    for (const VariantResult* v : variants)
        for (const QueueSeries& q : v->queues)
            if (!q.samples.empty() && std::find(ports.begin(), ports.end(), q.port) == ports.end() &&
                ports.size() < kMaxQueuePlots)
                ports.push_back(q.port);
    for (std::size_t k = 0; k < ports.size(); ++k) {
        Json lines = Json::array();
        for (std::size_t i = 0; i < variants.size(); ++i)
            for (const QueueSeries& q : variants[i]->queues)
                if (q.port == ports[k] && !q.samples.empty())
                    lines.push_back({{"name", names[i]}, {"port", q.port}, {"points", queue_points(q)}});
        const std::string id = fmt::format("plot-queue-{}", k);
        out[id] = lines;
        if (titles)
            (*titles)[id] = fmt::format("Queue depth over time, port {} (wire bytes, all traffic classes)", ports[k]);
    }
    Json paused = Json::array(), stalled = Json::array();
    for (std::size_t i = 0; i < variants.size(); ++i) {
        if (Json p = flag_points(variants[i]->queues, &QueueSample::paused); !p.empty())
            paused.push_back({{"name", names[i]}, {"points", p}});
        if (Json p = flag_points(variants[i]->queues, &QueueSample::credit_stalled); !p.empty())
            stalled.push_back({{"name", names[i]}, {"points", p}});
    }
    if (!paused.empty()) out["plot-paused"] = paused;
    if (!stalled.empty()) out["plot-credit-stalled"] = stalled;
    if (!bars.empty()) out["plot-iteration"] = bars;
    if (!util.empty()) out["plot-utilisation"] = util;
    return out;
}

const std::map<std::string, std::string>& plot_titles() {
    static const std::map<std::string, std::string> titles{
        {"plot-busbw", "Bus bandwidth against message size (nccl-tests' busbw)"},
        {"plot-fct-cdf", "Flow completion time, CDF"},
        {"plot-slowdown", "Slowdown against flow size (FCT / the flow alone on an idle network)"},
        {"plot-iteration", "Training iteration time, broken down on the critical rank"},
        {"plot-utilisation", "Link utilisation per tier (busy time / run time, mean over ports that carried traffic)"},
        {"plot-paused", "Sampled ports paused by PFC over time (a class of the port paused)"},
        {"plot-credit-stalled", "Sampled ports waiting for InfiniBand link credits over time"},
    };
    return titles;
}

// The charts: D3 v3 scales, axes, lines and bars. Each draw function fills <figure id=...>.
constexpr const char* kCharts = R"js(
(function () {
  "use strict";
  var W = 720, H = 380, M = {top: 16, right: 220, bottom: 52, left: 76};
  var color = d3.scale.category10();
  function bytes(v) {
    var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0;
    while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    return (Math.round(v * 100) / 100) + " " + u[i];
  }
  function frame(id) {
    var svg = d3.select("#" + id).append("svg").attr("xmlns", "http://www.w3.org/2000/svg")
      .attr("width", W).attr("height", H).attr("role", "img");
    var g = svg.append("g").attr("transform", "translate(" + M.left + "," + M.top + ")");
    return {g: g, w: W - M.left - M.right, h: H - M.top - M.bottom};
  }
  // Three significant digits, no exponent: 3000 -> "3000", 2.95 -> "2.95", 0.0012 -> "0.0012".
  function num(v) { return String(+(+v).toPrecision(3)); }
  // The unit that shows times given in µs as numbers from 1 to 1000 or so.
  function timeUnit(maxUs) {
    if (maxUs >= 1e6) return {div: 1e6, name: "s"};
    if (maxUs >= 1e3) return {div: 1e3, name: "ms"};
    if (maxUs >= 1) return {div: 1, name: "µs"};
    return {div: 1e-3, name: "ns"};
  }
  // The binary unit that shows byte counts as numbers below 1024.
  function byteUnit(max) {
    var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0, div = 1;
    while (max >= 1024 * div && i < u.length - 1) { div *= 1024; i++; }
    return {div: div, name: u[i]};
  }
  // Series with x and y divided by the units' divisors.
  function scaled(series, xdiv, ydiv) {
    return series.map(function (s) {
      return {name: s.name, points: s.points.map(function (p) { return [p[0] / xdiv, p[1] / ydiv]; })};
    });
  }
  function maxOf(series, k) {
    return d3.max(series, function (s) { return d3.max(s.points, function (p) { return p[k]; }); }) || 0;
  }
  function axes(f, x, y, xlabel, ylabel, xticks, xfmt, yfmt, yticks) {
    var xa = d3.svg.axis().scale(x).orient("bottom");
    if (xticks) xa.tickValues(xticks);
    if (xfmt) xa.tickFormat(xfmt);
    var xg = f.g.append("g").attr("class", "axis").attr("transform", "translate(0," + f.h + ")").call(xa);
    var ya = d3.svg.axis().scale(y).orient("left").ticks(yticks || 6);
    if (yfmt) ya.tickFormat(yfmt);
    f.g.append("g").attr("class", "axis").call(ya);
    f.g.append("text").attr("class", "label").attr("x", f.w / 2).attr("y", f.h + 42)
      .attr("text-anchor", "middle").text(xlabel);
    f.g.append("text").attr("class", "label").attr("transform", "rotate(-90)").attr("x", -f.h / 2)
      .attr("y", -56).attr("text-anchor", "middle").text(ylabel);
    return xg;
  }
  // The fewest labelled ticks on a numeric x axis of the page (tools/check_html_report.sh wants 2).
  var fewestXTicks = Infinity;
  function legend(f, names) {
    var l = f.g.selectAll(".legend").data(names).enter().append("g").attr("class", "legend")
      .attr("transform", function (d, i) { return "translate(" + (f.w + 16) + "," + (i * 18) + ")"; });
    l.append("rect").attr("width", 12).attr("height", 12).style("fill", function (d) { return color(d); });
    l.append("text").attr("x", 18).attr("y", 10).text(function (d) { return d; });
  }
  // Ticks of a log axis over [lo, hi], at most 8: powers of `base` over three decades or more;
  // 1, 2, 5 x 10^k over one to three decades; over a narrower range (an FCT CDF whose flows
  // all take about 3 ms) a linear axis' round values, so there are always several labelled ticks.
  function logTicks(lo, hi, base) {
    var t = [], p = Math.pow(base, Math.floor(Math.log(lo) / Math.log(base)));
    var inside = function (d) { return d >= lo / 1.0001 && d <= hi * 1.0001; };
    for (; p <= hi * 1.0001; p *= base) if (inside(p)) t.push(p);
    if (base === 10 && hi / lo < 1000) {
      t = [];
      for (p = Math.pow(10, Math.floor(Math.log(lo) / Math.LN10)); p <= hi * 1.0001; p *= 10)
        [1, 2, 5].forEach(function (m) { if (inside(m * p)) t.push(m * p); });
    }
    if (t.length < 3) t = d3.scale.linear().domain([lo, hi]).ticks(5).filter(function (d) { return d > 0 && inside(d); });
    if (t.length < 2) t = [lo, hi];
    var step = Math.ceil(t.length / 8);
    return t.filter(function (d, i) { return i % step === 0; });
  }
  function lines(id, series, o) {
    var f = frame(id), all = [];
    series.forEach(function (s) { all = all.concat(s.points); });
    var xs = d3.extent(all, function (p) { return p[0]; });
    if (o.xlog && xs[0] <= 0) xs[0] = d3.min(all.filter(function (p) { return p[0] > 0; }), function (p) { return p[0]; }) || 1;
    if (xs[0] === xs[1]) { xs = o.xlog ? [xs[0] / 2, xs[1] * 2] : [xs[0] - 1, xs[1] + 1]; }
    var x = (o.xlog ? d3.scale.log().base(o.xbase || 10) : d3.scale.linear()).domain(xs).range([0, f.w]);
    var ymax = o.ymax || d3.max(all, function (p) { return p[1]; }) * 1.08 || 1;
    var y = d3.scale.linear().domain([o.ymin || 0, ymax]).range([f.h, 0]).nice();
    var xg = axes(f, x, y, o.xlabel, o.ylabel, o.xlog ? logTicks(xs[0], xs[1], o.xbase || 10) : null, o.xfmt, o.yfmt,
      o.yint ? Math.max(1, Math.min(6, Math.floor(y.domain()[1]))) : 0);
    fewestXTicks = Math.min(fewestXTicks, xg.selectAll(".tick").size());
    var line = d3.svg.line().x(function (p) { return x(p[0]); }).y(function (p) { return y(p[1]); })
      .interpolate(o.step ? "step-after" : "linear");
    series.forEach(function (s) {
      var pts = s.points.filter(function (p) { return !o.xlog || p[0] > 0; });
      if (!o.scatter) f.g.append("path").datum(pts).attr("class", "line").attr("d", line).style("stroke", color(s.name));
      if (!o.nodots) f.g.selectAll(null).data(pts).enter().append("circle").attr("r", o.scatter ? 3 : 2.5)
        .attr("cx", function (p) { return x(p[0]); }).attr("cy", function (p) { return y(p[1]); })
        .style("fill", color(s.name));
    });
    legend(f, series.map(function (s) { return s.name; }));
  }
  // Bars: groups [{name, values: {key: number}}]; stacked or side by side.
  function bars(id, groups, o) {
    var f = frame(id), keys = [];
    groups.forEach(function (g) { Object.keys(g.values).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); }); });
    if (o.stacked) keys = keys.filter(function (k) { return groups.some(function (g) { return g.values[k] > 0; }); });
    var x0 = d3.scale.ordinal().domain(groups.map(function (g) { return g.name; })).rangeRoundBands([0, f.w], 0.2);
    var total = function (g) { return keys.reduce(function (a, k) { return a + (g.values[k] || 0); }, 0); };
    var ymax = o.stacked ? d3.max(groups, total) : d3.max(groups, function (g) { return d3.max(keys, function (k) { return g.values[k] || 0; }); });
    var y = d3.scale.linear().domain([0, (o.ymax || ymax * 1.08) || 1]).range([f.h, 0]).nice();
    axes(f, x0, y, o.xlabel, o.ylabel);
    var x1 = d3.scale.ordinal().domain(keys).rangeRoundBands([0, x0.rangeBand()], 0.05);
    groups.forEach(function (g) {
      var base = 0;
      keys.forEach(function (k) {
        var v = g.values[k] || 0;
        var r = f.g.append("rect").style("fill", color(k));
        r.append("title").text(k + ": " + v.toPrecision(3));
        if (o.stacked) {
          r.attr("x", x0(g.name)).attr("width", x0.rangeBand()).attr("y", y(base + v)).attr("height", y(base) - y(base + v));
          base += v;
        } else {
          r.attr("x", x0(g.name) + x1(k)).attr("width", x1.rangeBand()).attr("y", y(v)).attr("height", f.h - y(v));
        }
      });
    });
    legend(f, keys);
  }
  var D = window.FABRICSIM_PLOTS;
  if (D["plot-busbw"]) lines("plot-busbw", D["plot-busbw"], {xlog: true, xbase: 2, xfmt: bytes,
    xlabel: "message size (bytes, log scale)", ylabel: "busbw (GB/s)"});
  if (D["plot-fct-cdf"]) {
    var fu = timeUnit(maxOf(D["plot-fct-cdf"], 0));
    lines("plot-fct-cdf", scaled(D["plot-fct-cdf"], fu.div, 1), {xlog: true, step: true, ymax: 1, xfmt: num,
      xlabel: "flow completion time (" + fu.name + ", log scale)", ylabel: "fraction of flows"});
  }
  if (D["plot-slowdown"]) lines("plot-slowdown", D["plot-slowdown"], {xlog: true, xbase: 2, scatter: true, ymin: 0,
    xfmt: bytes, xlabel: "flow size (bytes, log scale)", ylabel: "slowdown (FCT / unloaded)"});
  Object.keys(D).filter(function (id) { return id.indexOf("plot-queue-") === 0; }).forEach(function (id) {
    var tu = timeUnit(maxOf(D[id], 0)), bu = byteUnit(maxOf(D[id], 1));
    lines(id, scaled(D[id], tu.div, bu.div), {step: true, nodots: true, xfmt: num, yfmt: num,
      xlabel: "simulated time (" + tu.name + ")", ylabel: "queue depth (" + bu.name + ")"});
  });
  [["plot-paused", "ports paused by PFC"], ["plot-credit-stalled", "ports waiting for credits"]].forEach(function (m) {
    if (!D[m[0]]) return;
    var tu = timeUnit(maxOf(D[m[0]], 0));
    lines(m[0], scaled(D[m[0]], tu.div, 1), {step: true, nodots: true, xfmt: num,
      yint: true, yfmt: function (v) { return v % 1 ? "" : String(v); },
      xlabel: "simulated time (" + tu.name + ")", ylabel: m[1] + " (of those sampled)"});
  });
  if (D["plot-iteration"]) bars("plot-iteration", D["plot-iteration"], {stacked: true,
    xlabel: "variant", ylabel: "iteration time (ms)"});
  if (D["plot-utilisation"]) bars("plot-utilisation", D["plot-utilisation"], {ymax: 100,
    xlabel: "tier", ylabel: "utilisation (%)"});
  if (fewestXTicks !== Infinity) document.documentElement.setAttribute("data-fewest-x-ticks", String(fewestXTicks));
  document.documentElement.setAttribute("data-plots-drawn", String(document.querySelectorAll("figure svg").length));
})();
)js";

constexpr const char* kStyle = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
table { border-collapse: collapse; margin: 12px 0 24px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
tr.group td { font-weight: 600; background: #f4f4f4; text-align: left; }
td.best { font-weight: 600; }
figure { margin: 18px 0; }
figcaption { font-weight: 600; margin-bottom: 4px; }
.axis path, .axis line { fill: none; stroke: #444; shape-rendering: crispEdges; }
.axis text, .legend text, .label { font-size: 11px; }
path.line { fill: none; stroke-width: 1.8px; }
)css";

}  // namespace

std::vector<std::string> html_plot_ids(const std::vector<const VariantResult*>& variants) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < variants.size(); ++i) names.push_back(fmt::format("v{}", i));
    std::vector<std::string> ids;
    const Json data = plot_data(variants, names);
    for (auto it = data.begin(); it != data.end(); ++it) ids.push_back(it.key());
    return ids;
}

std::string html_report(const std::string& title, const Comparison& table,
                        const std::vector<const VariantResult*>& variants, const std::vector<std::string>& names) {
    std::string out = fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{} — fabricsim</title>\n"
        "<style>{}</style>\n</head>\n<body>\n"
        // A script error marks the page, so a headless browser's DOM dump shows it
        // (tools/check_html_report.sh; no console scraping).
        "<script>window.onerror = function (m) {{ document.documentElement.setAttribute(\"data-js-error\", String(m)); "
        "}};"
        "</script>\n<h1>{}</h1>\n",
        escape(title), kStyle, escape(title));
    out += "<p>Variants: ";
    for (std::size_t i = 0; i < names.size(); ++i)
        out += fmt::format("{}<span class=\"variant\">{}</span> ({} model)", i == 0 ? "" : ", ", escape(names[i]),
                           escape(variants[i]->model));
    out += ". Differences are against the first variant.</p>\n<table>\n<tr><th></th>";
    for (const auto& n : names) out += fmt::format("<th>{}</th>", escape(n));
    if (names.size() > 1) out += "<th>better</th>";
    out += "</tr>\n";
    std::string group;
    for (const ComparisonRow& r : table.rows) {
        if (r.group != group) {
            group = r.group;
            out += fmt::format("<tr class=\"group\"><td colspan=\"{}\">{}</td></tr>\n",
                               names.size() + (names.size() > 1 ? 2 : 1), escape(group));
        }
        out += fmt::format("<tr><td>{}</td>", escape(r.label));
        const auto best = r.best();
        for (std::size_t i = 0; i < r.values.size(); ++i) {
            if (!r.values[i]) {
                out += "<td>—</td>";
                continue;
            }
            std::string cell = escape(display(r.unit, *r.values[i]));
            if (const auto d = r.delta(i); i > 0 && d)
                cell += fmt::format(" ({}{} %)", *d > 0 ? "+" : "", sig3(*d * 100));
            out += fmt::format("<td{}>{}</td>", best && *best == i ? " class=\"best\"" : "", cell);
        }
        if (names.size() > 1) out += fmt::format("<td>{}</td>", best ? escape(names[*best]) : std::string());
        out += "</tr>\n";
    }
    out += "</table>\n";
    std::map<std::string, std::string> titles = plot_titles();
    const Json data = plot_data(variants, names, &titles);
    for (auto it = data.begin(); it != data.end(); ++it)
        out += fmt::format("<figure id=\"{}\"><figcaption>{}</figcaption></figure>\n", it.key(),
                           escape(titles.at(it.key())));
    const bool sampled =
        std::any_of(variants.begin(), variants.end(), [](const VariantResult* v) { return !v->queues.empty(); });
    if (!sampled)
        out += "<p class=\"note\" id=\"no-queue-series\">No queue-depth, pause or credit-stall plots: no variant "
               "sampled its queues over time (the scenario has no <code>outputs.queues</code>, or the model has no "
               "queues).</p>\n";
    else if (!data.contains("plot-paused") && !data.contains("plot-credit-stalled"))
        out += "<p class=\"note\">No sampled port was paused by PFC or waited for credits at any sample.</p>\n";
    out += fmt::format("<p><small>Plots drawn with D3 {} (inlined; BSD-3-Clause).</small></p>\n", d3_version());
    out += "<script>\n";
    out += d3_source();
    out += fmt::format("\n</script>\n<script>window.FABRICSIM_PLOTS = {};</script>\n<script>", script_json(data));
    out += kCharts;
    out += "</script>\n</body>\n</html>\n";
    return out;
}

std::string html_report(const RunResult& result) {
    std::vector<const VariantResult*> variants;
    std::vector<std::string> names;
    for (const VariantResult& v : result.variants) {
        variants.push_back(&v);
        names.push_back(v.name);
    }
    std::string title = text_at(result.scenario, "name");
    if (title.empty()) title = result.scenario_file;
    return html_report(title, compare(variants, names), variants, names);
}

}  // namespace fabricsim::report
