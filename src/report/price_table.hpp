// The price and power of each device a capacity plan counts, read from a YAML table the user
// edits (configs/prices/default.yaml; docs/PLANNING.md). Every entry carries where its figures
// come from and whether they are estimates, so a plan can say how much of its total rests on
// guesses.
//
//   currency: USD
//   switches:                       # category: servers | nics | switches | transceivers | cables
//     spectrum-4:                   # a preset name (servers, nics, switches) or a part key
//       price: 30000                # per unit, in `currency`; absent: not priced
//       power_w: 1500               # per unit, typical; absent: no power figure
//       estimate: true              # default true: say so unless it is a quote
//       date: 2024-03
//       source: "where the figures come from"
//
// Part keys: transceivers "<speed>-<reach>" ("400G-SR", reach from the cable length:
// SR <= 50 m, DR <= 500 m, FR <= 2 km, LR beyond); cables "dac-<speed>" (passive copper) and
// "fiber-<speed>" (the optical cable between two transceivers).
//
// Bad input is a ConfigError with the file, line and column, the key path, what was found and
// what was expected. The YAML is read through scenario::parse_yaml (yaml-cpp stays in src/scenario).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace fabricsim::report {

struct PriceEntry {
    std::optional<double> price;    // per unit, in the table's currency
    std::optional<double> power_w;  // per unit, typical operating power
    bool estimate = true;
    std::string date;
    std::string source;
};

struct PriceTable {
    std::string file;
    std::string currency = "USD";
    // category -> name -> entry
    std::map<std::string, std::map<std::string, PriceEntry, std::less<>>, std::less<>> categories;
    const PriceEntry* find(std::string_view category, std::string_view name) const;
};

inline constexpr std::string_view kPriceCategories[] = {"servers", "nics", "switches", "transceivers", "cables"};

PriceTable parse_price_table(std::string_view text, const std::string& file);
// Reads `path`; a file that cannot be read is a ConfigError naming it.
PriceTable load_price_table(const std::filesystem::path& path);

}  // namespace fabricsim::report
