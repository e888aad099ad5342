#include "report/sweep_grid.hpp"

#include "scenario/issues.hpp"
#include "scenario/yaml_tree.hpp"

#include <fmt/format.h>

namespace fabricsim::report {

std::size_t SweepGrid::points() const {
    if (axes.empty()) return 0;
    std::size_t n = 1;
    for (const SweepAxis& a : axes) n *= a.values.size();
    return n;
}

std::vector<std::string> SweepGrid::point(std::size_t i) const {
    std::vector<std::string> out(axes.size());
    for (std::size_t k = axes.size(); k-- > 0;) {
        out[k] = axes[k].values[i % axes[k].values.size()];
        i /= axes[k].values.size();
    }
    return out;
}

SweepGrid parse_sweep(std::string_view text, const std::string& file) {
    scenario::Issues issues;
    const std::optional<scenario::Node> root = scenario::parse_yaml({text, file, "", true}, issues);
    if (!issues.empty()) throw ConfigError(issues.take());
    SweepGrid grid;
    grid.scenario_text = std::string(text);
    if (!root || !root->is_mapping()) return grid;
    const auto& entries = root->entries;
    for (std::size_t e = 0; e < entries.size(); ++e) {
        if (entries[e].key != "sweep") continue;
        const scenario::Node& sweep = entries[e].value;
        if (!sweep.is_mapping() || sweep.entries.empty()) {
            issues.add(sweep.location.line > 0 ? sweep.location : entries[e].key_location, "sweep",
                       fmt::format("expected a mapping of dotted keys to lists of values, found {}",
                                   scenario::describe_found(sweep)));
            break;
        }
        std::size_t points = 1;
        for (const auto& [key, key_location, values] : sweep.entries) {
            const std::string path = fmt::format("sweep.{}", key);
            if (!values.is_sequence() || values.items.empty()) {
                issues.add(
                    values.location, path,
                    fmt::format("expected a non-empty list of values, found {}", scenario::describe_found(values)));
                continue;
            }
            SweepAxis axis{key, {}, key_location};
            for (const scenario::Node& v : values.items) {
                if (!v.is_scalar()) {
                    issues.add(v.location, path,
                               fmt::format("expected a value (a scalar), found {}", scenario::describe_found(v)));
                    continue;
                }
                axis.values.push_back(v.text);
            }
            if (axis.values.empty()) continue;
            points *= axis.values.size();
            if (points > kMaxSweepPoints) {
                issues.add(key_location, path,
                           fmt::format("the grid has more than {} points; sweep fewer values", kMaxSweepPoints));
                break;
            }
            grid.axes.push_back(std::move(axis));
        }
        // Blank the section's lines (keeping line numbers for the loader's messages): from its
        // key to the next top-level key, or the end.
        const int first = entries[e].key_location.line;
        const int end = e + 1 < entries.size() ? entries[e + 1].key_location.line : -1;
        std::string out;
        int line = 1;
        for (std::size_t at = 0; at < grid.scenario_text.size();) {
            const std::size_t nl = grid.scenario_text.find('\n', at);
            const std::size_t stop = nl == std::string::npos ? grid.scenario_text.size() : nl + 1;
            if (line < first || (end > 0 && line >= end))
                out += grid.scenario_text.substr(at, stop - at);
            else
                out += nl == std::string::npos ? "" : "\n";
            at = stop;
            ++line;
        }
        grid.scenario_text = std::move(out);
        break;
    }
    if (!issues.empty()) throw ConfigError(issues.take());
    return grid;
}

std::string content_hash(std::string_view text) {
    std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64: offset basis, then xor and multiply by the prime
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return fmt::format("{:016x}", h);
}

}  // namespace fabricsim::report
