// What a bill of materials costs and draws, from a price table (price_table.hpp): one line per
// item the table prices, the totals, and the items it has no figure for (left out of the
// totals and named, so a total never silently leaves out part of the cluster).
//
// A server's price and power are the whole system's (an HGX/DGX server ships with its GPUs,
// NVSwitches and NICs), so the NICs inside the servers are counted in the bill of materials
// but not priced again. Storage nodes and client hosts are not priced.
#pragma once

#include "report/bill_of_materials.hpp"
#include "report/price_table.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fabricsim::report {

struct CostLine {
    std::string category;  // price table category: "servers", "switches", ...
    std::string item;      // its key there: "hgx-h100", "400G-SR", "dac-400G"
    std::string what;      // for people: "compute leaf switches, plane 0"
    std::int64_t count = 0;
    std::optional<double> unit_price, unit_power_w;
    bool estimate = true;
    std::string source, date;
    double price() const { return unit_price ? *unit_price * static_cast<double>(count) : 0.0; }
    double power_w() const { return unit_power_w ? *unit_power_w * static_cast<double>(count) : 0.0; }
};

struct PlanCost {
    std::string currency;
    std::vector<CostLine> lines;
    double total_price = 0, total_power_w = 0;
    double network_price = 0, network_power_w = 0;  // switches, transceivers, cables
    bool any_estimate = false;
    std::vector<std::string> unpriced;  // "switches/my-switch (price)"; what the totals leave out
};

PlanCost plan_cost(const BillOfMaterials& bom, const PriceTable& prices);

// The key an item has in the price table.
std::string transceiver_key(Bandwidth speed, const std::string& reach);  // "400G-SR"
std::string cable_key(const std::string& medium, Bandwidth speed);       // "dac-400G", "fiber-400G"

}  // namespace fabricsim::report
