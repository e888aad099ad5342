// A plain, ordered value tree (no yaml-cpp): the fully resolved scenario as data, for
// `validate --print` (YAML) and for result.json's "scenario" (JSON).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace fabricsim::scenario {

struct Value {
    using List = std::vector<Value>;
    using Map = std::vector<std::pair<std::string, Value>>;  // keys in schema order
    std::variant<std::monostate, bool, std::int64_t, double, std::string, List, Map> v;
    bool operator==(const Value&) const = default;
};

}  // namespace fabricsim::scenario
