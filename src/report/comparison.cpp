#include "report/comparison.hpp"

#include "core/units_format.hpp"
#include "report/display_units.hpp"
#include "report/scenario_value.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace fabricsim::report {

namespace {

// The tier of a port from the kinds in its end's names.
std::string tier_of(const PortReport& p) {
    const auto kind = [](const std::string& name) {
        const std::string base = name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
        for (const char* k : {"leaf", "spine", "core", "nic"})
            if (base.rfind(k, 0) == 0) return std::string(k);
        for (const char* k : {"cpu", "host", "gpu", "pcie", "nvswitch"})  // inside a server
            if (base.rfind(k, 0) == 0) return std::string("server");
        return std::string("other");
    };
    std::string a = kind(p.from), b = kind(p.to);
    static const std::map<std::string, int> order{{"server", 0}, {"nic", 1},  {"leaf", 2},
                                                  {"spine", 3},  {"core", 4}, {"other", 5}};
    if (order.at(a) > order.at(b)) std::swap(a, b);
    return fmt::format("{}-{}", a, b);
}

// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double q) {
    const auto n = sorted.size();
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
    return sorted[std::min(n - 1, rank == 0 ? 0 : rank - 1)];
}

}  // namespace

double time_weighted_percentile(std::vector<std::pair<double, double>> weighted, double q) {
    if (weighted.empty()) return 0;
    std::sort(weighted.begin(), weighted.end());
    double total = 0;
    for (const auto& [value, weight] : weighted) total += weight;
    if (total <= 0) return weighted.back().first;
    double below = 0;
    for (const auto& [value, weight] : weighted) {
        below += weight;
        if (below >= q * total) return value;
    }
    return weighted.back().first;
}

std::vector<std::pair<double, double>> queue_depth_over_time(const std::vector<QueueSeries>& queues) {
    std::vector<std::pair<double, double>> out;
    for (const QueueSeries& q : queues)
        for (std::size_t k = 0; k + 1 < q.samples.size(); ++k)
            out.emplace_back(static_cast<double>(q.samples[k].queued.count()),
                             (q.samples[k + 1].at - q.samples[k].at).seconds());
    return out;
}

namespace {

class Builder {
public:
    explicit Builder(std::size_t columns) : columns_(columns) {}
    void set(const std::string& group, const std::string& label, Unit unit, Better better, std::size_t column,
             double value) {
        ComparisonRow& r = row(group, label, unit, better);
        r.values[column] = value;
    }
    // A row in its place before any variant has it (so RoCE's and InfiniBand's rows interleave).
    void declare(const std::string& group, const std::string& label, Unit unit, Better better) {
        row(group, label, unit, better);
    }
    // Rows no variant has are left out.
    std::vector<ComparisonRow> rows() && {
        std::erase_if(rows_, [](const ComparisonRow& r) {
            return std::none_of(r.values.begin(), r.values.end(), [](const auto& v) { return v.has_value(); });
        });
        return std::move(rows_);
    }

private:
    ComparisonRow& row(const std::string& group, const std::string& label, Unit unit, Better better) {
        const auto it = std::find_if(rows_.begin(), rows_.end(),
                                     [&](const ComparisonRow& r) { return r.group == group && r.label == label; });
        if (it != rows_.end()) return *it;
        // A new row goes after the last row of its group (groups keep their first order).
        auto at = rows_.end();
        for (auto i = rows_.begin(); i != rows_.end(); ++i)
            if (i->group == group) at = i + 1;
        ComparisonRow r{group, label, unit, better, std::vector<std::optional<double>>(columns_), {}};
        return *rows_.insert(at, std::move(r));
    }
    std::size_t columns_;
    std::vector<ComparisonRow> rows_;
};

}  // namespace

std::optional<double> ComparisonRow::delta(std::size_t i) const {
    if (i >= values.size() || !values[0] || !values[i] || *values[0] == 0) return std::nullopt;
    return (*values[i] - *values[0]) / std::fabs(*values[0]);
}

std::optional<std::size_t> ComparisonRow::best() const {
    if (better == Better::none) return std::nullopt;
    std::optional<std::size_t> best;
    int present = 0;
    bool tie = false;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!values[i]) continue;
        ++present;
        if (!best) {
            best = i;
            continue;
        }
        const double a = *values[i], b = *values[*best];
        if (a == b) tie = true;
        if ((better == Better::lower && a < b) || (better == Better::higher && a > b)) {
            best = i;
            tie = false;
        }
    }
    if (present < 2 || tie) return std::nullopt;
    return best;
}

Comparison compare(const std::vector<const VariantResult*>& variants, const std::vector<std::string>& names) {
    Comparison out;
    out.variants = names;
    Builder b(variants.size());
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const VariantResult& v = *variants[i];
        b.set("run", "workload done at", Unit::time, Better::lower, i, v.makespan.seconds());
        for (const CollectiveResult& c : v.collectives) {
            if (c.time == Time::max()) continue;
            const std::string what = fmt::format("{} {}", c.name, to_string(c.bytes));
            b.set("collectives", what + " time", Unit::time, Better::lower, i, c.time.seconds());
            b.set("collectives", what + " busbw", Unit::gbps, Better::higher, i, c.busbw_GBps);
        }
        for (const TrainingResult& t : v.training) {
            b.set("training", t.name + " iteration", Unit::time, Better::lower, i, t.iteration_time.seconds());
            b.set("training", t.name + " compute", Unit::time, Better::none, i, t.compute.seconds());
            if (t.bubble > Time::zero())
                b.set("training", t.name + " pipeline bubble", Unit::time, Better::lower, i, t.bubble.seconds());
            static constexpr const char* kDims[] = {"tp", "pp", "dp", "ep"};
            for (std::size_t d = 0; d < 4; ++d)
                if (t.exposed[d] > Time::zero())
                    b.set("training", fmt::format("{} exposed {} comm", t.name, kDims[d]), Unit::time, Better::lower, i,
                          t.exposed[d].seconds());
            b.set("training", t.name + " TFLOP/s per GPU", Unit::ratio, Better::higher, i, t.tflops_per_gpu());
        }
        if (!v.transfers.empty()) {
            const FlowSummary f = summarise(v.transfers);
            b.set("flows", "flows finished", Unit::count, Better::none, i, static_cast<double>(f.count));
            b.set("flows", "FCT p50", Unit::time, Better::lower, i, f.fct_p50.seconds());
            b.set("flows", "FCT p99", Unit::time, Better::lower, i, f.fct_p99.seconds());
            b.set("flows", "slowdown p99", Unit::ratio, Better::lower, i, f.slowdown_p99);
        }
        for (const TrafficResult& t : v.traffic)
            b.set("flows", t.name + " FCT p99", Unit::time, Better::lower, i, t.fct_p99.seconds());
        if (v.model != "packet") continue;  // the ideal model has no queues and no flow control

        const bool ib = text_at(v.scenario, "cluster.fabric.technology") == "infiniband";
        // Each RoCE counter beside its InfiniBand counterpart.
        b.declare("flow control", "PFC pauses sent", Unit::count, Better::lower);
        b.declare("flow control", "paused time", Unit::time, Better::lower);
        b.declare("flow control", "credit stall time", Unit::time, Better::lower);
        b.declare("congestion", "ECN marks", Unit::count, Better::none);
        b.declare("congestion", "FECN marks", Unit::count, Better::none);
        b.declare("congestion", "CNPs", Unit::count, Better::none);
        b.declare("congestion", "BECNs", Unit::count, Better::none);
        if (!v.queues.empty()) {
            // The queue time series: its sampled ports' depth, each sample holding until the next.
            const auto weighted = queue_depth_over_time(v.queues);
            b.set("queues", "sampled ports' queue p50 over time", Unit::bytes, Better::lower, i,
                  time_weighted_percentile(weighted, 0.5));
            b.set("queues", "sampled ports' queue p99 over time", Unit::bytes, Better::lower, i,
                  time_weighted_percentile(weighted, 0.99));
        } else if (!v.ports.empty()) {
            std::vector<double> depths;
            for (const PortReport& p : v.ports) depths.push_back(static_cast<double>(p.max_queue.count()));
            std::sort(depths.begin(), depths.end());
            b.set("queues", "port max queue p50", Unit::bytes, Better::lower, i, percentile(depths, 0.5));
            b.set("queues", "port max queue p99", Unit::bytes, Better::lower, i, percentile(depths, 0.99));
        }
        b.set("queues", "deepest queue", Unit::bytes, Better::lower, i,
              static_cast<double>(v.fabric.max_queue.count()));
        if (v.makespan > Time::zero() && !v.ports.empty()) {
            // ports.csv's mean_queue_bytes (the queue integrated over the run / the run), the
            // mean over each tier's ports that carried traffic.
            std::map<std::string, std::pair<double, int>> tiers;  // sum, ports
            for (const PortReport& p : v.ports) {
                auto& [sum, n] = tiers[tier_of(p)];
                sum += p.queue_area / v.makespan.seconds();
                ++n;
            }
            for (const auto& [tier, t] : tiers)
                b.set("queues", tier + " time-average queue", Unit::bytes, Better::lower, i, t.first / t.second);
        }
        // Lossless flow control, RoCE beside InfiniBand.
        if (!ib) {
            b.set("flow control", "PFC pauses sent", Unit::count, Better::lower, i,
                  static_cast<double>(v.fabric.pfc_pauses_sent));
            b.set("flow control", "paused time", Unit::time, Better::lower, i, v.fabric.paused_time.seconds());
        } else {
            b.set("flow control", "credit stall time", Unit::time, Better::lower, i,
                  v.fabric.credit_stall_time.seconds());
        }
        // Congestion notification, RoCE beside InfiniBand.
        if (!ib) {
            b.set("congestion", "ECN marks", Unit::count, Better::none, i, static_cast<double>(v.fabric.ecn_marks));
            b.set("congestion", "CNPs", Unit::count, Better::none, i, static_cast<double>(v.fabric.cnps));
        } else {
            b.set("congestion", "FECN marks", Unit::count, Better::none, i, static_cast<double>(v.fabric.fecn_marks));
            b.set("congestion", "BECNs", Unit::count, Better::none, i, static_cast<double>(v.fabric.becns));
        }
        b.set("drops", "packets dropped", Unit::count, Better::lower, i, static_cast<double>(v.fabric.drops));
        if (v.makespan > Time::zero()) {
            std::map<std::string, std::pair<double, double>> tiers;  // sum, max
            std::map<std::string, int> ports;
            for (const PortReport& p : v.ports) {
                const double u = p.busy.seconds() / v.makespan.seconds();
                auto& [sum, max] = tiers[tier_of(p)];
                sum += u;
                max = std::max(max, u);
                ++ports[tier_of(p)];
            }
            for (const auto& [tier, t] : tiers) {
                b.set("utilisation", tier + " mean", Unit::fraction, Better::none, i, t.first / ports[tier]);
                b.set("utilisation", tier + " busiest", Unit::fraction, Better::none, i, t.second);
            }
        }
    }
    out.rows = std::move(b).rows();
    return out;
}

std::string display(Unit unit, double value) {
    switch (unit) {
        case Unit::time: return human(Time::ps(static_cast<std::int64_t>(std::llround(value * 1e12))));
        case Unit::bytes: return human(Bytes{static_cast<std::int64_t>(std::llround(value))});
        case Unit::count: return fmt::format("{}", static_cast<std::int64_t>(std::llround(value)));
        case Unit::ratio: return sig3(value);
        case Unit::gbps: return sig3(value) + " GB/s";
        case Unit::fraction: return sig3(value * 100.0) + " %";
        case Unit::text: return {};
    }
    return {};
}

namespace {

std::string delta_text(const ComparisonRow& r, std::size_t i) {
    const auto d = r.delta(i);
    if (!d) return {};
    if (std::fabs(*d) < 0.0005) return "±0 %";
    return fmt::format("{}{} %", *d > 0 ? "+" : "", sig3(*d * 100.0));
}

// Cells: label, then per variant "value (delta)", then the better variant's name.
std::vector<std::vector<std::string>> cells(const Comparison& c) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> header{""};
    for (const auto& v : c.variants) header.push_back(v);
    if (c.variants.size() > 1) header.push_back("better");
    rows.push_back(header);
    for (const ComparisonRow& r : c.rows) {
        std::vector<std::string> row{r.label};
        for (std::size_t i = 0; i < r.values.size(); ++i) {
            if (!r.values[i]) {
                row.push_back("—");
                continue;
            }
            std::string s = display(r.unit, *r.values[i]);
            if (i > 0 && !delta_text(r, i).empty()) s += fmt::format(" ({})", delta_text(r, i));
            row.push_back(s);
        }
        if (c.variants.size() > 1) row.push_back(r.best() ? c.variants[*r.best()] : "");
        rows.push_back(row);
    }
    return rows;
}

std::size_t width(const std::string& s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
}

}  // namespace

std::string comparison_text(const Comparison& c) {
    const auto rows = cells(c);
    std::vector<std::size_t> w(rows.front().size(), 0);
    for (const auto& r : rows)
        for (std::size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], width(r[i]));
    std::string out;
    std::string group;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        if (k > 0 && c.rows[k - 1].group != group) {
            group = c.rows[k - 1].group;
            out += group + "\n";
        }
        std::string line;
        for (std::size_t i = 0; i < rows[k].size(); ++i) {
            const std::string& s = rows[k][i];
            const std::string fill(w[i] - width(s), ' ');
            line += i == 0 ? fmt::format("  {}{}", s, fill) : fmt::format("  {}{}", fill, s);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

std::string comparison_markdown(const Comparison& c) {
    const auto rows = cells(c);
    const auto escape = [](std::string s) {
        std::string out;
        for (char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
        return out;
    };
    std::string out = "| metric |";
    for (std::size_t i = 1; i < rows.front().size(); ++i) out += fmt::format(" {} |", escape(rows.front()[i]));
    out += "\n|---|";
    for (std::size_t i = 1; i < rows.front().size(); ++i) out += "---:|";
    out += "\n";
    for (std::size_t k = 1; k < rows.size(); ++k) {
        out += fmt::format("| {}: {} |", escape(c.rows[k - 1].group), escape(rows[k][0]));
        for (std::size_t i = 1; i < rows[k].size(); ++i) out += fmt::format(" {} |", escape(rows[k][i]));
        out += "\n";
    }
    return out;
}

}  // namespace fabricsim::report
