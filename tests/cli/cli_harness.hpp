// Runs the real `fabricsim` binary for end-to-end tests and captures what it printed.
#pragma once

#include <filesystem>
#include <string>

namespace fabricsim::test {

struct Outcome {
    int exit_code;
    std::string output;  // stdout and stderr together
};

// Runs FABRICSIM_BINARY with `args` (shell words) from the source tree.
Outcome run_fabricsim(const std::string& args);

// A fresh empty folder under the system temp dir, removed at destruction.
class TempDir {
public:
    explicit TempDir(const std::string& tag);
    ~TempDir();
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& text);

}  // namespace fabricsim::test
