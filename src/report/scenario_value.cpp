#include "report/scenario_value.hpp"

namespace fabricsim::report {

const scenario::Value* value_at(const scenario::Value& root, std::string_view path) {
    const scenario::Value* at = &root;
    while (!path.empty()) {
        const std::size_t dot = path.find('.');
        const std::string_view key = path.substr(0, dot);
        const auto* map = std::get_if<scenario::Value::Map>(&at->v);
        if (map == nullptr) return nullptr;
        const scenario::Value* next = nullptr;
        for (const auto& member : *map)
            if (member.key == key) next = &member.value;
        if (next == nullptr) return nullptr;
        at = next;
        path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    }
    return at;
}

std::string text_at(const scenario::Value& root, std::string_view path) {
    const scenario::Value* v = value_at(root, path);
    if (v == nullptr) return {};
    const auto* s = std::get_if<std::string>(&v->v);
    return s == nullptr ? std::string() : *s;
}

}  // namespace fabricsim::report
