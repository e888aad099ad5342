// Runs the real `fabricsim` binary for end-to-end tests and captures what it printed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

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
// The rows of a CSV file without quoted fields, header left out, each split at commas.
std::vector<std::vector<std::string>> csv_rows(const std::string& csv);

}  // namespace fabricsim::test
