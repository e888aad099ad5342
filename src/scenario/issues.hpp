// Collecting every problem in the input before reporting (docs/ARCHITECTURE.md: a user fixes a file in
// one pass, not one error per run), and the key-path spelling the messages use:
// cluster.server.gpus, workload[1].transfer.to.
#pragma once

#include "core/errors.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabricsim::scenario {

class Issues {
public:
    void add(SourceLocation where, std::string key_path, std::string message);
    // The message formatted from `format` and its arguments.
    template <class First, class... Rest>
    void add(SourceLocation where, std::string key_path, fmt::format_string<First, Rest...> format, First&& first,
             Rest&&... rest) {
        add(std::move(where), std::move(key_path),
            fmt::format(format, std::forward<First>(first), std::forward<Rest>(rest)...));
    }
    // add(), for a reader that then has no value: `return issues.reject(...)`.
    std::nullopt_t reject(SourceLocation where, std::string key_path, std::string message) {
        add(std::move(where), std::move(key_path), std::move(message));
        return std::nullopt;
    }
    template <class First, class... Rest>
    std::nullopt_t reject(SourceLocation where, std::string key_path, fmt::format_string<First, Rest...> format,
                          First&& first, Rest&&... rest) {
        return reject(std::move(where), std::move(key_path),
                      fmt::format(format, std::forward<First>(first), std::forward<Rest>(rest)...));
    }
    bool empty() const { return list_.empty(); }
    std::size_t size() const { return list_.size(); }
    const std::vector<ConfigIssue>& list() const { return list_; }
    std::vector<ConfigIssue> take() { return std::exchange(list_, {}); }
    void append(const Issues& other);

private:
    std::vector<ConfigIssue> list_;
};

// "cluster" + "server" = "cluster.server"; "" + "cluster" = "cluster".
std::string key_path(std::string_view parent, std::string_view key);
// "workload" + 1 = "workload[1]".
std::string index_path(std::string_view parent, std::size_t index);

// Stable sort into reading order: by file (in `files` order; unknown files last), then line,
// then column. Issues at the same place keep the order they were found in.
void sort_in_file_order(std::vector<ConfigIssue>& issues, const std::vector<std::string>& files);

}  // namespace fabricsim::scenario
