// One declaration per scenario key, in the manner of ns-3's TypeId::AddAttribute: a section's
// keys are a table of descriptors over the members of its spec struct, each giving the key's
// name, its type with unit and range, its one-line doc, the member it fills and the models
// that read it. From the table alone:
//   read_table()   checks a mapping's keys (unknown ones with "did you mean") and fills the spec,
//                  with the messages of field_readers.hpp;
//   print_table()  the resolved section for `validate --print` and result.json;
//   TableInfo      what `fabricsim docs --keys` and `--json-schema` are generated from, the
//                  defaults being the printed values of a default-constructed spec.
// Checks across keys (Kmin < Kmax, a buffer that fits a packet) are functions beside each
// table, given the SectionRead of what was read. docs/ARCHITECTURE.md, "Adding a scenario key".
#pragma once

#include "scenario/field_readers.hpp"
#include "scenario/issues.hpp"
#include "scenario/located_tree.hpp"
#include "scenario/resolved_tree.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace fabricsim::scenario {

// The models that read a key: a scenario that sets a key its model does not read is warned.
enum Consumer : unsigned { kIdeal = 1, kPacket = 2, kFlow = 4, kAllModels = kIdeal | kPacket | kFlow };
// "all", or the models by name ("packet, flow"): the docs' "read by" column and the warnings.
std::string models(unsigned consumers);

// A value type as the docs and the JSON Schema describe it.
struct TypeDoc {
    std::string text;                     // docs' type column: "size > 0, or `auto`"
    std::vector<std::string> json_types;  // JSON Schema "type": integer, number, string, boolean, array
    std::optional<std::int64_t> minimum;  // for an integer
    std::optional<std::int64_t> maximum;
    std::vector<std::string> choices;  // every value, when it is one of these words
    std::string pattern;               // a regular expression a string value matches whole (unanchored)
    TypeDoc() = default;
    TypeDoc(std::string type, std::vector<std::string> json, std::optional<std::int64_t> min = {},
            std::optional<std::int64_t> max = {}, std::vector<std::string> words = {})
        : text(std::move(type)), json_types(std::move(json)), minimum(min), maximum(max), choices(std::move(words)) {}
};

// How one YAML value reads into a T, prints back, and is described (key_types.hpp).
template <class T>
struct Field {
    TypeDoc doc;
    std::function<std::optional<T>(const Node&, const std::string& path, Issues&)> read;
    std::function<Value(const T&)> print;
};

struct NoContext {};
struct TableInfo;

// What the docs and the schema need of one key.
struct KeyInfo {
    std::string name;
    TypeDoc type;
    std::string doc;
    unsigned consumers = kAllModels;
    std::string default_doc;             // docs' default column when the printed default says too little
    Value default_value;                 // printed from a default-constructed spec
    const TableInfo* section = nullptr;  // a nested section's table, or a list's entries' (type "array")
    bool required = false;               // `missing` when absent
    std::string missing = "missing required key";
};

inline KeyInfo key_info(std::string name, TypeDoc type, std::string doc, unsigned consumers,
                        const TableInfo* section = nullptr) {
    KeyInfo k;
    k.name = std::move(name);
    k.type = std::move(type);
    k.doc = std::move(doc);
    k.consumers = consumers;
    k.section = section;
    return k;
}

// A list of entries (list_of) rather than one nested section.
inline bool is_list(const KeyInfo& k) {
    return k.section != nullptr && k.type.json_types == std::vector<std::string>{"array"};
}

struct TableInfo {
    std::string path;  // "cluster.roce.pfc"
    std::vector<KeyInfo> keys;
    std::vector<std::string> names() const;
};

// Which keys of a section were written and which of them had an issue, for the checks across
// keys; nested sections' keys by their relative path ("pfc.xoff").
struct SectionRead {
    const Node* map = nullptr;  // null: not a mapping (reported)
    std::vector<std::string> failed;
    // The node written at `rel` ("pfc.xoff"), or null.
    const Node* given(std::string_view rel) const;
    // Read without an issue (or not written).
    bool ok(std::string_view rel) const;
};

// One key of section S: reads into S (Ctx: what a section's keys learn from each other, such as
// the number of virtual lanes) and prints from it.
template <class S, class Ctx = NoContext>
struct Key {
    KeyInfo info;
    // False after an issue; `failed` collects a nested section's failed keys (relative).
    std::function<bool(const Node&, const std::string& path, S&, Ctx&, Issues&, std::vector<std::string>& failed)> read;
    // An empty Value (monostate) leaves the key out of the printed section.
    std::function<Value(const S&)> print;

    Key() = default;
    Key(KeyInfo i, decltype(read) r, decltype(print) p) : info(std::move(i)), read(std::move(r)), print(std::move(p)) {}
    // A key that needs no context, in a table whose keys share one.
    template <class C>
    requires(std::is_same_v<C, NoContext> && !std::is_same_v<Ctx, NoContext>) Key(Key<S, C> k)
        : info(std::move(k.info)), print(std::move(k.print)) {
        read = [r = std::move(k.read)](const Node& n, const std::string& path, S& s, Ctx&, Issues& issues,
                                       std::vector<std::string>& failed) {
            NoContext none;
            return r(n, path, s, none, issues, failed);
        };
    }

    // Docs' default column, where the printed default needs words ("SL mod `virtual_lanes`").
    Key&& shown_default(std::string text) && {
        info.default_doc = std::move(text);
        return std::move(*this);
    }
    // A key the section must give: `message` at the section when it is absent.
    Key&& required(std::string message = "missing required key") && {
        info.required = true;
        info.default_doc = "required";
        info.missing = std::move(message);
        return std::move(*this);
    }
    // A key read by hand whose value is the section `table` declares (the docs and schema nest it).
    Key&& with_section(const TableInfo& table) && {
        info.section = &table;
        return std::move(*this);
    }
    // Printed only where `when` holds (a key that a choice of another key makes meaningless).
    template <class When>
    Key&& printed_if(When when) && {
        print = [when, print = std::move(print)](const S& s) { return when(s) ? print(s) : Value{}; };
        return std::move(*this);
    }
};

template <class S, class Ctx = NoContext>
struct Table : TableInfo {
    std::vector<Key<S, Ctx>> keys_;
    Table(std::string section_path, std::vector<Key<S, Ctx>> declared) : keys_(std::move(declared)) {
        path = std::move(section_path);
        // On the heap: GCC 12 at -O3 takes the strings of a large spec on the stack for
        // uninitialised (a false -Wmaybe-uninitialized).
        const auto defaults = std::make_unique<const S>();
        for (const auto& k : keys_) {
            KeyInfo info = k.info;
            info.default_value = k.print(*defaults);
            TableInfo::keys.push_back(std::move(info));
        }
    }
};

// A key that fills `member` with `field`.
template <class S, class T, class Ctx = NoContext>
Key<S, Ctx> key(std::string name, T S::*member, Field<T> field, unsigned consumers, std::string doc) {
    return {
        key_info(std::move(name), field.doc, std::move(doc), consumers),
        [member, read = field.read](const Node& n, const std::string& path, S& out, Ctx&, Issues& issues,
                                    std::vector<std::string>&) { return store(out.*member, read(n, path, issues)); },
        [member, print = field.print](const S& s) { return print(s.*member); }};
}

// A key read and printed by hand (a value that depends on another key, or is printed only
// sometimes).
template <class S, class Ctx = NoContext>
Key<S, Ctx> custom_key(
    std::string name, TypeDoc type, unsigned consumers, std::string doc,
    std::type_identity_t<std::function<bool(const Node&, const std::string&, S&, Ctx&, Issues&)>> read,
    std::type_identity_t<std::function<Value(const S&)>> print) {
    return {key_info(std::move(name), std::move(type), std::move(doc), consumers),
            [read = std::move(read)](const Node& n, const std::string& path, S& out, Ctx& ctx, Issues& issues,
                                     std::vector<std::string>&) { return read(n, path, out, ctx, issues); },
            std::move(print)};
}

// `also`: keys the caller reads itself beside the table's (a custom switch's `name`).
template <class S, class Ctx>
SectionRead read_table(const Node& node, const std::string& path, const Table<S, Ctx>& table, S& out, Ctx& ctx,
                       Issues& issues, const std::vector<std::string>& also = {});
template <class S, class Ctx>
Value print_table(const Table<S, Ctx>& table, const S& spec);
// read_table for a section whose keys share no context.
template <class S>
SectionRead read_table(const Node& node, const std::string& path, const Table<S>& table, S& out, Issues& issues) {
    NoContext none;
    return read_table(node, path, table, out, none, issues);
}
// The table's keys of `map`, a mapping whose other keys the caller checks (a workload entry,
// where a collective's keys sit beside `name` and `after`).
template <class S, class Ctx>
SectionRead read_keys(const Node& map, const std::string& path, const Table<S, Ctx>& table, S& out, Ctx& ctx,
                      Issues& issues);

// A nested section read with `table` (sharing the context) into the part of S that `part`
// gives (an S& or const S& to a Sub& or const Sub&).
template <class S, class Sub, class Ctx, class Part>
Key<S, Ctx> nested(std::string name, const Table<Sub, Ctx>& table, std::string doc, Part part) {
    unsigned consumers = 0;
    for (const KeyInfo& sub : table.TableInfo::keys) consumers |= sub.consumers;
    return {key_info(name, TypeDoc{"mapping", {"object"}}, std::move(doc), consumers, &table),
            [part, &table, name](const Node& n, const std::string& path, S& out, Ctx& ctx, Issues& issues,
                                 std::vector<std::string>& failed) {
                const SectionRead r = read_table(n, path, table, part(out), ctx, issues);
                for (const auto& f : r.failed) failed.push_back(key_path(name, f));
                return r.map != nullptr;
            },
            [part, &table](const S& s) { return print_table(table, part(s)); }};
}

// A nested section: `member` read with `table`.
template <class S, class Sub, class Ctx = NoContext>
Key<S, Ctx> section(std::string name, Sub S::*member, const Table<Sub, Ctx>& table, std::string doc) {
    return nested<S>(
        std::move(name), table, std::move(doc), [member](auto& s) -> auto& { return s.*member; });
}

// A nested mapping whose keys fill S itself (a training entry's `batch: {global, micro}`).
template <class S, class Ctx>
Key<S, Ctx> group(std::string name, const Table<S, Ctx>& table, std::string doc) {
    return nested<S>(
        std::move(name), table, std::move(doc), [](auto& s) -> auto& { return s; });
}

// The entries of a list, each printed with `table` (a custom topology's switches and links).
template <class E, class Ctx>
Value print_list(const Table<E, Ctx>& table, const std::vector<E>& entries) {
    Value::List out;
    for (const E& e : entries) out.push_back(print_table(table, e));
    return Value{std::move(out)};
}

// A list of mappings, each entry a `table` section that the caller reads with what the entries
// are checked against (a custom topology's links name the switches and the servers' NICs):
// the key documents and prints the list; `get` gives the list in S.
template <class S, class E, class Ctx, class Get>
Key<S, Ctx> list_of(std::string name, std::string type, const Table<E, Ctx>& table, unsigned consumers, std::string doc,
                    Get get) {
    return {key_info(std::move(name), TypeDoc{std::move(type), {"array"}}, std::move(doc), consumers, &table),
            [](const Node&, const std::string&, S&, Ctx&, Issues&, std::vector<std::string>&) { return true; },
            [get, &table](const S& s) { return print_list(table, get(s)); }};
}

// A key of `Sub` as a key of S that holds a Sub in `member` (the fabric keys of the storage fabric).
template <class S, class Sub, class Ctx>
Key<S, Ctx> inside(Sub S::*member, Key<Sub, Ctx> k) {
    return {std::move(k.info),
            [member, read = std::move(k.read)](const Node& n, const std::string& path, S& s, Ctx& ctx, Issues& issues,
                                               std::vector<std::string>& failed) {
                return read(n, path, s.*member, ctx, issues, failed);
            },
            [member, print = std::move(k.print)](const S& s) { return print(s.*member); }};
}

template <class S, class Ctx>
SectionRead read_keys(const Node& map, const std::string& path, const Table<S, Ctx>& table, S& out, Ctx& ctx,
                      Issues& issues) {
    SectionRead r;
    r.map = &map;
    for (const auto& k : table.keys_) {
        const Node* n = map.find(k.info.name);
        if (n == nullptr && k.info.required) {
            issues.add(map.location, key_path(path, k.info.name), k.info.missing);
            r.failed.push_back(k.info.name);
        }
        if (n == nullptr) continue;
        if (!k.read(*n, key_path(path, k.info.name), out, ctx, issues, r.failed)) r.failed.push_back(k.info.name);
    }
    return r;
}

template <class S, class Ctx>
SectionRead read_table(const Node& node, const std::string& path, const Table<S, Ctx>& table, S& out, Ctx& ctx,
                       Issues& issues, const std::vector<std::string>& also) {
    if (node.unresolved) return {};  // a preset that did not load, already reported
    const Node* map = read_section(node, path, issues);
    if (map == nullptr) return {};
    std::vector<std::string> names = table.names();
    names.insert(names.end(), also.begin(), also.end());
    check_keys(*map, path, names, issues);
    return read_keys(*map, path, table, out, ctx, issues);
}

template <class S, class Ctx>
Value print_table(const Table<S, Ctx>& table, const S& spec) {
    Value::Map out;
    for (const auto& k : table.keys_) {
        Value v = k.print(spec);
        if (!std::holds_alternative<std::monostate>(v.v)) out.push_back({k.info.name, std::move(v)});
    }
    return Value{std::move(out)};
}

// The sections declared in tables (key_table.cpp), in the order the docs list them.
std::vector<const TableInfo*> declared_sections();

// Every key `root` sets to other than its default (`resolved`: the validated scenario as
// describe() prints it) that `model` does not read: a located warning each
// ("cluster.roce.pfc: the ideal model does not read this key; it has no effect").
void warn_unread_keys(const Node& root, const Value& resolved, NetworkModel model, Issues& warnings);

}  // namespace fabricsim::scenario
