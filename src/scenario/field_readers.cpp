#include "scenario/field_readers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>
#include <set>

namespace fabricsim::scenario {

void check_keys(const Node& mapping, std::string_view path, const std::vector<std::string>& allowed, Issues& issues) {
    for (const auto& e : mapping.entries) {
        if (std::find(allowed.begin(), allowed.end(), e.key) != allowed.end()) continue;
        issues.add(e.key_location, key_path(path, e.key), "unknown key" + did_you_mean(e.key, allowed));
    }
}

std::nullopt_t add_expected(Issues& issues, const Node& node, std::string_view path, std::string_view what) {
    return issues.reject(node.location, std::string(path), "expected {}, found {}", what, describe_found(node));
}

const Node* read_section(const Node& node, std::string_view path, Issues& issues) {
    static const Node empty = Node::mapping({});
    if (node.is_mapping()) return &node;
    if (node.is_null()) return &empty;
    add_expected(issues, node, path, "a mapping");
    return nullptr;
}

namespace {

template <class T>
std::optional<T> parse_decimal(const std::string& text) {
    T value{};
    const char* begin = text.data();
    const char* end = begin + text.size();
    if (begin != end && *begin == '+') ++begin;  // "+3" is YAML's integer 3
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc{} || ptr != end || begin == end) return std::nullopt;
    return value;
}

}  // namespace

std::optional<std::int64_t> read_int(const Node& node, std::string_view path, std::int64_t min, std::int64_t max,
                                     Issues& issues) {
    std::optional<std::int64_t> v;
    if (node.is_scalar()) v = parse_decimal<std::int64_t>(node.text);
    if (!v || *v < min)
        return issues.reject(node.location, std::string(path), "expected an integer >= {}, found {}", min,
                             describe_found(node));
    if (*v > max)
        return issues.reject(node.location, std::string(path), "expected an integer <= {}, found {}", max,
                             describe_found(node));
    return v;
}

std::optional<std::uint64_t> read_uint64(const Node& node, std::string_view path, Issues& issues) {
    std::optional<std::uint64_t> v;
    if (node.is_scalar() && !node.text.starts_with('-')) v = parse_decimal<std::uint64_t>(node.text);
    if (!v) add_expected(issues, node, path, "an unsigned 64-bit integer");
    return v;
}

std::optional<std::string> read_text(const Node& node, std::string_view path, Issues& issues) {
    if (node.is_scalar()) return node.text;
    return add_expected(issues, node, path, "text");
}

bool is_valid_name(std::string_view name) {
    if (name.empty()) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '-';
    });
}

std::optional<std::string> read_name(const Node& node, std::string_view path, Issues& issues) {
    if (node.is_scalar() && is_valid_name(node.text)) return node.text;
    return issues.reject(node.location, std::string(path),
                         "expected a name of letters, digits, \".\", \"_\" and \"-\", found {}",
                         node.is_scalar() && node.text.empty() ? "an empty name" : describe_found(node));
}

std::optional<std::string> read_choice(const Node& node, std::string_view path, std::string_view what,
                                       const std::vector<std::string>& choices, Issues& issues) {
    if (node.is_scalar() && std::find(choices.begin(), choices.end(), node.text) != choices.end()) return node.text;
    if (!node.is_scalar())
        return issues.reject(node.location, std::string(path), "expected {} ({}), found {}", what, join(choices),
                             describe_found(node));
    return issues.reject(node.location, std::string(path), "unknown {} \"{}\"{}", what, node.text,
                         available_choices(node.text, choices));
}

namespace {

constexpr std::int64_t kMaxRatioTerm = 1'000'000;
constexpr std::size_t kMaxRatioDecimals = 3;

// Plain decimal digits, at most 7 of them (no sign, no spaces).
std::optional<std::int64_t> ratio_digits(std::string_view s) {
    if (s.empty() || s.size() > 7) return std::nullopt;
    if (!std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
    std::int64_t v = 0;
    for (char c : s) v = v * 10 + (c - '0');
    return v;
}

}  // namespace

std::optional<Ratio> read_ratio(const Node& node, std::string_view path, Issues& issues) {
    const auto malformed = [&]() -> std::optional<Ratio> {
        return issues.reject(node.location, std::string(path),
                             "expected a ratio of downlink to uplink bandwidth (e.g. 1, 1.5 or \"3:1\"), found {}",
                             describe_found(node));
    };
    if (!node.is_scalar()) return malformed();
    const std::string_view text = node.text;
    std::int64_t down = 0;
    std::int64_t up = 1;
    if (const auto colon = text.find(':'); colon != std::string_view::npos) {
        const auto d = ratio_digits(text.substr(0, colon));
        const auto u = ratio_digits(text.substr(colon + 1));
        if (!d || !u || *u == 0) return malformed();
        down = *d;
        up = *u;
    } else if (const auto dot = text.find('.'); dot != std::string_view::npos) {
        const std::string_view fraction = text.substr(dot + 1);
        const auto whole = ratio_digits(text.substr(0, dot));
        const auto part = ratio_digits(fraction);
        if (!whole || !part) return malformed();
        if (fraction.size() > kMaxRatioDecimals)
            return issues.reject(node.location, std::string(path),
                                 "expected at most {} decimal places (write thirds as \"4:3\"), found {}",
                                 kMaxRatioDecimals, describe_found(node));
        for (std::size_t i = 0; i < fraction.size(); ++i) up *= 10;
        down = *whole * up + *part;
    } else {
        const auto n = ratio_digits(text);
        if (!n) return malformed();
        down = *n;
    }
    if (down < up)
        return issues.reject(node.location, std::string(path),
                             "expected a ratio >= 1 (leaf downlink : uplink bandwidth), found {}",
                             describe_found(node));
    const std::int64_t g = std::gcd(down, up);
    down /= g;
    up /= g;
    if (down > kMaxRatioTerm)
        return issues.reject(node.location, std::string(path), "expected a ratio whose terms are at most {}, found {}",
                             kMaxRatioTerm, describe_found(node));
    return Ratio{static_cast<int>(down), static_cast<int>(up)};
}

std::string to_string(Ratio r) { return fmt::format("{}:{}", r.down, r.up); }

std::string join(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) {
        if (!out.empty()) out += ", ";
        out += w;
    }
    return out;
}

namespace {
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::size_t max_edits(std::size_t length) {
    if (length <= 5) return 1;
    if (length <= 9) return 2;
    return 3;
}

// Optimal-string-alignment Damerau–Levenshtein distance: insertions, deletions,
// substitutions and transpositions of adjacent characters each cost 1. Case-insensitive
// (ASCII), since "Servers" for "servers" is a misspelling too.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Three rolling rows: the transposition step looks two rows back.
    const std::size_t m = b.size();
    std::vector<std::size_t> before(m + 1), prev(m + 1), cur(m + 1);
    std::iota(prev.begin(), prev.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= m; ++j) {
            const bool same = lower(a[i - 1]) == lower(b[j - 1]);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
                cur[j] = std::min(cur[j], before[j - 2] + 1);
        }
        std::swap(before, prev);
        std::swap(prev, cur);
    }
    return prev[m];
}
}  // namespace

std::optional<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates) {
    const std::size_t limit = max_edits(word.size());
    std::optional<std::string> best;
    std::size_t best_distance = limit + 1;
    for (const auto& c : candidates) {
        const std::size_t gap = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
        if (gap > limit) continue;  // cannot be close enough; skip the quadratic work
        const std::size_t d = edit_distance(word, c);
        if (d < best_distance) {
            best_distance = d;
            best = c;
        }
    }
    return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
    if (const auto n = nearest(word, candidates)) return fmt::format("; did you mean \"{}\"?", *n);
    return {};
}

std::string available_choices(std::string_view word, const std::vector<std::string>& choices) {
    const auto near = nearest(word, choices);
    if (near) return fmt::format("; did you mean \"{}\"? available: {}", *near, join(choices));
    return fmt::format("; available: {}", join(choices));
}

std::optional<std::vector<RankId>> read_rank_set(const Node& node, const std::string& path, std::optional<int> ranks,
                                                 std::int64_t skip, Issues& issues) {
    if (node.is_scalar() && node.text == "all") return std::vector<RankId>{};
    if (node.is_scalar()) {
        const int available = ranks ? *ranks - (skip >= 0 ? 1 : 0) : (1 << 30);
        auto n = read_int(node, path, 1, std::max(available, 1), issues);
        if (!n) return std::nullopt;
        std::vector<RankId> out;
        for (std::int64_t r = 0; static_cast<std::int64_t>(out.size()) < *n; ++r)
            if (skip != r) out.emplace_back(static_cast<RankId::rep>(r));
        return out;
    }
    if (!node.is_sequence() || node.items.empty())
        return issues.reject(node.location, path, "expected \"all\", a number of ranks or a list of ranks, found {}",
                             describe_found(node));
    std::set<std::int64_t> seen;
    const auto rank = [&](const Node& item, const std::string& item_path, Issues& found) -> std::optional<RankId> {
        auto r = read_int(item, item_path, 0, (1 << 30), found);
        if (!r) return std::nullopt;
        if (ranks && *r >= *ranks)
            found.add(item.location, item_path, "rank {} does not exist; the cluster has {} ranks (0..{})", *r, *ranks,
                      *ranks - 1);
        else if (skip == *r)
            found.add(item.location, item_path, "rank {} is the receiver", *r);
        else if (!seen.insert(*r).second)
            found.add(item.location, item_path, "rank {} is listed twice", *r);
        else
            return RankId{static_cast<RankId::rep>(*r)};
        return std::nullopt;
    };
    return read_items<RankId>(node, path, rank, issues);
}

}  // namespace fabricsim::scenario
