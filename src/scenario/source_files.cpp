#include "scenario/source_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace fabricsim::scenario {

namespace fs = std::filesystem;

std::optional<std::string> SourceFiles::read(const fs::path& path, const SourceLocation& from,
                                             std::string_view key, Issues& issues) {
    const std::string shown = path.generic_string();
    const auto fail = [&](std::string_view why) {
        issues.add(from, std::string(key), fmt::format("cannot read \"{}\": {}", shown, why));
        return std::nullopt;
    };
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) return fail("file not found");
    if (!fs::is_regular_file(status)) return fail("not a regular file");
    const auto size = fs::file_size(path, ec);
    if (ec) return fail("cannot read its size");
    if (size > kMaxFileBytes) return fail(fmt::format("larger than {} MiB", kMaxFileBytes >> 20));
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail("cannot open it");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return fail("read error");
    note_file(shown);
    return text.str();
}

void SourceFiles::note_file(const std::string& name) {
    if (std::find(files_.begin(), files_.end(), name) == files_.end()) files_.push_back(name);
}

void SourceFiles::note_pseudo_file(const std::string& name) {
    if (std::find(pseudo_.begin(), pseudo_.end(), name) == pseudo_.end()) pseudo_.push_back(name);
}

std::vector<std::string> SourceFiles::order() const {
    std::vector<std::string> all = files_;
    all.insert(all.end(), pseudo_.begin(), pseudo_.end());
    return all;
}

std::string resolve_display(std::string_view including, std::string_view relative) {
    const fs::path rel{std::string(relative)};
    if (rel.is_absolute()) return rel.lexically_normal().generic_string();
    return (fs::path{std::string(including)}.parent_path() / rel).lexically_normal().generic_string();
}

}  // namespace fabricsim::scenario
