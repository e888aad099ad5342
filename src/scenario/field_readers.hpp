// The building blocks of validation: read one value of the located tree as a typed field,
// or add an issue that says where, which key, what was found and what was expected, and
// return nothing so that validation can go on and find the next problem.
#pragma once

#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/spec.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::scenario {

// Reports every key of `mapping` not in `allowed`, with the nearest allowed key.
void check_keys(const Node& mapping, std::string_view path, const std::vector<std::string>& allowed, Issues& issues);

// "expected <what>, found <how `node` reads>" at `node`; no value, for a reader to return.
std::nullopt_t add_expected(Issues& issues, const Node& node, std::string_view path, std::string_view what);

// A section: a mapping (an empty value counts as an empty mapping) or nullptr after an issue.
const Node* read_section(const Node& node, std::string_view path, Issues& issues);

std::optional<std::int64_t> read_int(const Node& node, std::string_view path, std::int64_t min, std::int64_t max,
                                     Issues& issues);
std::optional<std::uint64_t> read_uint64(const Node& node, std::string_view path, Issues& issues);
std::optional<std::string> read_text(const Node& node, std::string_view path, Issues& issues);
// A name that can name a folder or a column: [A-Za-z0-9._-]+.
std::optional<std::string> read_name(const Node& node, std::string_view path, Issues& issues);
bool is_valid_name(std::string_view name);

// A set of ranks: `all` (an empty list), a count (the first N ranks, rank `skip` left out;
// -1: none) or a list of distinct ranks, each below `ranks` when the cluster is known.
std::optional<std::vector<RankId>> read_rank_set(const Node& node, const std::string& path, std::optional<int> ranks,
                                                 std::int64_t skip, Issues& issues);

// Each item of the sequence `node` read by `item` (optional<T>(item node, its path, issues)), so
// that every bad one is reported; the list only when all were read.
template <class T, class Item>
std::optional<std::vector<T>> read_items(const Node& node, const std::string& path, Item item, Issues& issues) {
    std::vector<T> out;
    bool ok = true;
    for (std::size_t i = 0; i < node.items.size(); ++i) {
        auto v = item(node.items[i], index_path(path, i), issues);
        if (v) out.push_back(std::move(*v));
        ok = ok && v.has_value();
    }
    if (!ok) return std::nullopt;
    return out;
}

// Stores the value read in `to`, if there is one; whether there was.
template <class T, class V>
bool store(T& to, std::optional<V> v) {
    if (v) to = std::move(*v);
    return v.has_value();
}

// One of `choices`, by name.
std::optional<std::string> read_choice(const Node& node, std::string_view path, std::string_view what,
                                       const std::vector<std::string>& choices, Issues& issues);

// Leaf downlink : uplink bandwidth, at least 1: "3:1", an integer (2 = 2:1) or a decimal with
// at most 3 places (1.5 = 3:2); reduced to lowest terms, each side at most 1000000.
std::optional<Ratio> read_ratio(const Node& node, std::string_view path, Issues& issues);
std::string to_string(Ratio r);  // "3:2"

inline bool contains(const std::vector<std::string>& list, const std::string& s) {
    return std::find(list.begin(), list.end(), s) != list.end();
}

// The candidate nearest to `word`, if it is close enough to be a likely misspelling of it
// (at most 1 edit for words up to 5 letters, 2 up to 9, 3 beyond; case-insensitive). Ties go
// to the earlier candidate, so callers list candidates in the schema's order.
std::optional<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates);
// `; did you mean "servers"?` or "": ready to append to a message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
// "a, b, c" for "available: ..." lists.
std::string join(const std::vector<std::string>& words);
// `; did you mean "gpu8"? available: gpu8, host` (the suggestion only when one is close).
std::string available_choices(std::string_view word, const std::vector<std::string>& choices);

}  // namespace fabricsim::scenario
