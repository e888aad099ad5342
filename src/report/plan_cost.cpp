#include "report/plan_cost.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fabricsim::report {

namespace {

// "400G", "800G", "1.6T", "100M": the speed as optics and cables are named.
std::string speed_name(Bandwidth b) {
    const std::int64_t bps = b.bits_per_second();
    if (bps >= 1'000'000'000'000 && bps % 100'000'000'000 == 0)
        return fmt::format("{:g}T", static_cast<double>(bps) / 1e12);
    if (bps % 1'000'000'000 == 0) return fmt::format("{}G", bps / 1'000'000'000);
    return fmt::format("{:g}G", static_cast<double>(bps) / 1e9);
}

}  // namespace

std::string transceiver_key(Bandwidth speed, const std::string& reach) {
    return fmt::format("{}-{}", speed_name(speed), reach);
}

std::string cable_key(const std::string& medium, Bandwidth speed) {
    return fmt::format("{}-{}", medium == "copper" ? "dac" : "fiber", speed_name(speed));
}

PlanCost plan_cost(const BillOfMaterials& bom, const PriceTable& prices) {
    PlanCost out;
    out.currency = prices.currency;
    const auto add = [&](std::string category, std::string item, std::string what, std::int64_t count, bool network) {
        if (count == 0) return;
        CostLine line{category, item, std::move(what), count, std::nullopt, std::nullopt, true, "", ""};
        if (const PriceEntry* e = prices.find(category, item); e != nullptr) {
            line.unit_price = e->price;
            line.unit_power_w = e->power_w;
            line.estimate = e->estimate;
            line.source = e->source;
            line.date = e->date;
        }
        const std::string key = fmt::format("{}/{}", category, item.empty() ? "(inline, no preset)" : item);
        const auto missing = [&](const char* figure) {
            const std::string name = fmt::format("{} ({})", key, figure);
            if (std::find(out.unpriced.begin(), out.unpriced.end(), name) == out.unpriced.end())
                out.unpriced.push_back(name);
        };
        if (!line.unit_price) missing("price");
        if (!line.unit_power_w) missing("power");
        out.total_price += line.price();
        out.total_power_w += line.power_w();
        if (network) {
            out.network_price += line.price();
            out.network_power_w += line.power_w();
        }
        out.any_estimate = out.any_estimate || ((line.unit_price || line.unit_power_w) && line.estimate);
        out.lines.push_back(std::move(line));
    };
    const std::string gpus =
        bom.gpus == 0 ? std::string()
                      : fmt::format("{} GPUs{}, ", bom.gpus,
                                    bom.gpu_model.empty() ? std::string() : fmt::format(" {}", bom.gpu_model));
    add("servers", bom.server_preset, fmt::format("servers ({}NICs included)", gpus), bom.servers, false);
    for (const SwitchGroup& g : bom.switches)
        add("switches", g.preset, fmt::format("{} {} switches, plane {}", g.fabric, g.tier, g.plane), g.switches, true);
    for (const TransceiverGroup& x : bom.transceivers)
        add("transceivers", transceiver_key(x.speed, x.reach), fmt::format("{} optics", x.tier), x.count, true);
    for (const CableGroup& c : bom.cables)
        add("cables", cable_key(c.medium, c.speed), fmt::format("{} {} cables, {}", c.tier, c.medium, c.length_class),
            c.count, true);
    return out;
}

}  // namespace fabricsim::report
