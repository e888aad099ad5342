#include "scenario/field_readers.hpp"

#include "scenario/suggest.hpp"
#include "scenario/units_parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace fabricsim::scenario {

void check_keys(const Node& mapping, std::string_view path, const std::vector<std::string>& allowed,
                Issues& issues) {
    for (const auto& e : mapping.entries) {
        if (std::find(allowed.begin(), allowed.end(), e.key) != allowed.end()) continue;
        issues.add(e.key_location, key_path(path, e.key), "unknown key" + did_you_mean(e.key, allowed));
    }
}

const Node* read_section(const Node& node, std::string_view path, Issues& issues) {
    static const Node empty = Node::mapping({});
    if (node.is_mapping()) return &node;
    if (node.is_null()) return &empty;
    issues.add(node.location, std::string(path), fmt::format("expected a mapping, found {}", describe_found(node)));
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

// Some text for the type error: scalars by value, others by kind.
std::string found(const Node& node) { return describe_found(node); }

}  // namespace

std::optional<std::int64_t> read_int(const Node& node, std::string_view path, std::int64_t min,
                                     std::int64_t max, Issues& issues) {
    std::optional<std::int64_t> v;
    if (node.is_scalar()) v = parse_decimal<std::int64_t>(node.text);
    if (!v || *v < min) {
        issues.add(node.location, std::string(path),
                   fmt::format("expected an integer >= {}, found {}", min, found(node)));
        return std::nullopt;
    }
    if (*v > max) {
        issues.add(node.location, std::string(path),
                   fmt::format("expected an integer <= {}, found {}", max, found(node)));
        return std::nullopt;
    }
    return v;
}

std::optional<std::uint64_t> read_uint64(const Node& node, std::string_view path, Issues& issues) {
    std::optional<std::uint64_t> v;
    if (node.is_scalar() && !node.text.starts_with('-')) v = parse_decimal<std::uint64_t>(node.text);
    if (!v)
        issues.add(node.location, std::string(path),
                   fmt::format("expected an unsigned 64-bit integer, found {}", found(node)));
    return v;
}

std::optional<std::string> read_text(const Node& node, std::string_view path, Issues& issues) {
    if (node.is_scalar()) return node.text;
    issues.add(node.location, std::string(path), fmt::format("expected text, found {}", found(node)));
    return std::nullopt;
}

bool is_valid_name(std::string_view name) {
    if (name.empty()) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
               c == '_' || c == '-';
    });
}

std::optional<std::string> read_name(const Node& node, std::string_view path, Issues& issues) {
    if (node.is_scalar() && is_valid_name(node.text)) return node.text;
    issues.add(node.location, std::string(path),
               fmt::format("expected a name of letters, digits, \".\", \"_\" and \"-\", found {}",
                           node.is_scalar() && node.text.empty() ? "an empty name" : found(node)));
    return std::nullopt;
}

std::optional<std::string> read_choice(const Node& node, std::string_view path, std::string_view what,
                                       const std::vector<std::string>& choices, Issues& issues) {
    if (node.is_scalar() && std::find(choices.begin(), choices.end(), node.text) != choices.end())
        return node.text;
    if (!node.is_scalar()) {
        issues.add(node.location, std::string(path),
                   fmt::format("expected {} ({}), found {}", what, join(choices), found(node)));
        return std::nullopt;
    }
    issues.add(node.location, std::string(path),
               fmt::format("unknown {} \"{}\"{}", what, node.text, available_choices(node.text, choices)));
    return std::nullopt;
}

namespace {

template <class T, class Parse>
std::optional<T> read_unit(const Node& node, std::string_view path, std::string_view expected,
                           Parse parse, bool reject_zero, Issues& issues) {
    if (!node.is_scalar()) {
        issues.add(node.location, std::string(path), fmt::format("expected {}, found {}", expected, found(node)));
        return std::nullopt;
    }
    const auto parsed = parse(node.text);
    if (!parsed.ok()) {
        issues.add(node.location, std::string(path), parsed.error());
        return std::nullopt;
    }
    if (reject_zero && parsed.value() == T{}) {
        issues.add(node.location, std::string(path),
                   fmt::format("expected {} greater than 0, found {}", expected, found(node)));
        return std::nullopt;
    }
    return parsed.value();
}

}  // namespace

std::optional<Time> read_time(const Node& node, std::string_view path, Zero zero, Issues& issues) {
    return read_unit<Time>(node, path, "a time (e.g. 500ns, 2.5us)", parse_time, zero == Zero::rejected, issues);
}

std::optional<Bytes> read_bytes(const Node& node, std::string_view path, Zero zero, Issues& issues) {
    return read_unit<Bytes>(node, path, "a size (e.g. 4KiB, 1MB)", parse_bytes, zero == Zero::rejected, issues);
}

std::optional<Bandwidth> read_bandwidth(const Node& node, std::string_view path, Issues& issues) {
    return read_unit<Bandwidth>(node, path, "a rate (e.g. 400Gbps, 50GB/s)", parse_bandwidth, true, issues);
}

std::string join(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) {
        if (!out.empty()) out += ", ";
        out += w;
    }
    return out;
}

std::string available_choices(std::string_view word, const std::vector<std::string>& choices) {
    const auto near = nearest(word, choices);
    if (near) return fmt::format("; did you mean \"{}\"? available: {}", *near, join(choices));
    return fmt::format("; available: {}", join(choices));
}

}  // namespace fabricsim::scenario
