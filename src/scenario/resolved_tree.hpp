// A plain, ordered value tree (no yaml-cpp): the fully resolved scenario as data, for
// `validate --print` (YAML) and for result.json's "scenario" (JSON).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace fabricsim::scenario {

struct Value {
    struct Member;
    using List = std::vector<Value>;
    // Keys in schema order. A named struct rather than std::pair<std::string, Value>: with
    // clang and libstdc++ 12, instantiating that pair recursively through the variant fails
    // to compile. Structured bindings (`for (const auto& [key, value] : map)`) work the same.
    using Map = std::vector<Member>;
    std::variant<std::monostate, bool, std::int64_t, double, std::string, List, Map> v;
};

struct Value::Member {
    std::string key;
    Value value;
};

bool operator==(const Value& a, const Value& b);

}  // namespace fabricsim::scenario
