#include "scenario/key_types.hpp"

#include "core/units_format.hpp"
#include "scenario/input_limits.hpp"
#include "scenario/units_parse.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace fabricsim::scenario {

namespace {

Value text(std::string s) { return Value{std::move(s)}; }

std::string zero_text(const char* noun, Zero zero) {
    return fmt::format("{} {}", noun, zero == Zero::allowed ? "\u2265 0" : "> 0");
}

// True when `n` looks like a word rather than a number, so that a misspelt keyword gets
// "expected ... or auto" rather than a unit message.
bool is_word(const Node& n) {
    if (!n.is_scalar() || n.text.empty()) return false;
    const char c = n.text[0];
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// `keyword` for an unset value, else `read`'s value; a word that is neither gets `expected`.
template <class T, class Parse, class Read>
std::optional<std::optional<T>> read_or(const Node& n, const std::string& path, const char* keyword,
                                        std::string_view expected, Parse parse, Read read, Issues& issues) {
    if (is_keyword(n, keyword)) return std::optional<std::optional<T>>{std::in_place, std::nullopt};
    if (!n.is_scalar() || (is_word(n) && !parse(n.text).ok()))
        return issues.reject(n.location, path, "expected {} or {}, found {}", expected, keyword, describe_found(n));
    auto v = read(n, path, issues);
    if (!v) return std::nullopt;
    return std::optional<T>{*v};
}

template <class T>
Value print_or(const std::optional<T>& v, const char* keyword) {
    return v ? text(to_string(*v)) : text(keyword);
}

std::string max_text(double max) { return fmt::format("{}", max); }

// A quantity with a unit: its word in the docs, its words in messages, its parser and its limit
// (input_limits.hpp).
template <class T>
struct Unit {
    const char* word;      // "size"
    const char* expected;  // "a size (e.g. 4KiB, 1MB)"
    const char* noun;      // "a size", before its limit
    Parsed<T> (*parse)(std::string_view);
    std::optional<std::string> (*beyond)(T);
};

const Unit<Bytes> kSize{"size", "a size (e.g. 4KiB, 1MB)", "a size", parse_bytes,
                        [](Bytes v) { return beyond_limit(v); }};
const Unit<Time> kTime{"time", "a time (e.g. 500ns, 2.5us)", "a time", parse_time,
                       [](Time v) { return beyond_limit(v); }};
// A time added once per hop or per message (a latency), held to kMaxDelay.
const Unit<Time> kDelay{"time", "a time (e.g. 500ns, 2.5us)", "a delay", parse_time,
                        [](Time v) { return beyond_limit(v, kMaxDelay); }};
const Unit<Bandwidth> kRate{"rate", "a rate (e.g. 400Gbps, 50GB/s)", "a rate", parse_bandwidth,
                            [](Bandwidth v) { return beyond_limit(v); }};
const Unit<Length> kLength{"length", "a length (e.g. 5m, 30m)", "a length", parse_length,
                           [](Length v) { return beyond_limit(v); }};

// The schema's view of a quantity: a string of its units, `keyword` beside them when given, and
// a bare 0 (a YAML integer) where the quantity reads one and zero is allowed.
template <class T>
TypeDoc unit_doc(std::string type, const Unit<T>& u, Zero zero, const char* keyword = nullptr) {
    TypeDoc t{std::move(type), {"string"}};
    if (zero == Zero::allowed && u.parse("0").ok()) {
        t.json_types.emplace_back("integer");
        t.minimum = t.maximum = 0;
    }
    t.pattern = unit_pattern(T{});
    if (keyword != nullptr) allow_keyword(t, keyword);
    return t;
}

// A value of `u` held to its limit; `expected` names it when it is no value or zero.
template <class T>
std::optional<T> read_unit(const Node& node, const std::string& path, const Unit<T>& u, Zero zero, Issues& issues,
                           std::string_view expected) {
    if (!node.is_scalar()) return add_expected(issues, node, path, expected);
    const auto parsed = u.parse(node.text);
    if (!parsed.ok()) return issues.reject(node.location, path, parsed.error());
    if (zero == Zero::rejected && parsed.value() == T{})
        return issues.reject(node.location, path, "expected {} greater than 0, found {}", expected,
                             describe_found(node));
    if (const auto beyond = u.beyond(parsed.value()))
        return issues.reject(node.location, path, "expected {} {}, found {}", u.noun, *beyond, describe_found(node));
    return parsed.value();
}

// A quantity with a unit, held to its limit and printed in core's form.
template <class T>
Field<T> unit_field(const Unit<T>& u, Zero zero) {
    return {unit_doc(zero_text(u.word, zero), u, zero),
            [&u, zero](const Node& n, const std::string& path, Issues& issues) {
                return read_unit(n, path, u, zero, issues, u.expected);
            },
            [](const T& v) { return text(to_string(v)); }};
}

// The same, or `keyword` for unset; `expected` names the quantity in "expected ... or keyword".
template <class T>
Field<std::optional<T>> unit_or(const Unit<T>& u, const char* keyword, Zero zero, const char* expected) {
    return {
        unit_doc(fmt::format("{}, or `{}`", zero_text(u.word, zero), keyword), u, zero, keyword),
        [&u, keyword, zero, expected](const Node& n, const std::string& path, Issues& issues) {
            return read_or<T>(
                n, path, keyword, expected, u.parse,
                [&](const Node& m, const std::string& p, Issues& i) { return read_unit(m, p, u, zero, i, u.expected); },
                issues);
        },
        [keyword](const std::optional<T>& v) { return print_or(v, keyword); }};
}

// `true` or `false` (YAML 1.2 core schema; yes/no/on/off are not booleans there).
std::optional<bool> read_bool(const Node& node, const std::string& path, Issues& issues) {
    if (node.is_scalar() && (node.text == "true" || node.text == "false")) return node.text == "true";
    return add_expected(issues, node, path, "true or false");
}

// A number in (0, max], as fraction() reads it.
std::optional<double> read_fraction(const Node& n, const std::string& path, double max, Issues& issues) {
    std::optional<double> v;
    if (n.is_scalar()) {
        const std::string_view s = n.text;
        if (const auto slash = s.find('/'); slash != std::string_view::npos) {
            std::int64_t num = 0;
            std::int64_t den = 0;
            const auto a = std::from_chars(s.data(), s.data() + slash, num);
            const auto b = std::from_chars(s.data() + slash + 1, s.data() + s.size(), den);
            if (a.ec == std::errc{} && a.ptr == s.data() + slash && slash > 0 && b.ec == std::errc{} &&
                b.ptr == s.data() + s.size() && slash + 1 < s.size() && den > 0 && num >= 0)
                v = static_cast<double>(num) / static_cast<double>(den);
        } else {
            v = parse_number(s);
        }
    }
    if (!v) return add_expected(issues, n, path, "a number (e.g. 0.125) or a fraction (e.g. 1/8)");
    if (!(*v > 0 && *v <= max)) return issues.reject(n.location, path, "{} is outside (0, {}]", n.text, max);
    return v;
}

}  // namespace

bool is_keyword(const Node& n, const char* keyword) { return n.is_scalar() && n.text == keyword; }

std::optional<double> parse_number(std::string_view s) {
    double v = 0;
    const auto [at, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || at != s.data() + s.size() || s.empty() || !std::isfinite(v)) return std::nullopt;
    return v;
}

Value int_list(const std::vector<int>& list) {
    return list_value(list, [](int v) { return Value{std::int64_t{v}}; });
}

void allow_keyword(TypeDoc& doc, const char* keyword) {
    if (!doc.choices.empty())
        doc.choices.emplace_back(keyword);
    else if (!doc.pattern.empty())
        doc.pattern = fmt::format("{}|{}", keyword, doc.pattern);
    else if (!contains(doc.json_types, "string"))
        doc.pattern = keyword;
    if (!contains(doc.json_types, "string")) doc.json_types.emplace_back("string");
}

TypeDoc name_type() {
    TypeDoc t{"name", {"string"}};
    t.pattern = "[A-Za-z0-9._-]+";
    return t;
}

Field<std::string> name_field() {
    return {name_type(), read_name, [](const std::string& s) { return text(s); }};
}

Field<bool> boolean() {
    return {TypeDoc{"`true` / `false`", {"boolean"}}, read_bool, [](const bool& b) { return Value{b}; }};
}

Field<std::optional<bool>> boolean_or_auto() {
    TypeDoc doc{"`true` / `false`, or `auto`", {"boolean"}};
    allow_keyword(doc, "auto");
    return {doc,
            [](const Node& n, const std::string& path, Issues& issues) -> std::optional<std::optional<bool>> {
                if (is_keyword(n, "auto")) return std::optional<std::optional<bool>>{std::in_place, std::nullopt};
                if (!n.is_scalar() || (n.text != "true" && n.text != "false"))
                    return add_expected(issues, n, path, "true, false or auto");
                return std::optional<bool>{n.text == "true"};
            },
            [](const std::optional<bool>& b) { return b ? Value{*b} : text("auto"); }};
}

Field<int> integer(std::int64_t min, std::int64_t max) {
    return {TypeDoc{fmt::format("integer, {} to {}", min, max), {"integer"}, min, max, {}},
            [min, max](const Node& n, const std::string& path, Issues& issues) -> std::optional<int> {
                const auto v = read_int(n, path, min, max, issues);
                if (!v) return std::nullopt;
                return static_cast<int>(*v);
            },
            [](const int& v) { return Value{std::int64_t{v}}; }};
}

Field<std::int64_t> integer64(std::int64_t min, std::int64_t max) {
    return {TypeDoc{fmt::format("integer, {} to {}", min, max), {"integer"}, min, max, {}},
            [min, max](const Node& n, const std::string& path, Issues& issues) {
                return read_int(n, path, min, max, issues);
            },
            [](const std::int64_t& v) { return Value{v}; }};
}

Field<std::optional<int>> integer_or_auto(std::int64_t min, std::int64_t max) {
    return or_auto(integer(min, max), fmt::format("integer, {} to {}, or `auto`", min, max));
}

Field<double> fraction(double max) {
    // A string is a fraction or, quoted, a decimal (parse_number: std::from_chars' format).
    TypeDoc doc{fmt::format("number in (0, {}] or fraction (`1/8`)", max_text(max)), {"number", "string"}};
    doc.pattern = "[0-9]+/[0-9]+|[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)?";
    return {
        doc,
        [max](const Node& n, const std::string& path, Issues& issues) { return read_fraction(n, path, max, issues); },
        [](const double& v) { return Value{v}; }};
}

Field<std::optional<double>> fraction_or_auto(double max) {
    return or_auto(fraction(max), fmt::format("number in (0, {}] or fraction (`1/256`), or `auto`", max_text(max)));
}

Field<Bytes> size(Zero zero) { return unit_field(kSize, zero); }

Field<std::optional<Bytes>> size_or(const char* keyword, Zero zero) {
    return unit_or(kSize, keyword, zero, kSize.expected);
}

Field<Time> time(Zero zero) { return unit_field(kTime, zero); }

Field<Time> delay(Zero zero) { return unit_field(kDelay, zero); }

Field<std::optional<Time>> time_or(const char* keyword, Zero zero) {
    return unit_or(kTime, keyword, zero, kTime.expected);
}

Field<Bandwidth> rate() { return unit_field(kRate, Zero::rejected); }

Field<Bandwidth> rate_or_zero_auto() {
    return {unit_doc("rate > 0, or `auto`", kRate, Zero::rejected, "auto"),
            [](const Node& n, const std::string& path, Issues& issues) -> std::optional<Bandwidth> {
                if (is_keyword(n, "auto")) return Bandwidth::zero();
                return read_unit(n, path, kRate, Zero::rejected, issues, "a rate (e.g. 400Gbps, 50GB/s) or auto");
            },
            [](const Bandwidth& b) { return text(b == Bandwidth::zero() ? "auto" : to_string(b)); }};
}

Field<Length> length(Zero zero) { return unit_field(kLength, zero); }

Field<std::string> text_field() {
    return {TypeDoc{"text", {"string"}}, read_text, [](const std::string& s) { return text(s); }};
}

Field<std::optional<Bandwidth>> rate_or_auto() {
    return unit_or(kRate, "auto", Zero::rejected, "a rate (e.g. 40Mbps)");
}

}  // namespace fabricsim::scenario
