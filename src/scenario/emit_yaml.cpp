// to_yaml: the resolved tree as block-style YAML, through yaml-cpp's emitter so that quoting
// is right ("" and strings such as "null" come out quoted and read back as text).
#include "scenario/loader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/emitter.h>
#include <yaml-cpp/emittermanip.h>

namespace fabricsim::scenario {

namespace {

void emit(YAML::Emitter& out, const Value& value) {
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::monostate>) {
                out << YAML::Null;
            } else if constexpr (std::is_same_v<T, bool>) {
                out << YAML::TrueFalseBool << v;
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
                out << static_cast<long long>(v);
            } else if constexpr (std::is_same_v<T, double>) {
                out << fmt::format("{}", v);  // shortest text that reads back exactly
            } else if constexpr (std::is_same_v<T, std::string>) {
                out << v;
            } else if constexpr (std::is_same_v<T, Value::List>) {
                out << YAML::BeginSeq;
                for (const auto& item : v) emit(out, item);
                out << YAML::EndSeq;
            } else {
                out << YAML::BeginMap;
                for (const auto& [key, item] : v) {
                    out << YAML::Key << key << YAML::Value;
                    emit(out, item);
                }
                out << YAML::EndMap;
            }
        },
        value.v);
}

}  // namespace

std::string to_yaml(const Value& tree) {
    YAML::Emitter out;
    out << YAML::Block;
    emit(out, tree);
    std::string text = out.c_str();
    text += '\n';
    return text;
}

}  // namespace fabricsim::scenario
