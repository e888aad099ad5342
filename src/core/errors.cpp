#include "core/errors.hpp"

#include <fmt/format.h>

namespace fabricsim {

std::string SourceLocation::str() const {
    if (line <= 0) return file;
    return fmt::format("{}:{}:{}", file, line, column);
}

std::string ConfigIssue::str() const {
    std::string where = location.str();
    std::string out;
    if (!where.empty()) out = where + ": ";
    if (!key_path.empty()) out += key_path + ": ";
    return out + message;
}

namespace {
std::string join(const std::vector<ConfigIssue>& issues) {
    std::string out;
    for (const auto& i : issues) {
        if (!out.empty()) out += '\n';
        out += i.str();
    }
    return out;
}
}  // namespace

ConfigError::ConfigError(std::vector<ConfigIssue> issues) : Error(join(issues)), issues_(std::move(issues)) {}

ConfigError::ConfigError(ConfigIssue issue) : ConfigError(std::vector<ConfigIssue>{std::move(issue)}) {}

void throw_config_error(std::string key_path, std::string message) {
    ConfigIssue issue;
    issue.key_path = std::move(key_path);
    issue.message = std::move(message);
    throw ConfigError(std::move(issue));
}

}  // namespace fabricsim
