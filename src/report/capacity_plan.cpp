#include "report/capacity_plan.hpp"

#include "core/units_format.hpp"
#include "report/display_units.hpp"
#include "report/topology_json.hpp"
#include "report/topology_text.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fabricsim::report {

namespace {

using Json = nlohmann::ordered_json;

// Columns on a terminal: UTF-8 code points.
std::size_t width(const std::string& s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string pad_left(const std::string& s, std::size_t w) {
    return std::string(w > width(s) ? w - width(s) : 0, ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t w) {
    return s + std::string(w > width(s) ? w - width(s) : 0, ' ');
}

// Numbers (and their "—") align right, words left.
bool numeric(const std::string& s) {
    return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) != 0 || s[0] == '$' || s.rfind("—", 0) == 0);
}

// A plain text table: the first column left-aligned, numbers right-aligned, words left-aligned.
std::string table(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
    std::vector<std::size_t> w;
    for (const auto& r : rows)
        for (std::size_t c = 0; c < r.size(); ++c) {
            if (w.size() <= c) w.push_back(0);
            w[c] = std::max(w[c], width(r[c]));
        }
    std::string out;
    for (const auto& r : rows) {
        std::string line = indent;
        for (std::size_t c = 0; c < r.size(); ++c)
            line += c == 0 || !numeric(r[c]) ? fmt::format("{}{}", c == 0 ? "" : "  ", pad_right(r[c], w[c]))
                                             : fmt::format("  {}", pad_left(r[c], w[c]));
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

std::string price_text(const std::optional<double>& v, const std::string& currency) {
    return v ? money(*v, currency) : "—";
}

std::string performance_line(const PlanPerformance& p) {
    if (!p.ran) return p.note;
    std::string s;
    if (!p.training.empty())
        s +=
            fmt::format("{} iteration {} ({} TFLOP/s per GPU)", p.training, human(p.iteration), sig3(p.tflops_per_gpu));
    if (!p.collective.empty())
        s += fmt::format("{}{} {} (busbw {} GB/s)", s.empty() ? "" : "; ", p.collective, human(p.collective_time),
                         sig3(p.busbw_GBps));
    if (s.empty()) s = fmt::format("workload done at {}", human(p.makespan));
    s += fmt::format(" — {} model", p.model);
    if (!p.complete) s += fmt::format(", NOT complete: {}", p.note);
    return s;
}

std::string design_text(const PlanDesign& d) {
    std::string out = fmt::format("design {} — {} GPUs ({} servers)\n", d.variant, d.gpus, d.bom.servers);
    out += topology_text(d.summary);

    const BillOfMaterials& b = d.bom;
    out += "\n  bill of materials\n";
    std::vector<std::vector<std::string>> rows{{"item", "count", "detail"}};
    rows.push_back({"servers", std::to_string(b.servers),
                    fmt::format("{}{} GPUs", b.server_preset.empty() ? "" : b.server_preset + ", ", b.gpus)});
    rows.push_back({"NICs", std::to_string(b.nics),
                    b.nic_preset.empty() ? std::string("compute") : fmt::format("compute, {}", b.nic_preset)});
    if (b.storage_nics > 0) rows.push_back({"storage NICs", std::to_string(b.storage_nics), b.storage_nic_preset});
    if (b.storage_nodes > 0) rows.push_back({"storage nodes", std::to_string(b.storage_nodes), "not priced"});
    if (b.clients > 0) rows.push_back({"client hosts", std::to_string(b.clients), "not priced"});
    for (const SwitchGroup& g : b.switches)
        rows.push_back({fmt::format("{} {} switches, plane {}", g.fabric, g.tier, g.plane), std::to_string(g.switches),
                        fmt::format("{}ports {} used, {} spare", g.preset.empty() ? "" : g.preset + ": ", g.ports_used,
                                    g.ports_spare())});
    for (const CableGroup& c : b.cables)
        rows.push_back({fmt::format("{} cables, {} {}", c.tier, c.medium, c.length_class), std::to_string(c.count),
                        fmt::format("{}, longest {}", human(c.speed), to_string(c.longest))});
    for (const TransceiverGroup& x : b.transceivers)
        rows.push_back({fmt::format("{} transceivers, {}", x.tier, x.reach), std::to_string(x.count), human(x.speed)});
    out += table(rows, "    ");

    if (!d.checks.tiers.empty()) {
        out += "\n  switch buffers (the tightest switch of each tier)\n";
        std::vector<std::vector<std::string>> buf;
        if (d.checks.pfc) {
            buf.push_back(
                {"tier", "ports", "buffer", "per port", "PFC headroom", "reserved", "free", "XOFF", "ECN Kmax"});
            for (const TierBuffer& t : d.checks.tiers)
                buf.push_back({t.tier, std::to_string(t.ports), human(t.buffer), human(t.per_port),
                               fmt::format("{} ({} per port)", human(t.headroom), human(t.headroom_per_port)),
                               human(t.reserved), t.fits ? human(t.free) : "does not fit", human(t.xoff),
                               d.checks.ecn ? human(t.kmax) : "off"});
        } else {
            buf.push_back({"tier", "ports", "buffer", "per port"});
            for (const TierBuffer& t : d.checks.tiers)
                buf.push_back({t.tier, std::to_string(t.ports), human(t.buffer), human(t.per_port)});
        }
        out += table(buf, "    ");
        if (!d.checks.pfc)
            out += d.summary.technology == "infiniband"
                       ? "    (InfiniBand: credit-based flow control, no PFC headroom to reserve)\n"
                       : "    (no PFC on this fabric: nothing reserved for headroom)\n";
    }
    if (d.checks.rail)
        out += fmt::format("\n  cross-rail bandwidth {} (rails' first half to second half); {} as a leaf-spine of the "
                           "same switches\n",
                           human(d.checks.cross_rail), human(d.checks.reference_cross_rail));

    const PlanCost& c = d.cost;
    out += "\n  cost and power\n";
    std::vector<std::vector<std::string>> cost{{"item", "count", "unit", "total", "power", "source"}};
    for (const CostLine& l : c.lines)
        cost.push_back({l.what, std::to_string(l.count), price_text(l.unit_price, c.currency),
                        l.unit_price ? money(l.price(), c.currency) : "—", l.unit_power_w ? power(l.power_w()) : "—",
                        l.unit_price || l.unit_power_w
                            ? fmt::format("{}{}", l.estimate ? "estimate" : "quote",
                                          l.date.empty() ? std::string() : fmt::format(", {}", l.date))
                            : "not in the price table"});
    cost.push_back({"total", "", "", money(c.total_price, c.currency), power(c.total_power_w), ""});
    cost.push_back({"  of which network", "", "", money(c.network_price, c.currency), power(c.network_power_w), ""});
    out += table(cost, "    ");
    if (!c.unpriced.empty()) {
        std::string names;
        for (const auto& u : c.unpriced) names += (names.empty() ? "" : ", ") + u;
        out += fmt::format("    not in the totals (no figure in the price table): {}\n", names);
    }

    out += fmt::format("\n  performance   {}\n", performance_line(d.performance));
    if (const auto p = d.price_per_pflops())
        out += fmt::format("  cost per throughput  {} per PFLOP/s achieved\n", money(*p, c.currency));
    if (const auto p = d.price_per_busbw())
        out += fmt::format("  cost per busbw       {} per GB/s of busbw\n", money(*p, c.currency));
    for (const auto& w : d.checks.warnings) out += fmt::format("  warning: {}\n", w);
    return out;
}

Json json_of(const PlanDesign& d) {
    Json j;
    j["variant"] = d.variant;
    j["gpus"] = d.gpus;
    j["topology"] = topology_json(d.summary);
    Json bom;
    bom["servers"] = d.bom.servers;
    bom["server_preset"] = d.bom.server_preset;
    bom["gpus"] = d.bom.gpus;
    bom["nics"] = d.bom.nics;
    bom["storage_nics"] = d.bom.storage_nics;
    bom["storage_nodes"] = d.bom.storage_nodes;
    bom["clients"] = d.bom.clients;
    bom["switches"] = Json::array();
    for (const SwitchGroup& g : d.bom.switches)
        bom["switches"].push_back({{"fabric", g.fabric},
                                   {"tier", g.tier},
                                   {"plane", g.plane},
                                   {"preset", g.preset},
                                   {"count", g.switches},
                                   {"ports", g.ports},
                                   {"ports_used", g.ports_used},
                                   {"ports_spare", g.ports_spare()}});
    bom["cables"] = Json::array();
    for (const CableGroup& c : d.bom.cables)
        bom["cables"].push_back({{"tier", c.tier},
                                 {"medium", c.medium},
                                 {"length_class", c.length_class},
                                 {"speed_bps", c.speed.bits_per_second()},
                                 {"longest_m", c.longest.millimetres() / 1000.0},
                                 {"count", c.count}});
    bom["transceivers"] = Json::array();
    for (const TransceiverGroup& x : d.bom.transceivers)
        bom["transceivers"].push_back(
            {{"tier", x.tier}, {"reach", x.reach}, {"speed_bps", x.speed.bits_per_second()}, {"count", x.count}});
    bom["switch_total"] = d.bom.switch_count();
    bom["cable_total"] = d.bom.cable_count();
    bom["transceiver_total"] = d.bom.transceiver_count();
    j["bill_of_materials"] = bom;

    Json buffers = Json::array();
    for (const TierBuffer& t : d.checks.tiers) {
        Json b{{"tier", t.tier},
               {"switch", t.sw},
               {"ports", t.ports},
               {"buffer_bytes", t.buffer.count()},
               {"per_port_bytes", t.per_port.count()}};
        if (d.checks.pfc) {
            b["lossless_priorities"] = t.lossless;
            b["headroom_per_port_bytes"] = t.headroom_per_port.count();
            b["headroom_bytes"] = t.headroom.count();
            b["reserved_bytes"] = t.reserved.count();
            b["free_bytes"] = t.free.count();
            b["xoff_bytes"] = t.xoff.count();
            b["ecn_kmax_bytes"] = t.kmax.count();
            b["fits"] = t.fits;
        }
        buffers.push_back(b);
    }
    j["switch_buffers"] = buffers;
    if (d.checks.rail) {
        j["cross_rail_bps"] = d.checks.cross_rail.bits_per_second();
        j["leaf_spine_cross_rail_bps"] = d.checks.reference_cross_rail.bits_per_second();
    }

    Json cost;
    cost["currency"] = d.cost.currency;
    cost["lines"] = Json::array();
    for (const CostLine& l : d.cost.lines) {
        Json line{{"category", l.category}, {"item", l.item}, {"what", l.what}, {"count", l.count}};
        line["unit_price"] = l.unit_price ? Json(*l.unit_price) : Json(nullptr);
        line["unit_power_w"] = l.unit_power_w ? Json(*l.unit_power_w) : Json(nullptr);
        line["price"] = l.price();
        line["power_w"] = l.power_w();
        line["estimate"] = l.estimate;
        line["date"] = l.date;
        line["source"] = l.source;
        cost["lines"].push_back(line);
    }
    cost["total_price"] = d.cost.total_price;
    cost["total_power_w"] = d.cost.total_power_w;
    cost["network_price"] = d.cost.network_price;
    cost["network_power_w"] = d.cost.network_power_w;
    cost["includes_estimates"] = d.cost.any_estimate;
    cost["unpriced"] = d.cost.unpriced;
    j["cost"] = cost;

    const PlanPerformance& p = d.performance;
    Json perf{{"ran", p.ran}, {"note", p.note}};
    if (p.ran) {
        perf["model"] = p.model;
        perf["complete"] = p.complete;
        perf["makespan_s"] = p.makespan.seconds();
        if (!p.training.empty()) {
            perf["training"] = p.training;
            perf["iteration_time_s"] = p.iteration.seconds();
            perf["tflops_per_gpu"] = p.tflops_per_gpu;
        }
        if (!p.collective.empty()) {
            perf["collective"] = p.collective;
            perf["collective_time_s"] = p.collective_time.seconds();
            perf["busbw_GBps"] = p.busbw_GBps;
        }
    }
    if (const auto v = d.price_per_pflops()) perf["price_per_pflops"] = *v;
    if (const auto v = d.price_per_busbw()) perf["price_per_busbw_GBps"] = *v;
    j["performance"] = perf;
    j["warnings"] = d.checks.warnings;
    return j;
}

}  // namespace

PlanPerformance performance_of(const VariantResult& r) {
    PlanPerformance p;
    p.ran = true;
    p.model = r.model;
    p.complete = r.complete();
    for (const auto& problem : r.problems) p.note += (p.note.empty() ? "" : "; ") + problem;
    if (r.cut_short) p.note += std::string(p.note.empty() ? "" : "; ") + "cut short by simulation.stop_time";
    p.makespan = r.makespan;
    if (!r.training.empty()) {
        const TrainingResult& t = r.training.front();
        p.training = t.name;
        p.iteration = t.iteration_time;
        p.tflops_per_gpu = t.tflops_per_gpu();
    }
    if (!r.collectives.empty()) {
        const std::string& first = r.collectives.front().name;
        const CollectiveResult* largest = nullptr;
        for (const CollectiveResult& c : r.collectives)
            if (c.name == first && c.time != Time::max() && (largest == nullptr || c.bytes > largest->bytes))
                largest = &c;
        if (largest != nullptr) {
            p.collective = fmt::format("{} {}", largest->name, to_string(largest->bytes));
            p.collective_time = largest->time;
            p.busbw_GBps = largest->busbw_GBps;
        }
    }
    return p;
}

std::optional<double> PlanDesign::price_per_pflops() const {
    const PlanPerformance& p = performance;
    if (!p.ran || !p.complete || p.training.empty() || p.tflops_per_gpu <= 0 || cost.total_price <= 0)
        return std::nullopt;
    return cost.total_price / (p.tflops_per_gpu * gpus / 1000.0);
}

std::optional<double> PlanDesign::price_per_busbw() const {
    const PlanPerformance& p = performance;
    if (!p.ran || !p.complete || p.collective.empty() || p.busbw_GBps <= 0 || cost.total_price <= 0)
        return std::nullopt;
    return cost.total_price / p.busbw_GBps;
}

std::string plan_text(const CapacityPlan& plan) {
    std::string out = fmt::format("{} — capacity plan of {} design{} (prices: {})\n", plan.scenario,
                                  plan.designs.size(), plan.designs.size() == 1 ? "" : "s", plan.prices_file);
    for (const PlanDesign& d : plan.designs) out += fmt::format("\n{}", design_text(d));
    if (plan.designs.empty()) return out;

    // Side by side: what each design costs and what it delivers.
    const std::string currency = plan.designs.front().cost.currency;
    std::vector<std::vector<std::string>> rows{{"design", "GPUs", "switches", "optics", "network", "total", "power",
                                                "iteration", "busbw GB/s", "per PFLOP/s", "per GB/s busbw"}};
    for (const PlanDesign& d : plan.designs) {
        const PlanPerformance& p = d.performance;
        const auto per_pflops = d.price_per_pflops();
        const auto per_busbw = d.price_per_busbw();
        rows.push_back({d.variant, std::to_string(d.gpus), std::to_string(d.bom.switch_count()),
                        std::to_string(d.bom.transceiver_count()), money(d.cost.network_price, currency),
                        money(d.cost.total_price, currency), power(d.cost.total_power_w),
                        p.ran && !p.training.empty() ? human(p.iteration) : "—",
                        p.ran && !p.collective.empty() ? sig3(p.busbw_GBps) : "—",
                        per_pflops ? money(*per_pflops, currency) : "—",
                        per_busbw ? money(*per_busbw, currency) : "—"});
    }
    out += fmt::format("\nside by side\n{}", table(rows, "  "));
    bool estimates = false;
    for (const PlanDesign& d : plan.designs) estimates = estimates || d.cost.any_estimate;
    if (estimates)
        out += "  (prices and power are estimates from the price table, each with its date and source: edit it and "
               "pass --prices)\n";
    return out;
}

std::string plan_json(const CapacityPlan& plan) {
    Json j;
    j["schema_version"] = 1;
    j["scenario"] = plan.scenario;
    j["prices"] = plan.prices_file;
    j["designs"] = Json::array();
    for (const PlanDesign& d : plan.designs) j["designs"].push_back(json_of(d));
    return j.dump(2) + "\n";
}

}  // namespace fabricsim::report
