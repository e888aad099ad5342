#include "cli/docs_command.hpp"

#include "cli/commands.hpp"
#include "core/errors.hpp"
#include "scenario/key_docs.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace fabricsim::cli {

namespace {

nlohmann::ordered_json to_json(const scenario::Value& v) {
    struct Visit {
        nlohmann::ordered_json operator()(std::monostate) const { return nullptr; }
        nlohmann::ordered_json operator()(bool b) const { return b; }
        nlohmann::ordered_json operator()(std::int64_t i) const { return i; }
        nlohmann::ordered_json operator()(double d) const { return d; }
        nlohmann::ordered_json operator()(const std::string& s) const { return s; }
        nlohmann::ordered_json operator()(const scenario::Value::List& l) const {
            auto out = nlohmann::ordered_json::array();
            for (const auto& e : l) out.push_back(to_json(e));
            return out;
        }
        nlohmann::ordered_json operator()(const scenario::Value::Map& m) const {
            auto out = nlohmann::ordered_json::object();
            for (const auto& [k, e] : m) out[k] = to_json(e);
            return out;
        }
    };
    return std::visit(Visit{}, v.v);
}

}  // namespace

int docs_command(const DocsArgs& args) {
    if (args.json_schema) {
        fmt::print("{}\n", to_json(scenario::json_schema()).dump(2));
        return kExitOk;
    }
    if (args.update.empty()) {
        fmt::print("{}", scenario::key_tables_markdown());
        return kExitOk;
    }
    std::ifstream in(args.update, std::ios::binary);
    if (!in) throw ConfigError(ConfigIssue{SourceLocation{}, "", fmt::format("cannot read {}", args.update)});
    std::stringstream text;
    text << in.rdbuf();
    std::vector<std::string> missing;
    const std::string updated = scenario::update_key_tables(text.str(), missing);
    if (!missing.empty()) {
        std::vector<ConfigIssue> issues;
        for (const auto& path : missing)
            issues.push_back(ConfigIssue{SourceLocation{args.update, 0, 0}, path,
                                         "no generated table for this section; expected its `<!-- keys: ... -->` and "
                                         "`<!-- end keys -->` markers"});
        throw ConfigError(std::move(issues));
    }
    std::ofstream(args.update, std::ios::binary) << updated;
    return kExitOk;
}

}  // namespace fabricsim::cli
