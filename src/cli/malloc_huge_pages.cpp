#include "cli/malloc_huge_pages.hpp"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace fabricsim::cli {

namespace {

constexpr std::string_view kTunable = "glibc.malloc.hugetlb";

std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value == nullptr ? std::string() : std::string(value);
}

std::string file_text(const char* path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool thp(const HugePageFacts& facts, std::string_view mode) {
    return facts.thp_enabled.find(mode) != std::string::npos;
}

}  // namespace

HugePageFacts huge_page_facts() {
    return {file_text("/sys/kernel/mm/transparent_hugepage/enabled"), env("GLIBC_TUNABLES"), env("LD_PRELOAD")};
}

bool want_malloc_huge_pages(const HugePageFacts& facts, Bytes estimate) {
    return thp(facts, "[madvise]") && facts.tunables.find(kTunable) == std::string::npos &&
           facts.ld_preload.find("vgpreload") == std::string::npos && estimate >= kHugePagesFrom;
}

bool malloc_huge_pages_on(const HugePageFacts& facts) {
    return thp(facts, "[always]") ||
           (thp(facts, "[madvise]") && facts.tunables.find(std::string(kTunable) + "=1") != std::string::npos);
}

void restart_with_malloc_huge_pages() {
    // The arguments as the kernel holds them: NUL-terminated, one after another.
    std::string cmdline = file_text("/proc/self/cmdline");
    if (cmdline.empty()) return;
    std::vector<char*> argv;
    for (std::size_t at = 0; at < cmdline.size(); at = cmdline.find('\0', at) + 1) {
        argv.push_back(cmdline.data() + at);
        if (cmdline.find('\0', at) == std::string::npos) return;  // cut short: do not guess
    }
    argv.push_back(nullptr);
    const std::string tunables = env("GLIBC_TUNABLES");
    const std::string with = (tunables.empty() ? "" : tunables + ":") + std::string(kTunable) + "=1";
    if (setenv("GLIBC_TUNABLES", with.c_str(), 1) != 0) return;
    execv("/proc/self/exe", argv.data());
    // execv returned: it failed; go on without, and leave the environment as it was.
    if (tunables.empty())
        unsetenv("GLIBC_TUNABLES");
    else
        setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
}

}  // namespace fabricsim::cli
