// The typed error hierarchy. Library code throws; only src/cli/ prints and picks the exit code
// (2 bad input, 3 model error, 1 internal error).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace fabricsim {

// Where in a scenario (or on the command line) a value came from. line/column are 1-based;
// 0 means unknown (e.g. a default).
struct SourceLocation {
    std::string file;
    int line = 0;
    int column = 0;
    std::string str() const;  // "file:line:col" or "file" when line is unknown
};

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One problem in the user's input: where, which key, what was found, what was expected.
struct ConfigIssue {
    SourceLocation location;
    std::string key_path;     // cluster.fabric.link_speed
    std::string message;      // "\"400G\" has no unit; did you mean \"400Gbps\"?"
    std::string str() const;  // "file:l:c: key.path: message"
};

// Bad input: all problems found in one file, in file order. what() is the joined text.
class ConfigError : public Error {
public:
    explicit ConfigError(std::vector<ConfigIssue> issues);
    explicit ConfigError(ConfigIssue issue);
    const std::vector<ConfigIssue>& issues() const { return issues_; }

private:
    std::vector<ConfigIssue> issues_;
};

// Throws a ConfigError with one issue that has a key path but no place in a file: for input
// problems found after loading (a fabric the radix cannot hold), where the spec has no lines.
[[noreturn]] void throw_config_error(std::string key_path, std::string message);

// The model reached a state the user must act on (deadlock, an offload the network does not
// offer, a fabric that cannot be built).
class ModelError : public Error {
public:
    using Error::Error;
};

// A bug in fabricsim: a broken invariant.
class InternalError : public Error {
public:
    using Error::Error;
};

}  // namespace fabricsim
