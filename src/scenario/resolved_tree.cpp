#include "scenario/resolved_tree.hpp"

#include <type_traits>

namespace fabricsim::scenario {

bool operator==(const Value& a, const Value& b) {
    if (a.v.index() != b.v.index()) return false;
    return std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            const T& y = std::get<T>(b.v);
            if constexpr (std::is_same_v<T, Value::Map>) {
                if (x.size() != y.size()) return false;
                for (std::size_t i = 0; i < x.size(); ++i)
                    if (x[i].key != y[i].key || !(x[i].value == y[i].value)) return false;
                return true;
            } else {
                return x == y;
            }
        },
        a.v);
}

}  // namespace fabricsim::scenario
