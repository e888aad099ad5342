#include "scenario/issues.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace fabricsim::scenario {

void Issues::add(SourceLocation where, std::string key_path, std::string message) {
    list_.push_back(ConfigIssue{std::move(where), std::move(key_path), std::move(message)});
}

void Issues::append(const Issues& other) { list_.insert(list_.end(), other.list_.begin(), other.list_.end()); }

std::string key_path(std::string_view parent, std::string_view key) {
    if (parent.empty()) return std::string(key);
    return fmt::format("{}.{}", parent, key);
}

std::string index_path(std::string_view parent, std::size_t index) { return fmt::format("{}[{}]", parent, index); }

void sort_in_file_order(std::vector<ConfigIssue>& issues, const std::vector<std::string>& files) {
    const auto rank = [&](const std::string& file) {
        const auto it = std::find(files.begin(), files.end(), file);
        return static_cast<std::size_t>(it - files.begin());
    };
    std::stable_sort(issues.begin(), issues.end(), [&](const ConfigIssue& a, const ConfigIssue& b) {
        return std::tuple(rank(a.location.file), a.location.line, a.location.column) <
               std::tuple(rank(b.location.file), b.location.line, b.location.column);
    });
}

}  // namespace fabricsim::scenario
