#include "scenario/source_files.hpp"

#include <fmt/format.h>

#include <sys/vfs.h>

#include <algorithm>
#include <array>
#include <fstream>

namespace fabricsim::scenario {

namespace fs = std::filesystem;

std::optional<std::string> SourceFiles::read(const fs::path& path, const SourceLocation& from, std::string_view key,
                                             Issues& issues) {
    const std::string shown = path.generic_string();
    const auto fail = [&](std::string_view why) {
        return issues.reject(from, std::string(key), "cannot read \"{}\": {}", shown, why);
    };
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) return fail("file not found");
    if (!fs::is_regular_file(status)) return fail("not a regular file");
    if (is_kernel_pseudo_file(path)) return fail("a kernel pseudo file (/proc, /sys), not a scenario");
    const auto size = fs::file_size(path, ec);
    if (ec) return fail("cannot read its size");
    const auto too_large = [&] { return fail(fmt::format("larger than {} MiB", kMaxFileBytes >> 20)); };
    if (size > kMaxFileBytes) return too_large();
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail("cannot open it");
    // Read at most one byte past the limit, whatever the size said: a file may grow, or be
    // replaced by a FIFO or device, between the check and the read.
    std::string text;
    std::array<char, 1 << 16> chunk{};
    while (text.size() <= kMaxFileBytes) {
        in.read(chunk.data(), chunk.size());
        const auto got = in.gcount();
        if (got <= 0) break;
        text.append(chunk.data(), static_cast<std::size_t>(got));
        if (!in) break;
    }
    if (in.bad()) return fail("read error");
    if (text.size() > kMaxFileBytes) return too_large();
    note_file(shown);
    return text;
}

bool is_kernel_pseudo_file(const fs::path& path) {
    struct statfs fs_info {};
    if (::statfs(path.c_str(), &fs_info) != 0) return false;
    // Magic numbers of linux/magic.h: their files report a size of 0 (or 4096) whatever
    // they hold, and some never end or block.
    constexpr long kProcSuperMagic = 0x9fa0;
    constexpr long kSysfsMagic = 0x62656572;
    constexpr long kDebugfsMagic = 0x64626720;
    const auto type = static_cast<long>(fs_info.f_type);
    return type == kProcSuperMagic || type == kSysfsMagic || type == kDebugfsMagic;
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
