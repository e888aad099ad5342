// The files one load reads (the scenario, its includes, preset files) and the pseudo files
// that overrides come from ("--set cluster.servers=4", "--seed"): read with limits, and
// remembered in order, so that issues can be listed in reading order.
#pragma once

#include "scenario/issues.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::scenario {

// Larger inputs are certainly not scenarios; refusing them keeps a mistyped path (a log, a
// device) from being read at all.
inline constexpr std::uintmax_t kMaxFileBytes = 16u << 20;

class SourceFiles {
public:
    // The text of `path`, or nullopt after an issue at `from` / `key` that names the path
    // and says why it cannot be read.
    std::optional<std::string> read(const std::filesystem::path& path, const SourceLocation& from, std::string_view key,
                                    Issues& issues);
    void note_file(const std::string& name);
    void note_pseudo_file(const std::string& name);
    // Real files in the order first read, then pseudo files.
    std::vector<std::string> order() const;

private:
    std::vector<std::string> files_;
    std::vector<std::string> pseudo_;
};

// Whether `path` lies on a kernel pseudo file system (procfs, sysfs, debugfs), whose files
// look regular but are not scenarios: they report no true size, and some never end.
bool is_kernel_pseudo_file(const std::filesystem::path& path);

// How a file is named in messages: `relative` resolved against the folder of `including`.
std::string resolve_display(std::string_view including, std::string_view relative);

}  // namespace fabricsim::scenario
