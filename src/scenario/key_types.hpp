// The value types of the key tables (key_table.hpp): each reads a YAML value with the
// messages of field_readers.hpp, prints it back in core's exact human form, and says what it
// is for the docs and the JSON Schema. A keyword form (`auto`, `off`) is an unset optional.
#pragma once

#include "core/units.hpp"
#include "scenario/key_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fabricsim::scenario {

// Whether a quantity with a unit may be zero; each is also held to its limit in input_limits.hpp
// (the limit is in the message).
enum class Zero { allowed, rejected };

// Shared by the readers of key_types.cpp and the tables' own keys.
bool is_keyword(const Node& n, const char* keyword);

// A list printed item by item.
template <class Range, class Print>
Value list_value(const Range& items, Print print) {
    Value::List out;
    for (const auto& item : items) out.push_back(print(item));
    return Value{std::move(out)};
}
Value int_list(const std::vector<int>& list);

// A name that can name a folder or a column (read_name).
TypeDoc name_type();
// `keyword` as a value besides those `doc` describes (`auto`, `off`), for the JSON Schema: one
// more word of a choice, or an alternative of the string pattern.
void allow_keyword(TypeDoc& doc, const char* keyword);

// A name_type() value.
Field<std::string> name_field();
Field<bool> boolean();
// `true`, `false` or `auto` (unset).
Field<std::optional<bool>> boolean_or_auto();
Field<int> integer(std::int64_t min, std::int64_t max);
Field<std::int64_t> integer64(std::int64_t min, std::int64_t max);
Field<std::optional<int>> integer_or_auto(std::int64_t min, std::int64_t max);
// A number in (0, max]: a decimal (0.125) or a fraction of whole numbers ("1/8").
Field<double> fraction(double max);
Field<std::optional<double>> fraction_or_auto(double max);
Field<Bytes> size(Zero zero);
Field<std::optional<Bytes>> size_or(const char* keyword, Zero zero);
Field<Time> time(Zero zero);
Field<std::optional<Time>> time_or(const char* keyword, Zero zero);
// A per-hop latency, held to kMaxDelay.
Field<Time> delay(Zero zero);
Field<Bandwidth> rate();
// A rate, or `auto` for zero (a default that follows another key, such as a NIC's line rate).
Field<Bandwidth> rate_or_zero_auto();
Field<Length> length(Zero zero);
Field<std::string> text_field();
Field<std::optional<Bandwidth>> rate_or_auto();

// The YAML words of an enum's values, each naming one (the first naming a value is its printed one).
template <class E>
using Words = std::vector<std::pair<std::string, E>>;

template <class E>
std::string_view word_of(const Words<E>& words, E e) {
    for (const auto& [word, value] : words)
        if (value == e) return word;
    return {};
}

// One of `words`, each naming a value of E.
template <class E>
Field<E> choice(std::string what, Words<E> words) {
    std::vector<std::string> names;
    std::string text;
    for (const auto& [w, e] : words) {
        names.push_back(w);
        text += (text.empty() ? "`" : ", `") + w + "`";
    }
    Field<E> f;
    f.doc = TypeDoc{text, {"string"}, {}, {}, names};
    f.read = [what = std::move(what), names, words](const Node& n, const std::string& path,
                                                    Issues& issues) -> std::optional<E> {
        const auto w = read_choice(n, path, what, names, issues);
        if (!w) return std::nullopt;
        for (const auto& [word, e] : words)
            if (word == *w) return e;
        return std::nullopt;
    };
    f.print = [words](const E& e) {
        const std::string_view w = word_of(words, e);
        return w.empty() ? Value{} : Value{std::string(w)};
    };
    return f;
}

// A value that may be left unset (nullopt: another key or a preset decides), printed only when set.
template <class T>
Field<std::optional<T>> optional_of(Field<T> base) {
    return {
        base.doc,
        [read = base.read](const Node& n, const std::string& path, Issues& issues) -> std::optional<std::optional<T>> {
            auto v = read(n, path, issues);
            if (!v) return std::nullopt;
            return std::optional<T>{std::move(*v)};
        },
        [print = base.print](const std::optional<T>& v) { return v ? print(*v) : Value{}; }};
}

// `auto` (unset: another key or a preset decides), or a value as `base` reads it; `type`: the
// docs' words for both.
template <class T>
Field<std::optional<T>> or_auto(Field<T> base, std::string type) {
    Field<std::optional<T>> f = optional_of(std::move(base));
    f.doc.text = std::move(type);
    allow_keyword(f.doc, "auto");
    f.read = [read = f.read](const Node& n, const std::string& path, Issues& issues) {
        return is_keyword(n, "auto") ? std::optional<std::optional<T>>{std::in_place} : read(n, path, issues);
    };
    f.print = [print = f.print](const std::optional<T>& v) { return v ? print(v) : Value{std::string("auto")}; };
    return f;
}

// `keyword` for `value`, a sentinel that another key or a model gives meaning (`none`, `off`,
// `auto`), or a value as `base` reads it; `type`: the docs' words for both.
template <class T>
Field<T> keyword_for(Field<T> base, const char* keyword, T value, std::string type) {
    base.doc.text = std::move(type);
    allow_keyword(base.doc, keyword);
    base.read = [read = base.read, keyword, value](const Node& n, const std::string& path, Issues& issues) {
        return is_keyword(n, keyword) ? std::optional<T>{value} : read(n, path, issues);
    };
    base.print = [print = base.print, keyword, value](const T& v) {
        return v == value ? Value{std::string(keyword)} : print(v);
    };
    return base;
}

// A number read from a scalar's text by `parse`, or `expected` in the message.
template <class T, class Parse>
Field<T> parsed(TypeDoc type, Parse parse, std::string expected) {
    return {std::move(type),
            [parse, expected](const Node& n, const std::string& path, Issues& issues) -> std::optional<T> {
                std::optional<T> v;
                if (n.is_scalar()) v = parse(n.text);
                if (!v) add_expected(issues, n, path, expected);
                return v;
            },
            [](const T& v) { return Value{v}; }};
}

// A value read as `base` reads it, then held to `max` (a field of a fixed width on the wire).
template <class T, class Beyond>
Field<T> at_most(Field<T> base, T max, std::string type, Beyond beyond) {
    base.doc.text = std::move(type);
    base.read = [read = base.read, max, beyond](const Node& n, const std::string& path,
                                                Issues& issues) -> std::optional<T> {
        auto v = read(n, path, issues);
        if (v && *v > max) return issues.reject(n.location, path, beyond(n, *v));
        return v;
    };
    return base;
}

// `preset`, the name of the preset the section's other keys start from, and `description`, a
// note for people that is read and not stored: the first keys of a device's section.
template <class S>
Key<S> preset_key(std::string doc) {
    return key("preset", &S::preset, name_field(), kAllModels, std::move(doc)).printed_if([](const S& s) {
        return !s.preset.empty();
    });
}
template <class S>
Key<S> description_key() {
    return custom_key<S>(
        "description", TypeDoc{"text", {"string"}}, kAllModels, "A note for people; not stored.",
        [](const Node& n, const std::string& path, S&, NoContext&, Issues& issues) {
            return read_text(n, path, issues).has_value();
        },
        [](const S&) { return Value{}; });
}

// A finite decimal number ("0.4", "1e-7"), the whole text.
std::optional<double> parse_number(std::string_view s);

}  // namespace fabricsim::scenario
