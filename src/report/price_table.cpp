#include "report/price_table.hpp"

#include "core/errors.hpp"
#include "scenario/issues.hpp"
#include "scenario/yaml_tree.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace fabricsim::report {

namespace {

using scenario::Node;

std::optional<double> number(const Node& node, const std::string& path, scenario::Issues& issues) {
    if (node.is_scalar()) {
        double v = 0;
        const char* begin = node.text.data();
        const char* end = begin + node.text.size();
        const auto [ptr, ec] = std::from_chars(begin, end, v);
        if (ec == std::errc() && ptr == end && v >= 0) return v;
    }
    issues.add(node.location, path, fmt::format("expected a number >= 0, found {}", scenario::describe_found(node)));
    return std::nullopt;
}

std::string text(const Node& node, const std::string& path, scenario::Issues& issues) {
    if (node.is_scalar()) return node.text;
    issues.add(node.location, path, fmt::format("expected text, found {}", scenario::describe_found(node)));
    return {};
}

PriceEntry entry(const Node& node, const std::string& path, scenario::Issues& issues) {
    PriceEntry e;
    if (!node.is_mapping()) {
        issues.add(node.location, path,
                   fmt::format("expected a mapping (price, power_w, estimate, date, source), found {}",
                               scenario::describe_found(node)));
        return e;
    }
    for (const auto& [key, key_location, value] : node.entries) {
        const std::string at = scenario::key_path(path, key);
        if (key == "price") {
            e.price = number(value, at, issues);
        } else if (key == "power_w") {
            e.power_w = number(value, at, issues);
        } else if (key == "estimate") {
            const std::string t = text(value, at, issues);
            if (t == "true" || t == "false")
                e.estimate = t == "true";
            else if (value.is_scalar())
                issues.add(value.location, at, fmt::format("expected true or false, found \"{}\"", t));
        } else if (key == "date") {
            e.date = text(value, at, issues);
        } else if (key == "source") {
            e.source = text(value, at, issues);
        } else {
            issues.add(value.location, at, "unknown key; expected price, power_w, estimate, date or source");
        }
    }
    return e;
}

}  // namespace

const PriceEntry* PriceTable::find(std::string_view category, std::string_view name) const {
    const auto c = categories.find(category);
    if (c == categories.end()) return nullptr;
    const auto e = c->second.find(name);
    return e == c->second.end() ? nullptr : &e->second;
}

PriceTable parse_price_table(std::string_view yaml, const std::string& file) {
    scenario::Issues issues;
    const std::optional<Node> root = scenario::parse_yaml({yaml, file, "", true}, issues);
    PriceTable table;
    table.file = file;
    if (root && !root->is_mapping() && !root->is_null())
        issues.add(root->location, "",
                   fmt::format("expected a mapping of price categories, found {}", scenario::describe_found(*root)));
    if (root && root->is_mapping()) {
        for (const auto& [key, key_location, value] : root->entries) {
            if (key == "currency") {
                table.currency = text(value, key, issues);
                continue;
            }
            if (std::find(std::begin(kPriceCategories), std::end(kPriceCategories), key) ==
                std::end(kPriceCategories)) {
                issues.add(value.location, key,
                           "unknown key; expected currency, servers, nics, switches, transceivers or cables");
                continue;
            }
            auto& category = table.categories[key];
            if (value.is_null()) continue;
            if (!value.is_mapping()) {
                issues.add(
                    value.location, key,
                    fmt::format("expected a mapping of names to entries, found {}", scenario::describe_found(value)));
                continue;
            }
            for (const auto& [name, name_location, item] : value.entries)
                category[name] = entry(item, scenario::key_path(key, name), issues);
        }
    }
    if (!issues.empty()) throw ConfigError(issues.take());
    return table;
}

PriceTable load_price_table(const std::filesystem::path& path) {
    std::error_code ec;
    std::ifstream in;
    if (std::filesystem::is_regular_file(path, ec)) in.open(path, std::ios::binary);
    if (!in.is_open()) {
        ConfigIssue issue;
        issue.location.file = "--prices";
        issue.message = fmt::format("cannot read the price table \"{}\"", path.string());
        throw ConfigError(std::move(issue));
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse_price_table(text.str(), path.string());
}

}  // namespace fabricsim::report
